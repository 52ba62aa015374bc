// The conformance report as data, and the rules that turn test outcomes into requirement statuses.
// Pure: no Playwright, no files. The reporter feeds it plain TestRecords; self-tests can do the same.
import type { Level, Requirement } from '../catalogue';
import { LEVELS } from '../catalogue';
import type { CheckOutcome, Evidence } from '../check-protocol';

/**
 * passed / failed (MUST) / warning (SHOULD, INFO) / skipped / untested / waived, plus
 * `not-observable`: an untested requirement that no HTTP exchange can show broken (catalogue `observable: false`).
 * It is kept apart from `untested` so that "untested" stays a to-do list.
 */
export type Status = 'passed' | 'failed' | 'warning' | 'skipped' | 'untested' | 'not-observable' | 'waived';
export const STATUSES: readonly Status[] = ['failed', 'warning', 'waived', 'skipped', 'untested', 'not-observable', 'passed'];

export type Verdict = 'PASS' | 'FAIL';

/** What Playwright's last attempt of a test said; `not run` when it has no result (interrupted run). */
export type TestRunStatus = 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted' | 'not run';

/** One test, as the reporter saw its last attempt. */
export interface TestRecord {
  /** Describe blocks and title, joined with " › ". */
  title: string;
  /** Repository-relative, forward slashes. */
  file: string;
  line: number;
  project: string;
  /** Requirement IDs from the test's `@` tags, without the `@`. */
  tags: string[];
  status: TestRunStatus;
  /** Passed on a retry after failing. */
  flaky: boolean;
  durationMs: number;
  checks: { id: string; outcome: CheckOutcome }[];
  /** Evidence attachments of failed checks; `raw` when an attachment was not valid JSON. */
  evidence: { id: string; evidence?: Evidence; raw?: string }[];
  skipReason?: string;
  /** Error messages of the last attempt, without colours. */
  errors: string[];
  seed?: string;
  requestsSent?: number;
  /** The credential variant the test sends, from its `credentials` annotation (the HTML report's matrix). */
  credentials?: string;
}

export interface Waiver {
  id: string;
  reason: string;
}

export interface TestRef {
  title: string;
  file: string;
  line: number;
  project: string;
  outcome: TestRunStatus | 'flaky';
  checks: { passed: number; failed: number };
  durationMs: number;
  seed?: string;
  requestsSent?: number;
  credentials?: string;
}

export interface EvidenceEntry {
  /** `check`: a failed check's attachment; `error`: a test that failed without a failed check (crash, time-out). */
  kind: 'check' | 'error';
  test: string;
  location: string;
  project: string;
  message: string;
  evidence?: Evidence;
}

export interface RequirementRow {
  id: string;
  section: string;
  level: Level;
  text: string;
  status: Status;
  /** Why skipped, untested, not-observable or waived. */
  reason?: string;
  /** The status a waiver hid (failed or warning). */
  waivedStatus?: 'failed' | 'warning';
  tests: TestRef[];
  evidence: EvidenceEntry[];
}

export type LevelCounts = Record<Status, number> & { total: number };

export interface Summary {
  title: string;
  verdict: Verdict;
  /** Why FAIL; empty for PASS. */
  verdictReasons: string[];
  /** Set in a per-project report. */
  project?: string;
  target: string;
  date: string;
  durationMs: number;
  suiteVersion: string;
  safetyMode: string;
  profile: string;
  seed: string;
  strict: boolean;
  counts: Record<Level, LevelCounts>;
  /** Sum of the tests' `requests-sent` annotations; null when no test reported one. */
  requestsSent: number | null;
  tests: { total: number; passed: number; failed: number; flaky: number; skipped: number; notRun: number };
  /** Problems that fail the run whatever the requirements say: global errors, bad waivers, failed untagged tests. */
  errors: string[];
  /** Tags that look like requirement IDs but are not in the catalogue. */
  unknownTags: string[];
  waivers: (Waiver & { used: boolean })[];
}

export interface ConformanceReport {
  format: 'rsf-conformance/1';
  summary: Summary;
  requirements: RequirementRow[];
}

export interface ReportInput {
  catalogue: readonly Requirement[];
  tests: readonly TestRecord[];
  metadata: Record<string, unknown>;
  strict: boolean;
  waivers: readonly Waiver[];
  /** Errors known before the rules run (global errors, waiver file problems). */
  errors: readonly string[];
  startTime: Date;
  durationMs: number;
  project?: string;
}

