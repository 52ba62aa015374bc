// The conformance report as data, and the rules that turn test outcomes into requirement statuses.
// Pure: no Playwright, no files. The reporter feeds it plain TestRecords; self-tests can do the same.
import type { Checkout } from './checkout';
import type { Level, Requirement } from '../model/catalogue';
import { LEVELS, REQUIREMENT_ID } from '../model/catalogue';
import type { CheckOutcome, Evidence, ExchangeRecord } from '../checks/check-protocol';
import type { SlowDown } from '../http/slow-downs';
import type { FailOn } from '../config/settings/reporting';
import { type Baseline, type BaselineComparison, type Change, changeOf, compareWithBaseline } from './baseline';
import { type ExitCode, type Verdict, decideVerdict } from './verdict';
import { type Waiver, type WaiverStatus, isExpired, waiverStatuses } from './waivers';

export type { ExitCode, Verdict, Waiver, WaiverStatus };
export { EXIT_CODES } from './verdict';

/**
 * passed / failed (MUST) / warning (SHOULD, INFO) / skipped / untested / waived, plus
 * `not-observable`: an untested requirement that no HTTP exchange can show broken (catalogue `observable: false`).
 * It is kept apart from `untested` so that "untested" stays a to-do list.
 * `inconclusive` (every attempt throttled or a gateway's error, no answer, an answer over the size cap, or a
 * firewall's page) and `not run` (the run's circuit breaker was open) are requirements the run could not judge,
 * through no fault of the target's: neither passed nor skipped.
 */
export type Status =
  | 'passed'
  | 'failed'
  | 'warning'
  | 'inconclusive'
  | 'not run'
  | 'skipped'
  | 'untested'
  | 'not-observable'
  | 'waived';
export const STATUSES: readonly Status[] = [
  'failed',
  'warning',
  'inconclusive',
  'not run',
  'waived',
  'skipped',
  'untested',
  'not-observable',
  'passed',
];
/** Statuses of a requirement the run could not judge. */
export const UNJUDGED_STATUSES: ReadonlySet<Status> = new Set(['inconclusive', 'not run']);

/** What Playwright's last attempt of a test said; `not run` when it has no result (interrupted run). */
export type TestRunStatus = 'passed' | 'failed' | 'timedOut' | 'skipped' | 'interrupted' | 'not run';

/** Why a test ended without a judgement: its INCONCLUSIVE or NOT_RUN annotation (check-protocol.ts). */
export interface Unjudged {
  kind: 'inconclusive' | 'not run';
  /** One sentence, e.g. "the target stopped answering at … (last request: GET /v1/prices)". */
  reason: string;
  /** The answer that stopped the test, when an answer did (UNJUDGED_ANSWER_ATTACHMENT). */
  answer?: ExchangeRecord;
}

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
  /** An untested check carries its reason: it saw no applicable sample. */
  checks: { id: string; outcome: CheckOutcome; reason?: string }[];
  /** Evidence attachments of failed checks; `raw` when an attachment was not valid JSON. */
  evidence: { id: string; evidence?: Evidence; raw?: string }[];
  skipReason?: string;
  /** Set when the test was skipped because it could not be judged (throttled, no answer, breaker open). */
  unjudged?: Unjudged;
  /** Error messages of the last attempt, without colours. */
  errors: string[];
  seed?: string;
  requestsSent?: number;
  /** Requests of the test that were sent again after a throttled answer. */
  retries?: number;
  /** Transient gateway errors (502, 503 without Retry-After, 504, 52x) the test's requests got and sent again. */
  transientRetried?: number;
  /** Answers the test got that refused a request for its size (413, 414, 431): samples not judged (§8). */
  sizeRefused?: number;
  /** Valid inputs its target refused for a reason the spec allows (not judged), and the first of them. */
  allowedRefusals?: { count: number; example: string };
  /** The outages the circuit breaker's pauses rode out that the test carries: when each began (ISO time). */
  pauses?: string[];
  /**
   * The halvings of the run's pace (a 429, or a rate limiter's 503) that the test carries: its worker's since its
   * last test, and the runner's handed on (RunState.handOverSlowDown).
   */
  slowDowns?: SlowDown[];
  /** The credential variant the test sends, from its `credentials` annotation (the HTML report's matrix). */
  credentials?: string;
}

/** The folder of the conformance spec files, repository-relative: the suite's testDir, where TestRef.file lies. */
export const SPEC_DIR = 'tests/conformance';

