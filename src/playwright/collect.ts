// Turns Playwright's TestCase objects into plain TestRecords. Only the test, its last result, its annotations
// and attachments are read, never state of the run itself, so the same code works after `playwright merge-reports`.
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { TestCase, TestResult } from '@playwright/test/reporter';
import {
  CREDENTIALS_ANNOTATION,
  EVIDENCE_ATTACHMENT_PREFIX,
  INCONCLUSIVE_ANNOTATION,
  INTERRUPTED_ANNOTATION,
  NOT_RUN_ANNOTATION,
  REQUESTS_ANNOTATION,
  RETRIES_ANNOTATION,
  SIZE_REFUSED_ANNOTATION,
  ALLOWED_REFUSALS_ANNOTATION,
  TRANSIENT_ANNOTATION,
  SLOWED_DOWN_ANNOTATION,
  PAUSED_ANNOTATION,
  UNJUDGED_ANSWER_ATTACHMENT,
  slowDownOf,
  SEED_ANNOTATION,
  failsTheTest,
  parseCheckAnnotation,
} from '../checks/check-protocol';
import type { Evidence, ExchangeRecord } from '../checks/check-protocol';
import { requirements } from '../model/catalogue';
import { stripAnsi } from '../model/text';
import type { TestRecord, TestRunStatus, Unjudged } from '../report/model';
import { failedRequirements } from './kept-worker';

/** Locations in reports are relative to the repository root, whatever the cwd or the config's rootDir. */
export const REPO_ROOT = resolve(__dirname, '../..');

export function repoPath(file: string): string {
  return relative(REPO_ROOT, file).split('\\').join('/');
}

function attachmentText(a: TestResult['attachments'][number]): string {
  if (a.body) return a.body.toString('utf8');
  if (a.path) {
    try {
      return readFileSync(a.path, 'utf8');
    } catch (e) {
      return `(attachment ${a.path} could not be read: ${(e as Error).message})`;
    }
  }
  return '';
}

/** The answer that stopped the test unjudged, if one did and its attachment reads. */
function unjudgedAnswerOf(result: TestResult | undefined): ExchangeRecord | undefined {
  const attached = result?.attachments.find((a) => a.name === UNJUDGED_ANSWER_ATTACHMENT);
  if (!attached) return undefined;
  try {
    return JSON.parse(attachmentText(attached)) as ExchangeRecord;
  } catch {
    return undefined;
  }
}

function evidenceOf(result: TestResult): TestRecord['evidence'] {
  return result.attachments
    .filter((a) => a.name.startsWith(EVIDENCE_ATTACHMENT_PREFIX))
    .map((a) => {
      const id = a.name.slice(EVIDENCE_ATTACHMENT_PREFIX.length).trim();
      const raw = attachmentText(a);
      try {
        return { id, evidence: JSON.parse(raw) as Evidence };
      } catch {
        return { id, raw };
      }
    });
}

/** What the settings can do about a test that ran out of time. */
export const TIMED_OUT_HINT =
  'the spec shows no time-outs (§8), so a slow or throttled target is not failed for one; give the tests more time ' +
  '(--timeout=<ms>), or shorten the waits (RSF_RETRY_MAX_WAIT_MS, RSF_REQUEST_TIMEOUT_MS, RSF_MAX_REQUESTS_PER_SECOND)';

/**
 * A test that ran out of its time-out before any of its checks failed was not judged: its waits (the target's
 * answers, Retry-After, the rate cap) are what took the time, never a requirement.
 */
export function timedOutUnjudged(result: Pick<TestResult, 'status' | 'annotations' | 'errors'>): Unjudged | undefined {
  if (result.status !== 'timedOut' || failedByRequirement(result)) return undefined;
  const error = firstErrorLine(result).replace(/\.$/, '') || 'the test timed out';
  return { kind: 'inconclusive', reason: `${error}: ${TIMED_OUT_HINT}` };
}

/**
 * A test that failed with no MUST check failing it (only a MUST check's failure fails a test) broke in the suite or
 * in Playwright: an error outside any check, a fixture's, a test no longer in its file. That judges none of its
 * requirements: not judged, and the run is ERROR, not FAIL, with the error to report.
 */
export function crashedUnjudged(result: Pick<TestResult, 'status' | 'annotations' | 'errors'>): Unjudged | undefined {
  if (result.status !== 'failed' || failedByRequirement(result)) return undefined;
  const error = firstErrorLine(result) || 'an unknown error';
  return { kind: 'inconclusive', reason: `the test broke outside any check (${error}): ${CRASHED_HINT}` };
}

/** What a crash asks of the user: it is the suite's (or Playwright's) defect, not the target's. */
export const CRASHED_HINT =
  "that is the suite's failure or Playwright's, not the target's: report it with this run's reports/ folder";