/** A tag that names a requirement: upper-case words joined by dashes, e.g. OP4-UTILITY-MAX. */
export const REQUIREMENT_TAG = /^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$/;

const FAILED_RUN: ReadonlySet<TestRunStatus> = new Set(['failed', 'timedOut']);

function testRef(t: TestRecord, id: string): TestRef {
  const checks = t.checks.filter((c) => c.id === id);
  return {
    title: t.title,
    file: t.file,
    line: t.line,
    project: t.project,
    outcome: t.flaky ? 'flaky' : t.status,
    checks: { passed: checks.filter((c) => c.outcome === 'passed').length, failed: checks.filter((c) => c.outcome === 'failed').length },
    durationMs: t.durationMs,
    ...(t.seed !== undefined && { seed: t.seed }),
    ...(t.requestsSent !== undefined && { requestsSent: t.requestsSent }),
    ...(t.credentials !== undefined && { credentials: t.credentials }),
  };
}

function errorText(t: TestRecord): string {
  return t.errors.join('\n\n') || `test ${t.status === 'timedOut' ? 'timed out' : 'failed'} without an error message`;
}

/** What one test says about one requirement. */
type Signal = { kind: 'fail'; entry: EvidenceEntry } | { kind: 'pass' } | { kind: 'skip'; reason: string } | { kind: 'not-reached'; reason: string };

