// The exit policy: PASS (0), FAIL (1) or ERROR (2), and why, in one sentence.
//
// Precedence, when causes of both kinds exist:
// 1. A configuration problem (settings, waivers file, baseline) is ERROR whatever failed: the policy that decides
//    what fails could not be applied, so a failure might be waived or known.
// 2. A failure the policy enforces is FAIL: it was judged on an answer of the target, and what else could not be
//    judged does not undo it. The verdict also says what could not be judged.
// 3. Anything not judged is ERROR: the run's circuit breaker opened (the target stopped answering), a MUST
//    requirement (under strict, a SHOULD one too) is inconclusive or not run, or the run had errors (a failed
//    preflight or global setup, a failed test without a requirement tag, a crashed worker).
// Throttling, outages and wrong settings never make a FAIL.
import type { FailOn } from '../config/settings/reporting';
import type { Level } from '../model/catalogue';
import type { Change } from './baseline';

/** What the verdict reads of a requirement's row (model.ts, RequirementRow), which it does not import: no cycle. */
export interface JudgedRow {
  id: string;
  level: Level;
  status: string;
  change?: Change;
  expiredWaiver?: unknown;
  reason?: string;
}

/** PASS: exit code 0; FAIL: the target broke a requirement the policy enforces (1); ERROR: could not judge (2). */
export type Verdict = 'PASS' | 'FAIL' | 'ERROR';
export const EXIT_CODES = { PASS: 0, FAIL: 1, ERROR: 2 } as const satisfies Record<Verdict, number>;
export type ExitCode = (typeof EXIT_CODES)[Verdict];

export interface VerdictInput {
  failOn: FailOn;
  rows: readonly JudgedRow[];
  configErrors: readonly string[];
  errors: readonly string[];
  /** The NOT_RUN reason of the run's breaker, e.g. "the target stopped answering at … (last request: …)". */
  stoppedAnswering?: string;
  /** Tests not run because the breaker was open. */
  notRunTests?: number;
}

export interface VerdictOutcome {
  verdict: Verdict;
  exitCode: ExitCode;
  headline: string;
  verdictReasons: string[];
}

const MAX_SENTENCE_CHARS = 300;
/** IDs named in a sentence before "and N more". */
const MAX_IDS = 5;

const plural = (n: number, word: string, words = `${word}s`) => `${n} ${n === 1 ? word : words}`;

/** The IDs of rows, the first few named. */
export function idList(rows: readonly { id: string }[]): string {
  const shown = rows.slice(0, MAX_IDS).map((r) => r.id);
  return rows.length > MAX_IDS ? `${shown.join(', ')} and ${rows.length - MAX_IDS} more` : shown.join(', ');
}

/**
 * A message as one sentence for the verdict line: its first line, then the lines under it (the problems a
 * configuration error lists, what the preflight sent and got), without stack frames, whitespace collapsed, cut to a
 * bounded length.
 */