/** The first line of the test's first error, trimmed; '' without one. */
function firstErrorLine(result: Pick<TestResult, 'errors'>): string {
  return (
    stripAnsi(result.errors[0]?.message ?? '')
      .split('\n')[0]
      ?.trim() ?? ''
  );
}

/** Whether a MUST check failed the test (a SHOULD or INFO check that failed only warned). */
function failedByRequirement(result: Pick<TestResult, 'annotations'>): boolean {
  return failedRequirements(result).some((id) => failsTheTest(requirements().find((r) => r.id === id)?.level ?? ''));
}

/** A skipped test that could not be judged; a test that ended otherwise was judged, whatever its annotations say. */
function unjudgedOf(status: TestRunStatus, of: (type: string) => string[]): Unjudged | undefined {
  if (status !== 'skipped') return undefined;
  const notRun = of(NOT_RUN_ANNOTATION).at(-1);
  if (notRun !== undefined) return { kind: 'not run', reason: notRun || 'the target had stopped answering' };
  const inconclusive = of(INCONCLUSIVE_ANNOTATION).at(-1);
  if (inconclusive !== undefined) return { kind: 'inconclusive', reason: inconclusive || 'no answer could be judged' };
  return undefined;
}

const total = (values: string[]): number | undefined => {
  const numbers = values.map(Number).filter(Number.isFinite);
  return numbers.length > 0 ? numbers.reduce((a, b) => a + b, 0) : undefined;
};

function projectName(test: TestCase): string {
  return test.parent.project()?.name ?? '';
}

/**
 * What Playwright's last attempt of a test said, or `not run`; `interrupted` too for a test that its worker cut short
 * as the run was interrupted (stopAsInterrupted), which Playwright reports as skipped.
 */
export function runStatusOf(result: Pick<TestResult, 'status' | 'annotations'> | undefined): TestRunStatus {
  if (result?.annotations.some((a) => a.type === INTERRUPTED_ANNOTATION)) return 'interrupted';
  return result?.status ?? 'not run';
}

export function testRecordOf(test: TestCase): TestRecord {
  const result = test.results.at(-1);
  const annotations = result?.annotations ?? test.annotations;
  const of = (type: string) => annotations.filter((a) => a.type === type).map((a) => a.description ?? '');
  const seeds = of(SEED_ANNOTATION);
  const requests = total(of(REQUESTS_ANNOTATION));
  const retries = total(of(RETRIES_ANNOTATION));
  const transient = total(of(TRANSIENT_ANNOTATION));
  const sizeRefused = total(of(SIZE_REFUSED_ANNOTATION));
  const allowedRefusals = of(ALLOWED_REFUSALS_ANNOTATION).map((d) => d.split('\t'));
  const slowDowns = of(SLOWED_DOWN_ANNOTATION).flatMap((d) => slowDownOf(d) ?? []);
  const pauses = of(PAUSED_ANNOTATION).filter(Boolean);
  const status = runStatusOf(result);
  const stopped = unjudgedOf(status, of) ?? (result && (timedOutUnjudged(result) ?? crashedUnjudged(result)));
  const answer = stopped && unjudgedAnswerOf(result);
  const unjudged = stopped && { ...stopped, ...(answer && { answer }) };
  const skipReasons = [...of('skip'), ...of('fixme')].filter(Boolean);
  const credentials = of(CREDENTIALS_ANNOTATION).at(0);
  return {
    // titlePath is ['', project, file, ...describes, title].
    title: test.titlePath().slice(3).join(' › '),
    file: repoPath(test.location.file),
    line: test.location.line,
    project: projectName(test),
    tags: test.tags.map((t) => t.replace(/^@/, '')),
    status,
    flaky: test.outcome() === 'flaky',
    durationMs: result?.duration ?? 0,
    checks: annotations.flatMap((a) => parseCheckAnnotation(a) ?? []),
    evidence: result ? evidenceOf(result) : [],
    ...(skipReasons.length > 0 && { skipReason: skipReasons.join('; ') }),
    ...(unjudged && { unjudged }),
    errors: (result?.errors ?? []).map((e) => stripAnsi(e.message ?? e.value ?? 'unknown error')),
    ...(seeds.length > 0 && { seed: seeds.join('; ') }),
    ...(requests !== undefined && { requestsSent: requests }),
    ...(retries !== undefined && { retries }),
    ...(transient !== undefined && { transientRetried: transient }),
    ...(sizeRefused !== undefined && { sizeRefused }),
    ...(allowedRefusals.length > 0 && {
      allowedRefusals: {
        count: total(allowedRefusals.map(([count]) => count ?? '')) ?? 0,
        example: allowedRefusals[0]?.slice(1).join('\t') ?? '',
      },
    }),
    ...(slowDowns.length > 0 && { slowDowns }),
    ...(pauses.length > 0 && { pauses }),
    ...(credentials && { credentials }),
  };
}