export interface TestRef {
  title: string;
  file: string;
  line: number;
  project: string;
  outcome: TestRunStatus | 'flaky' | 'inconclusive';
  checks: { passed: number; failed: number; untested: number };
  durationMs: number;
  seed?: string;
  requestsSent?: number;
  retries?: number;
  credentials?: string;
}

export interface EvidenceEntry {
  /**
   * `check`: a failed check's attachment; `error`: the error of a test that broke outside any check (not judged);
   * `unjudged`: the answer that stopped a test unjudged.
   */
  kind: 'check' | 'error' | 'unjudged';
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
  /** Why skipped, untested, not-observable, waived, inconclusive or not run; for failed, a waiver that expired. */
  reason?: string;
  /** The status a waiver hid (failed or warning). */
  waivedStatus?: 'failed' | 'warning';
  /** A waiver of this requirement that expired: it no longer waives, and the requirement counts again. */
  expiredWaiver?: Waiver;
  /** Against RSF_BASELINE: how the requirement changed; absent without a baseline, or when nothing changed. */
  change?: Change;
  /** Its status in the baseline; absent without a baseline and for a requirement the baseline did not have. */
  baselineStatus?: string;
  tests: TestRef[];
  evidence: EvidenceEntry[];
  /** Of a requirement inconclusive or not run: the answers that stopped its tests, where answers did. */
  unjudgedEvidence?: EvidenceEntry[];
}

export type LevelCounts = Record<Status, number> & { total: number };

export interface Summary {
  title: string;
  verdict: Verdict;
  /** 0 for PASS, 1 for FAIL, 2 for ERROR. */
  exitCode: ExitCode;
  /** One sentence: for ERROR, why the target could not be judged; for FAIL, what failed; for PASS, what passed. */
  headline: string;
  /** Every cause of the verdict: what failed, then what could not be judged and the run's errors. */
  verdictReasons: string[];
  /** The exit policy (RSF_FAIL_ON; RSF_STRICT=true is strict). */
  failOn: FailOn;
  /** Against RSF_BASELINE, first in every report; absent without a baseline. */
  baseline?: BaselineComparison;
  /** Set in a per-project report. */
  project?: string;
  target: string;
  date: string;
  durationMs: number;
  suiteVersion: string;
  safetyMode: string;
  profile: string;
  seed: string;
  /** failOn is strict: SHOULD warnings fail the run. */
  strict: boolean;
  counts: Record<Level, LevelCounts>;
  /** Sum of the tests' `requests-sent` annotations; null when no test reported one. */
  requestsSent: number | null;
  /** Sum of the tests' `requests-retried` annotations (sent again after a throttled answer); null when none said. */
  requestsRetried: number | null;
  /** Transient gateway errors (502, 503 without Retry-After, 504, 52x) sent again; 0 when none. */
  transientRetried: number;
  /** Answers that refused a request for its size (413, 414, 431), whose samples were not judged; 0 when none. */
  sizeRefused: number;
  /**
   * Valid inputs refused for a reason the spec allows, not judged: how many, by operation number, and the first of
   * up to three operations.
   */
  allowedRefusals?: { count: number; byOperation: Record<string, number>; examples: string[] };
  /** Set when the target slowed the run down: it throttled (429), or a rate limiter refused requests (503). */
  slowedDown?: SlowedDown;
  /** Set when the run paused for an outage and went on (breaker.ts): how often, and when the first began. */
  paused?: { times: number; firstSince: string };
  tests: {
    total: number;
    passed: number;
    failed: number;
    flaky: number;
    /** Skipped by choice (e.g. writes off), not for want of an answer. */
    skipped: number;
    /** Every attempt throttled or a gateway's error, no answer, an answer over the size cap, or a firewall's 403. */
    inconclusive: number;
    /** Never judged: the circuit breaker was open, or the run ended before them. */
    notRun: number;
  };
  /** When and where the target stopped answering (the run's circuit breaker opened); absent when it did not. */
  stoppedAnswering?: string;
  /** Settings, waivers or baseline that could not be used: the exit policy could not be applied. */
  configErrors: string[];
  /** Problems of the run itself: global errors (a failed preflight among them), failed untagged tests. */
  errors: string[];
  /** Tags that look like requirement IDs but are not in the catalogue. */
  unknownTags: string[];
  waivers: WaiverStatus[];
  /** Open waivers are the ones in force (waiving a failure, or stale); expired ones no longer waive. */
  waiverCounts: { open: number; waiving: number; stale: number; expired: number };
}

