// The matrix of the HTML report: one row per operation, one column per kind of check (check-kinds.ts), each cell the
// requirements behind it with their status *at that operation*. A requirement that spans operations (GEN-*, HTTP-*,
// LINK-*) is judged per operation from the tests that exercised it there, so that a content-type failure of
// operation 9 does not paint operation 4's cell. Pure: report data in, matrix data out.
import type { Requirement } from '../model/catalogue';
import { OPERATIONS, type Operation } from '../model/operations';
import { type MatrixColumn, MATRIX_COLUMNS, columnsOf, requirementVariants, variantColumn } from './check-kinds';
import type { ConformanceReport, EvidenceEntry, RequirementRow, TestRef } from './model';

export interface MatrixEntry {
  row: RequirementRow;
  /** The requirement's status at this cell: its own, or what its tests at this operation (and variant) say. */
  status: string;
}

export interface MatrixCell {
  column: MatrixColumn;
  /** Worst first. Empty: no check. */
  entries: MatrixEntry[];
  /** The worst status of the entries; undefined when there is no check. */
  status?: string;
}

export interface MatrixRow {
  operation: Operation;
  cells: MatrixCell[];
}

/**
 * Worst first. A cell shows its worst status, but a check that said nothing (skipped, untested) does not hide one
 * that passed: the tooltip and the count name the rest. Statuses this list does not know yet rank just below
 * `warning`, so that a new status is seen rather than buried.
 */
export const CELL_STATUS_ORDER: readonly string[] = [
  'failed',
  'regressed',
  'inconclusive',
  'warning',
  'not run',
  'waived',
  'passed',
  'skipped',
  'untested',
  'not-observable',
];

export function statusRank(status: string): number {
  const rank = CELL_STATUS_ORDER.indexOf(status);
  return rank >= 0 ? rank : CELL_STATUS_ORDER.indexOf('warning') + 0.5;
}

/** Statuses that come from evidence of a violation: at an operation they hold only where that evidence was seen. */
const EVIDENCE_STATUSES: ReadonlySet<string> = new Set(['failed', 'warning', 'waived', 'regressed']);

const testKey = (title: string, location: string, project: string) => `${location}\u0000${project}\u0000${title}`;
const refKey = (t: TestRef) => testKey(t.title, `${t.file}:${t.line}`, t.project);
const evidenceKey = (e: EvidenceEntry) => testKey(e.test, e.location, e.project);

/** The operations a test named in its title ("… · operation 4 · §4.4 › …", "operation 3: refuses …"). */
function operationsInTitle(title: string): number[] {
  return [...title.matchAll(/\boperation (\d+)\b/g)].map((m) => Number(m[1]));
}

/**
 * Which operations each test exercised: the ones its title names, else those of the single-operation requirements it
 * carries (a property test of OP4-* is about operation 4). Empty when neither says: the requirement's own
 * operations then stand (a link test tagged only LINK-ADDRESS-CREATED-UPDATABLE exercises 2 and 3).
 */
function testOperations(report: ConformanceReport, catalogue: ReadonlyMap<string, Requirement>): Map<string, number[]> {
  const fromTags = new Map<string, Set<number>>();
  const titles = new Map<string, string>();
  for (const row of report.requirements) {
    const ops = catalogue.get(row.id)?.operations ?? [];
    for (const t of row.tests) {
      const key = refKey(t);
      titles.set(key, t.title);
      const set = fromTags.get(key) ?? new Set<number>();
      if (ops.length === 1) set.add(ops[0] as number);
      fromTags.set(key, set);
    }
  }
  const result = new Map<string, number[]>();
  for (const [key, title] of titles) {
    const named = operationsInTitle(title);
    result.set(key, named.length > 0 ? named : [...(fromTags.get(key) ?? [])]);
  }
  return result;
}

/** A test vouches for a requirement when it checked it and nothing of it failed. */
function vouches(t: TestRef): boolean {
  return t.checks.failed === 0 && (t.checks.passed > 0 || t.outcome === 'passed' || t.outcome === 'flaky');
}

/** The requirement's status judged only by `scoped`, a part of its tests. */
function scopedStatus(row: RequirementRow, scoped: readonly TestRef[]): string {
  if (scoped.length === row.tests.length) return row.status;
  if (EVIDENCE_STATUSES.has(row.status)) {
    const keys = new Set(scoped.map(refKey));
    const all = new Set(row.tests.map(refKey));
    // Evidence that names no test of the requirement cannot be placed: it shows everywhere rather than nowhere.
    const placeable = row.evidence.some((e) => all.has(evidenceKey(e)));
    if (!placeable || row.evidence.some((e) => keys.has(evidenceKey(e)))) return row.status;
  }
  if (scoped.some(vouches)) return 'passed';
  if (scoped.length === 0) return row.status === 'not-observable' ? row.status : 'untested';
  if (scoped.every((t) => t.outcome === 'skipped')) return 'skipped';
  return row.status === 'passed' ? 'untested' : row.status;
}

/** Matrix rows for the 15 operations, from a report and the catalogue (for each requirement's operations). */
export function buildMatrix(report: ConformanceReport, catalogue: readonly Requirement[]): MatrixRow[] {
  const byId = new Map(catalogue.map((r) => [r.id, r]));
  const opsOfTest = testOperations(report, byId);
  const operations = Object.values(OPERATIONS).sort((a, b) => a.number - b.number);
  const rows: MatrixRow[] = operations.map((operation) => ({
    operation,
    cells: MATRIX_COLUMNS.map((column) => ({ column, entries: [] })),
  }));

  for (const row of report.requirements) {
    const requirement = byId.get(row.id);
    if (!requirement) continue;
    const declaredVariants = requirementVariants(requirement);
    for (const column of columnsOf(requirement)) {
      for (const number of requirement.operations) {
        const cell = rows.find((r) => r.operation.number === number)?.cells.find((c) => c.column.key === column.key);
        if (!cell) continue;
        const scoped = row.tests.filter((t) => {
          const ops = opsOfTest.get(refKey(t)) ?? [];
          if (ops.length > 0 && !ops.includes(number)) return false;
          if (column.variant === undefined) return true;
          const own = variantColumn(t.credentials);
          const variants = own ? [own] : declaredVariants;
          return variants.includes(column.variant);
        });
        cell.entries.push({ row, status: scopedStatus(row, scoped) });
      }
    }
  }

  for (const matrixRow of rows) {
    for (const cell of matrixRow.cells) {
      cell.entries.sort((a, b) => statusRank(a.status) - statusRank(b.status) || a.row.id.localeCompare(b.row.id));
      const worst = cell.entries[0];
      if (worst) cell.status = worst.status;
    }
  }
  return rows;
}