export function oneSentence(message: string): string {
  const lines = message
    .replace(/^(\w*Error): /, '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^at .+/.test(l));
  const [first = 'unknown error', ...rest] = lines;
  const details = rest.map((l) => l.replace(/^[-*] /, '').replace(/\.$/, ''));
  const joined = details.length > 0 ? `${first.replace(/[.:]$/, '')}: ${details.join('; ')}` : first;
  const flat = joined.replace(/\s+/g, ' ').replace(/\.$/, '');
  return flat.length > MAX_SENTENCE_CHARS ? `${flat.slice(0, MAX_SENTENCE_CHARS - 1)}…` : flat;
}

/**
 * Whether a PASS's headline says that no MUST requirement failed: every policy's does but RSF_FAIL_ON=regression's,
 * which speaks of regressions (known failures may stand). The HTML banner says so itself when the headline does not.
 */
export function passHeadlineSaysNoMustFailed(failOn: FailOn): boolean {
  return failOn !== 'regression';
}

/**
 * The requirements whose failure fails the run under the policy. Under regression, a MUST failure the baseline did not
 * have, and one whose waiver expired: an end date is a promise that outlasts the baseline.
 */
export function enforcedFailures<R extends JudgedRow>(failOn: FailOn, rows: readonly R[]): R[] {
  return rows.filter((r) => {
    if (r.level === 'MUST' && r.status === 'failed') {
      return failOn !== 'regression' || r.change === 'regressed' || r.change === 'new' || r.expiredWaiver !== undefined;
    }
    return failOn === 'strict' && r.level === 'SHOULD' && r.status === 'warning';
  });
}

/** MUST failures the baseline already had: listed, not enforced, under the regression policy. */
export function knownFailures<R extends JudgedRow>(failOn: FailOn, rows: readonly R[]): R[] {
  if (failOn !== 'regression') return [];
  return rows.filter(
    (r) => r.level === 'MUST' && r.status === 'failed' && r.change === 'still failing' && !r.expiredWaiver,
  );
}

function failureReasons(failOn: FailOn, failures: JudgedRow[]): string[] {
  const must = failures.filter((r) => r.level === 'MUST');
  const should = failures.filter((r) => r.level === 'SHOULD');
  const reasons: string[] = [];
  if (failOn === 'regression') {
    const regressed = must.filter((r) => !r.expiredWaiver);
    const expired = must.filter((r) => r.expiredWaiver);
    if (regressed.length > 0) {
      reasons.push(`${plural(regressed.length, 'MUST regression')} against the baseline: ${idList(regressed)}`);
    }
    if (expired.length > 0)
      reasons.push(`${plural(expired.length, 'MUST failure')} whose waiver expired: ${idList(expired)}`);
  } else if (must.length > 0) {
    reasons.push(`${plural(must.length, 'MUST requirement')} failed`);
  }
  if (should.length > 0) reasons.push(`${plural(should.length, 'SHOULD warning')} (strict mode)`);
  return reasons;
}

/** What could not be judged, most telling first: the breaker, the run's errors, unjudged requirements. */
function unjudgedReasons(input: VerdictInput): string[] {
  const reasons: string[] = [];
  if (input.stoppedAnswering !== undefined) {
    reasons.push(`${oneSentence(input.stoppedAnswering)}; ${plural(input.notRunTests ?? 0, 'test')} not run`);
  }
  if (input.errors.length > 0) {
    const more = input.errors.length > 1 ? ` (and ${plural(input.errors.length - 1, 'more error')})` : '';
    reasons.push(`${oneSentence(input.errors[0] ?? '')}${more}`);
  }
  const levels = input.failOn === 'strict' ? ['MUST', 'SHOULD'] : ['MUST'];
  const unjudged = (status: string) => input.rows.filter((r) => r.status === status && levels.includes(r.level));
  const inconclusive = unjudged('inconclusive');
  if (inconclusive.length > 0) {
    const why = inconclusive[0]?.reason ? `: ${oneSentence(inconclusive[0].reason)}` : '';
    const what = plural(inconclusive.length, `${levels.join(' or ')} requirement`);
    reasons.push(`${what} inconclusive (${idList(inconclusive)})${why}`);
  }
  // With the breaker open, its sentence already says why these were not run.
  const notRun = unjudged('not run');
  if (notRun.length > 0 && input.stoppedAnswering === undefined) {
    reasons.push(`${plural(notRun.length, `${levels.join(' or ')} requirement`)} not run (${idList(notRun)})`);
  }
  return reasons;
}

export function decideVerdict(input: VerdictInput): VerdictOutcome {
  const failures = enforcedFailures(input.failOn, input.rows);
  const failed = failureReasons(input.failOn, failures);
  const unjudged = unjudgedReasons(input);
  const outcome = (verdict: Verdict, headline: string, verdictReasons: string[]): VerdictOutcome => ({
    verdict,
    exitCode: EXIT_CODES[verdict],
    headline,
    verdictReasons,
  });
  if (input.configErrors.length > 0) {
    const more = input.configErrors.length > 1 ? ` (and ${plural(input.configErrors.length - 1, 'more problem')})` : '';
    const headline = `the configuration is invalid: ${oneSentence(input.configErrors[0] ?? '')}${more}`;
    return outcome('ERROR', headline, [headline, ...failed, ...unjudged]);
  }
  if (failed.length > 0) {
    const notJudged = unjudged.length > 0 ? `; could not judge: ${unjudged[0]}` : '';
    return outcome('FAIL', `${failed.join('; ')}${notJudged}`, [...failed, ...unjudged]);
  }
  if (unjudged.length > 0) return outcome('ERROR', unjudged[0] ?? '', unjudged);
  const known = knownFailures(input.failOn, input.rows);
  const knownList = known.length > 0 ? ` (${plural(known.length, 'known failure')}: ${idList(known)})` : '';
  const headline = !passHeadlineSaysNoMustFailed(input.failOn)
    ? `no MUST requirement regressed against the baseline${knownList}`
    : input.failOn === 'strict'
      ? 'no MUST requirement failed and no SHOULD requirement warned'
      : 'no MUST requirement failed';
  return outcome('PASS', headline, []);
}