export interface ConformanceReport {
  format: 'rsf-conformance/1';
  summary: Summary;
  requirements: RequirementRow[];
  /** The suite that ran, as the run started: what a bundle's manifest records (src/report/checkout.ts). */
  checkout?: Checkout;
}

export interface ReportInput {
  catalogue: readonly Requirement[];
  tests: readonly TestRecord[];
  metadata: Record<string, unknown>;
  /** The exit policy; default `must`, or `strict` when `strict` is set. */
  failOn?: FailOn;
  /** The older way to ask for the strict policy. */
  strict?: boolean;
  waivers: readonly Waiver[];
  /** Required by the `regression` policy. */
  baseline?: Baseline;
  /** Problems with the settings, the waivers file or the baseline: the verdict is ERROR, whatever failed. */
  configErrors?: readonly string[];
  /** Errors of the run known before the rules run (global errors, a failed global setup). */
  errors: readonly string[];
  startTime: Date;
  durationMs: number;
  project?: string;
  /** The runner's halvings of the run's pace that no test took (run-state.ts, takeUnclaimedSlowDowns). */
  runnerSlowDowns?: readonly SlowDown[];
  checkout?: Checkout;
}

/** How often the run's pace was halved for the target's sake, for which answers, and how slow it went. */
export interface SlowedDown {
  times: number;
  /** The statuses that slowed it down, in order: 429, 503, or both. */
  statuses: number[];
  /** The slowest pace it came to, in requests a second over all workers. */
  slowestRatePerSecond: number;
}

/** The valid inputs refused for a reason the spec allows, over the tests: how many, and up to three operations'. */
function allowedRefusalsOf(tests: readonly TestRecord[]): { allowedRefusals?: Summary['allowedRefusals'] } {
  const refused = tests.flatMap((t) => (t.allowedRefusals ? [t.allowedRefusals] : []));
  if (refused.length === 0) return {};
  const count = refused.reduce((n, r) => n + r.count, 0);
  // Each property is of one operation, which its example names first ("operation 5: …").
  const operationOf = (example: string) => /^operation (\d+)/.exec(example)?.[1] ?? '?';
  const byOperation: Record<string, number> = {};
  const first = new Map<string, string>();
  for (const { count: n, example } of refused) {
    const operation = operationOf(example);
    byOperation[operation] = (byOperation[operation] ?? 0) + n;
    if (!first.has(operation)) first.set(operation, example);
  }
  return { allowedRefusals: { count, byOperation, examples: [...first.values()].slice(0, 3) } };
}

/** The run's pauses, from the tests that carry them: each outage once, however many tests saw it. */
function pausedOf(pauses: readonly string[]): { paused?: Summary['paused'] } {
  const outages = [...new Set(pauses)].sort();
  const [firstSince] = outages;
  return firstSince === undefined ? {} : { paused: { times: outages.length, firstSince } };
}

function slowedDownOf(slowDowns: readonly SlowDown[]): { slowedDown?: SlowedDown } {
  if (slowDowns.length === 0) return {};
  const statuses = [...new Set(slowDowns.map((s) => s.status))].sort((a, b) => a - b);
  const slowestRatePerSecond = Math.min(...slowDowns.map((s) => s.ratePerSecond));
  return { slowedDown: { times: slowDowns.length, statuses, slowestRatePerSecond } };
}

/** Statuses of a test that ran to a failure (the report, and --last-failed's list, count them alike). */
export const FAILED_RUN: ReadonlySet<TestRunStatus> = new Set(['failed', 'timedOut']);

const checksOf = (t: TestRecord, id: string) => t.checks.filter((c) => c.id === id);

function testRef(t: TestRecord, id: string): TestRef {
  const checks = checksOf(t, id);
  const count = (outcome: CheckOutcome) => checks.filter((c) => c.outcome === outcome).length;
  return {
    title: t.title,
    file: t.file,
    line: t.line,
    project: t.project,
    outcome: t.flaky
      ? 'flaky'
      : t.unjudged
        ? t.unjudged.kind === 'inconclusive'
          ? 'inconclusive'
          : 'not run'
        : t.status,
    checks: { passed: count('passed'), failed: count('failed'), untested: count('untested') },
    durationMs: t.durationMs,
    ...(t.seed !== undefined && { seed: t.seed }),
    ...(t.requestsSent !== undefined && { requestsSent: t.requestsSent }),
    ...(t.retries !== undefined && t.retries > 0 && { retries: t.retries }),
    ...(t.credentials !== undefined && { credentials: t.credentials }),
  };
}

