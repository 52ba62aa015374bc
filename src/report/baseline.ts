// RSF_BASELINE: an earlier run's conformance.json, and how each requirement of this run compares with it.
// Compared by requirement ID, so a baseline written by another version of the catalogue still compares: IDs only
// one side has are listed as new or gone.
import { isObject } from '../model/operations';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Level } from '../model/catalogue';
import { withoutByteOrderMark } from '../model/text';

/** What this run keeps of a baseline: its facts, and each requirement's level and status. */
export interface Baseline {
  file: string;
  date: string;
  target: string;
  suiteVersion: string;
  verdict: string;
  requirements: ReadonlyMap<string, { level: string; status: string }>;
}

/**
 * regressed: failing now (failed, warning or waived), not failing in the baseline (it passed, or was not judged
 * there); fixed: failing in the baseline, passed now; still failing: failing in both; new: not in the baseline.
 */
export type Change = 'regressed' | 'fixed' | 'still failing' | 'new';

export interface ChangedRequirement {
  id: string;
  level: Level;
  /** Status in the baseline; absent for a new requirement. */
  before?: string;
  now: string;
}

export interface BaselineComparison {
  file: string;
  date: string;
  target: string;
  suiteVersion: string;
  verdict: string;
  regressed: ChangedRequirement[];
  fixed: ChangedRequirement[];
  stillFailing: ChangedRequirement[];
  new: ChangedRequirement[];
  /** In the baseline, not in this catalogue. */
  gone: { id: string; level: string; before: string }[];
}

/** A row is failing when it failed or warned, waived or not: a waiver accepts a failure, it does not fix it. */
const FAILING_BEFORE: ReadonlySet<string> = new Set(['failed', 'warning', 'waived']);
const FAILING_NOW: ReadonlySet<string> = FAILING_BEFORE;

export class BaselineError extends Error {}

// Not outcome.ts's isObject: this module reads a file, and must not load the suite's HTTP layer with it.
const text = (value: unknown): string => (typeof value === 'string' ? value : 'unknown');

/** Reads a conformance.json; throws BaselineError, with the file and what is wrong, when it is not one. */
export function loadBaseline(path: string): Baseline {
  const file = resolve(path);
  let data: unknown;
  try {
    data = JSON.parse(withoutByteOrderMark(readFileSync(file, 'utf8')));
  } catch (e) {
    throw new BaselineError(`RSF_BASELINE: ${file} cannot be read as JSON: ${(e as Error).message}`);
  }
  if (!isObject(data) || typeof data.format !== 'string' || !data.format.startsWith('rsf-conformance/')) {
    throw new BaselineError(`RSF_BASELINE: ${file} is not a conformance.json (no "format": "rsf-conformance/…")`);
  }
  const summary = isObject(data.summary) ? data.summary : {};
  if (!Array.isArray(data.requirements)) throw new BaselineError(`RSF_BASELINE: ${file} has no "requirements" list`);
  const requirements = new Map<string, { level: string; status: string }>();
  for (const row of data.requirements) {
    if (!isObject(row) || typeof row.id !== 'string' || typeof row.status !== 'string') {
      throw new BaselineError(`RSF_BASELINE: ${file} has a requirement without a string "id" and "status"`);
    }
    requirements.set(row.id, { level: text(row.level), status: row.status });
  }
  return {
    file,
    date: text(summary.date),
    target: text(summary.target),
    suiteVersion: text(summary.suiteVersion),
    verdict: text(summary.verdict),
    requirements,
  };
}

/** The change of one requirement, or undefined when it neither got worse nor better. */
export function changeOf(baseline: Baseline, id: string, now: string): Change | undefined {
  const before = baseline.requirements.get(id)?.status;
  if (before === undefined) return 'new';
  const wasFailing = FAILING_BEFORE.has(before);
  if (FAILING_NOW.has(now)) return wasFailing ? 'still failing' : 'regressed';
  return wasFailing && now === 'passed' ? 'fixed' : undefined;
}

export function compareWithBaseline(
  baseline: Baseline,
  rows: readonly { id: string; level: Level; status: string }[],
): BaselineComparison {
  const comparison: BaselineComparison = {
    file: baseline.file,
    date: baseline.date,
    target: baseline.target,
    suiteVersion: baseline.suiteVersion,
    verdict: baseline.verdict,
    regressed: [],
    fixed: [],
    stillFailing: [],
    new: [],
    gone: [],
  };
  const lists: Record<Change, ChangedRequirement[]> = {
    regressed: comparison.regressed,
    fixed: comparison.fixed,
    'still failing': comparison.stillFailing,
    new: comparison.new,
  };
  for (const row of rows) {
    const change = changeOf(baseline, row.id, row.status);
    if (!change) continue;
    const before = baseline.requirements.get(row.id)?.status;
    lists[change].push({ id: row.id, level: row.level, ...(before !== undefined && { before }), now: row.status });
  }
  const current = new Set(rows.map((r) => r.id));
  for (const [id, old] of baseline.requirements) {
    if (!current.has(id)) comparison.gone.push({ id, level: old.level, before: old.status });
  }
  return comparison;
}