function signalsOf(t: TestRecord, id: string): Signal[] {
  const where = { test: t.title, location: `${t.file}:${t.line}`, project: t.project };
  if (t.status === 'skipped') return [{ kind: 'skip', reason: t.skipReason ?? 'skipped' }];
  const own = t.checks.filter((c) => c.id === id);
  const failed = own.filter((c) => c.outcome === 'failed');
  if (failed.length > 0) {
    const attached = t.evidence.filter((e) => e.id === id);
    const testError = FAILED_RUN.has(t.status) ? errorText(t) : undefined;
    const entries: EvidenceEntry[] = attached.length > 0
      ? attached.map((e) => ({ kind: 'check', ...where, message: e.evidence?.message ?? e.raw ?? '', ...(e.evidence && { evidence: e.evidence }) }))
      : [{ kind: 'check', ...where, message: testError ?? 'check failed; no evidence was attached' }];
    return entries.map((entry) => ({ kind: 'fail', entry }));
  }
  // A failed test with no failed check at all (time-out, crash) fails every requirement it is tagged with.
  const anyFailedCheck = t.checks.some((c) => c.outcome === 'failed');
  if (FAILED_RUN.has(t.status) && !anyFailedCheck && t.tags.includes(id)) {
    return [{ kind: 'fail', entry: { kind: 'error', ...where, message: errorText(t) } }];
  }
  // A passed check counts even if the test later failed on another requirement; a passing test
  // vouches for its tags even when it checks with plain assertions.
  if (own.length > 0 || t.status === 'passed') return [{ kind: 'pass' }];
  // Failed on another requirement's check, interrupted or never run: nothing was learnt about this one.
  const why = t.status === 'not run' ? 'did not run' : t.status === 'interrupted' ? 'was interrupted' : 'stopped at an earlier failed check';
  return [{ kind: 'not-reached', reason: `not reached: "${t.title}" ${why}` }];
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function compareTests(a: TestRef, b: TestRef): number {
  return a.file.localeCompare(b.file) || a.line - b.line || a.title.localeCompare(b.title) || a.project.localeCompare(b.project);
}

function rowOf(req: Requirement, tests: readonly TestRecord[], waiver: Waiver | undefined): RequirementRow {
  const mine = tests.filter((t) => t.tags.includes(req.id) || t.checks.some((c) => c.id === req.id));
  const signals = mine.flatMap((t) => signalsOf(t, req.id));
  const fails = signals.flatMap((s) => (s.kind === 'fail' ? [s.entry] : []));
  const row: RequirementRow = {
    id: req.id,
    section: req.section,
    level: req.level,
    text: req.text,
    status: 'untested',
    tests: mine.map((t) => testRef(t, req.id)).sort(compareTests),
    evidence: fails.sort((a, b) => a.location.localeCompare(b.location) || a.project.localeCompare(b.project) || a.message.localeCompare(b.message)),
  };
  if (fails.length > 0) row.status = req.level === 'MUST' ? 'failed' : 'warning';
  else if (signals.some((s) => s.kind === 'pass')) row.status = 'passed';
  else if (signals.some((s) => s.kind === 'skip')) {
    row.status = 'skipped';
    row.reason = unique(signals.flatMap((s) => (s.kind === 'skip' ? [s.reason] : []))).join('; ');
  } else if (signals.length > 0) {
    row.reason = unique(signals.flatMap((s) => (s.kind === 'not-reached' ? [s.reason] : []))).join('; ');
  } else if (req.observable === false) {
    row.status = 'not-observable';
    row.reason = req.notObservableBecause ?? 'no HTTP exchange can show a violation';
  } else {
    row.reason = `no test carries @${req.id}`;
  }
  if (waiver && (row.status === 'failed' || row.status === 'warning')) {
    row.waivedStatus = row.status;
    row.status = 'waived';
    row.reason = waiver.reason;
  }
  return row;
}

function emptyCounts(): LevelCounts {
  return { failed: 0, warning: 0, waived: 0, skipped: 0, untested: 0, 'not-observable': 0, passed: 0, total: 0 };
}

function text(value: unknown, fallback: string): string {
  return value === undefined || value === null || value === '' ? fallback : String(value);
}

export function buildReport(input: ReportInput): ConformanceReport {
  const waiverOf = new Map(input.waivers.map((w) => [w.id, w]));
  const rows = input.catalogue.map((req) => rowOf(req, input.tests, waiverOf.get(req.id)));

  const counts = Object.fromEntries(LEVELS.map((l) => [l, emptyCounts()])) as Record<Level, LevelCounts>;
  for (const row of rows) {
    counts[row.level][row.status] += 1;
    counts[row.level].total += 1;
  }

  const known = new Set(input.catalogue.map((r) => r.id));
  const unknownTags = unique(input.tests.flatMap((t) => [...t.tags, ...t.checks.map((c) => c.id)]).filter((id) => REQUIREMENT_TAG.test(id) && !known.has(id))).sort();

  const errors = [...input.errors];
  for (const t of input.tests) {
    const tagged = t.tags.some((id) => known.has(id));
    if (FAILED_RUN.has(t.status) && !tagged) errors.push(`${t.title} (${t.file}:${t.line}) failed and carries no requirement tag: ${errorText(t)}`);
  }

  const reasons: string[] = [];
  if (counts.MUST.failed > 0) reasons.push(`${counts.MUST.failed} MUST requirement${counts.MUST.failed === 1 ? '' : 's'} failed`);
  if (input.strict && counts.SHOULD.warning > 0) reasons.push(`${counts.SHOULD.warning} SHOULD warning${counts.SHOULD.warning === 1 ? '' : 's'} (strict mode)`);
  if (errors.length > 0) reasons.push(`${errors.length} error${errors.length === 1 ? '' : 's'} in the run`);

  const requests = input.tests.flatMap((t) => (t.requestsSent === undefined ? [] : [t.requestsSent]));
  const m = input.metadata;
  const used = new Set(rows.filter((r) => r.status === 'waived').map((r) => r.id));
  return {
    format: 'rsf-conformance/1',
    summary: {
      title: 'Reseller Storefront API conformance',
      verdict: reasons.length > 0 ? 'FAIL' : 'PASS',
      verdictReasons: reasons,
      ...(input.project !== undefined && { project: input.project }),
      target: text(m.target, 'unknown'),
      date: input.startTime.toISOString(),
      durationMs: Math.round(input.durationMs),
      suiteVersion: text(m.suiteVersion, 'unknown'),
      safetyMode: text(m.safetyMode, 'unknown'),
      profile: text(m.profile, 'none'),
      seed: text(m.seed, 'unknown'),
      strict: input.strict,
      counts,
      requestsSent: requests.length > 0 ? requests.reduce((a, b) => a + b, 0) : null,
      tests: {
        total: input.tests.length,
        passed: input.tests.filter((t) => t.status === 'passed' && !t.flaky).length,
        failed: input.tests.filter((t) => FAILED_RUN.has(t.status)).length,
        flaky: input.tests.filter((t) => t.flaky).length,
        skipped: input.tests.filter((t) => t.status === 'skipped').length,
        notRun: input.tests.filter((t) => t.status === 'not run' || t.status === 'interrupted').length,
      },
      errors,
      unknownTags,
      waivers: input.waivers.map((w) => ({ ...w, used: used.has(w.id) })),
    },
    requirements: rows,
  };
}