function errorText(t: TestRecord): string {
  return t.errors.join('\n\n') || `test ${t.status === 'timedOut' ? 'timed out' : 'failed'} without an error message`;
}

/** What one test says about one requirement. */
type Signal =
  | { kind: 'fail'; entry: EvidenceEntry }
  | { kind: 'pass' }
  | { kind: 'unjudged'; status: 'inconclusive' | 'not run'; reason: string; entry?: EvidenceEntry }
  | { kind: 'untested'; reason: string }
  | { kind: 'skip'; reason: string }
  | { kind: 'not-reached'; reason: string };

function testWhere(t: TestRecord): Pick<EvidenceEntry, 'test' | 'location' | 'project'> {
  return { test: t.title, location: `${t.file}:${t.line}`, project: t.project };
}

function failSignals(t: TestRecord, id: string): Signal[] {
  const where = testWhere(t);
  const own = checksOf(t, id);
  if (own.some((c) => c.outcome === 'failed')) {
    const attached = t.evidence.filter((e) => e.id === id);
    const testError = FAILED_RUN.has(t.status) ? errorText(t) : undefined;
    const entries: EvidenceEntry[] =
      attached.length > 0
        ? attached.map((e) => ({
            kind: 'check',
            ...where,
            message: e.evidence?.message ?? e.raw ?? '',
            ...(e.evidence && { evidence: e.evidence }),
          }))
        : [{ kind: 'check', ...where, message: testError ?? 'check failed; no evidence was attached' }];
    return entries.map((entry) => ({ kind: 'fail', entry }));
  }
  // A failed test that no MUST check failed (it broke outside any check, or ran out of time) is not judged
  // (collect.ts): it fails none of its requirements.
  return [];
}

function signalsOf(t: TestRecord, req: Requirement): Signal[] {
  const { id } = req;
  // A failed check counts whatever became of the test afterwards (a SHOULD warning before a skip, say).
  const fails = failSignals(t, id);
  if (fails.length > 0) return fails;
  const own = checksOf(t, id);
  const passed = own.some((c) => c.outcome === 'passed');
  // Checks that passed before the test was stopped still count; what it had not judged yet could not be judged.
  if (t.unjudged) {
    if (passed) return [{ kind: 'pass' }];
    const { kind: status, reason, answer } = t.unjudged;
    // A test that broke outside any check shows its whole error, to be reported (collect.ts, crashedUnjudged).
    const entry = answer
      ? unjudgedEntry(t, req, answer)
      : t.status === 'failed'
        ? ({ kind: 'error', ...testWhere(t), message: errorText(t) } as const)
        : undefined;
    return [{ kind: 'unjudged', status, reason, ...(entry && { entry }) }];
  }
  if (t.status === 'skipped') return [{ kind: 'skip', reason: t.skipReason ?? 'skipped' }];
  // A passed check counts even if the test later failed on another requirement.
  if (passed) return [{ kind: 'pass' }];
  // Checks that saw no applicable sample vouch for nothing, even in a passing test.
  const untested = own.filter((c) => c.outcome === 'untested');
  if (untested.length > 0) {
    return untested.map((c) => ({ kind: 'untested', reason: c.reason ?? `"${t.title}" saw no applicable sample` }));
  }
  // A passing test vouches for its tags even when it checks with plain assertions.
  if (t.status === 'passed') return [{ kind: 'pass' }];
  // Failed on another requirement's check, interrupted or never run: nothing was learnt about this one.
  const why =
    t.status === 'not run'
      ? 'did not run'
      : t.status === 'interrupted'
        ? 'was interrupted'
        : 'stopped at an earlier failed check';
  return [{ kind: 'not-reached', reason: `not reached: "${t.title}" ${why}` }];
}

/** The answer that stopped test `t` unjudged, shown as the evidence of a failed check of `req` is. */
function unjudgedEntry(t: TestRecord, req: Requirement, answer: ExchangeRecord): EvidenceEntry {
  const message = t.unjudged?.reason ?? '';
  const { id: requirement, level, section } = req;
  return {
    kind: 'unjudged',
    ...testWhere(t),
    message,
    evidence: {
      requirement,
      level,
      section,
      operation: '',
      title: 'Not judged',
      message,
      schemaErrors: [],
      exchanges: [answer],
    },
  };
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function compareTests(a: TestRef, b: TestRef): number {
  return (
    a.file.localeCompare(b.file) ||
    a.line - b.line ||
    a.title.localeCompare(b.title) ||
    a.project.localeCompare(b.project)
  );
}

function compareEvidence(a: EvidenceEntry, b: EvidenceEntry): number {
  return (
    a.location.localeCompare(b.location) || a.project.localeCompare(b.project) || a.message.localeCompare(b.message)
  );
}

/**
 * The status of a requirement from what its tests said, strongest first: a failure; something not judged (a
 * requirement is not passed while one of its tests could not judge it); a pass; a skip; checks that saw no sample;
 * tests that never reached it; no test at all.
 */
function statusOf(req: Requirement, signals: Signal[]): { status: Status; reason?: string } {
  const reasons = <K extends Signal['kind']>(kind: K) =>
    unique(signals.flatMap((s) => (s.kind === kind ? [(s as Extract<Signal, { reason: string }>).reason] : [])));
  if (signals.some((s) => s.kind === 'fail')) return { status: req.level === 'MUST' ? 'failed' : 'warning' };
  for (const status of ['inconclusive', 'not run'] as const) {
    const stopped = signals.flatMap((s) => (s.kind === 'unjudged' && s.status === status ? [s.reason] : []));
    if (stopped.length > 0) return { status, reason: unique(stopped).join('; ') };
  }
  if (signals.some((s) => s.kind === 'pass')) return { status: 'passed' };
  if (signals.some((s) => s.kind === 'skip')) return { status: 'skipped', reason: reasons('skip').join('; ') };
  if (signals.some((s) => s.kind === 'untested')) return { status: 'untested', reason: reasons('untested').join('; ') };
  if (signals.length > 0) return { status: 'untested', reason: reasons('not-reached').join('; ') };
  if (req.observable === false) {
    return { status: 'not-observable', reason: req.notObservableBecause ?? 'no HTTP exchange can show a violation' };
  }
  return { status: 'untested', reason: `no test carries @${req.id}` };
}

function rowOf(
  req: Requirement,
  tests: readonly TestRecord[],
  waiver: Waiver | undefined,
  today: Date,
): RequirementRow {
  const mine = tests.filter((t) => t.tags.includes(req.id) || t.checks.some((c) => c.id === req.id));
  const signals = mine.flatMap((t) => signalsOf(t, req));
  const fails = signals.flatMap((s) => (s.kind === 'fail' ? [s.entry] : []));
  const { status, reason } = statusOf(req, signals);
  const unjudged = signals.flatMap((s) => (s.kind === 'unjudged' && s.status === status && s.entry ? [s.entry] : []));
  const row: RequirementRow = {
    id: req.id,
    section: req.section,
    level: req.level,
    text: req.text,
    status,
    ...(reason !== undefined && { reason }),
    tests: mine.map((t) => testRef(t, req.id)).sort(compareTests),
    evidence: fails.sort(compareEvidence),
    ...(unjudged.length > 0 && { unjudgedEvidence: unjudged.sort(compareEvidence) }),
  };
  if (waiver && (row.status === 'failed' || row.status === 'warning')) {
    if (isExpired(waiver, today)) {
      row.expiredWaiver = waiver;
      const owner = waiver.owner ? ` (owner ${waiver.owner})` : '';
      row.reason = `waiver expired on ${waiver.expires}${owner}: ${waiver.reason}`;
    } else {
      row.waivedStatus = row.status;
      row.status = 'waived';
      row.reason = waiver.reason;
    }
  }
  return row;
}

function emptyCounts(): LevelCounts {
  const counts = { total: 0 } as LevelCounts;
  for (const status of STATUSES) counts[status] = 0;
  return counts;
}

function text(value: unknown, fallback: string): string {
  return value === undefined || value === null || value === '' ? fallback : String(value);
}

const sum = (values: number[]): number | null => (values.length > 0 ? values.reduce((a, b) => a + b, 0) : null);

export function buildReport(input: ReportInput): ConformanceReport {
  const failOn: FailOn = input.failOn ?? (input.strict ? 'strict' : 'must');
  const waiverOf = new Map(input.waivers.map((w) => [w.id, w]));
  const rows = input.catalogue.map((req) => rowOf(req, input.tests, waiverOf.get(req.id), input.startTime));
  const baseline = input.baseline ? compareWithBaseline(input.baseline, rows) : undefined;
  if (input.baseline) {
    for (const row of rows) {
      const change = changeOf(input.baseline, row.id, row.status);
      const before = input.baseline.requirements.get(row.id)?.status;
      if (change) row.change = change;
      if (before !== undefined) row.baselineStatus = before;
    }
  }

  const counts = Object.fromEntries(LEVELS.map((l) => [l, emptyCounts()])) as Record<Level, LevelCounts>;
  for (const row of rows) {
    counts[row.level][row.status] += 1;
    counts[row.level].total += 1;
  }

  const known = new Set(input.catalogue.map((r) => r.id));
  const unknownTags = unique(
    input.tests
      .flatMap((t) => [...t.tags, ...t.checks.map((c) => c.id)])
      .filter((id) => REQUIREMENT_ID.test(id) && !known.has(id)),
  ).sort();

  const errors = [...input.errors];
  for (const t of input.tests) {
    const tagged = t.tags.some((id) => known.has(id));
    if (FAILED_RUN.has(t.status) && !tagged) {
      errors.push(`${t.title} (${t.file}:${t.line}) failed and carries no requirement tag: ${errorText(t)}`);
    }
  }
  const stopped = input.tests.flatMap((t) => (t.unjudged?.kind === 'not run' ? [t.unjudged.reason] : []));
  const tests = {
    total: input.tests.length,
    passed: input.tests.filter((t) => t.status === 'passed' && !t.flaky).length,
    failed: input.tests.filter((t) => FAILED_RUN.has(t.status) && !t.unjudged).length,
    flaky: input.tests.filter((t) => t.flaky).length,
    skipped: input.tests.filter((t) => t.status === 'skipped' && !t.unjudged).length,
    inconclusive: input.tests.filter((t) => t.unjudged?.kind === 'inconclusive').length,
    notRun: input.tests.filter(
      (t) => t.unjudged?.kind === 'not run' || t.status === 'not run' || t.status === 'interrupted',
    ).length,
  };
  const configErrors = [...(input.configErrors ?? [])];
  const verdict = decideVerdict({
    failOn,
    rows,
    configErrors,
    errors,
    ...(stopped[0] !== undefined && { stoppedAnswering: stopped[0], notRunTests: stopped.length }),
  });
  const waivers = waiverStatuses(input.waivers, rows, input.startTime);
  const m = input.metadata;
  return {
    format: 'rsf-conformance/1',
    summary: {
      title: 'Reseller Storefront API conformance',
      ...verdict,
      failOn,
      ...(baseline && { baseline }),
      ...(input.project !== undefined && { project: input.project }),
      target: text(m.target, 'unknown'),
      date: input.startTime.toISOString(),
      durationMs: Math.round(input.durationMs),
      suiteVersion: text(m.suiteVersion, 'unknown'),
      safetyMode: text(m.safetyMode, 'unknown'),
      profile: text(m.profile, 'none'),
      seed: text(m.seed, 'unknown'),
      strict: failOn === 'strict',
      counts,
      requestsSent: sum(input.tests.flatMap((t) => (t.requestsSent === undefined ? [] : [t.requestsSent]))),
      requestsRetried: sum(input.tests.flatMap((t) => (t.retries === undefined ? [] : [t.retries]))),
      transientRetried: input.tests.reduce((n, t) => n + (t.transientRetried ?? 0), 0),
      sizeRefused: input.tests.reduce((n, t) => n + (t.sizeRefused ?? 0), 0),
      ...allowedRefusalsOf(input.tests),
      ...slowedDownOf([...(input.runnerSlowDowns ?? []), ...input.tests.flatMap((t) => t.slowDowns ?? [])]),
      ...pausedOf(input.tests.flatMap((t) => t.pauses ?? [])),
      tests,
      ...(stopped[0] !== undefined && { stoppedAnswering: stopped[0] }),
      configErrors,
      errors,
      unknownTags,
      waivers,
      waiverCounts: {
        open: waivers.filter((w) => w.state !== 'expired').length,
        waiving: waivers.filter((w) => w.state === 'waiving').length,
        stale: waivers.filter((w) => w.state === 'stale').length,
        expired: waivers.filter((w) => w.state === 'expired').length,
      },
    },
    requirements: rows,
    ...(input.checkout && { checkout: input.checkout }),
  };
}
