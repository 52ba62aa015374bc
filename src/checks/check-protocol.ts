// How a test tells the conformance reporter what it checked. Both sides import this module only.
import type { ExchangeRecord } from '../http/presentation';
import type { SlowDown } from '../http/slow-downs';
import { plural } from '../model/text';

// Exchange records are made where exchanges are shown (src/http/presentation.ts); evidence carries them.
export type { AttemptRecord, ExchangeRecord } from '../http/presentation';

/** Annotation type of one requirement check; description is `<ID> <outcome>`, e.g. `OP4-UTILITY-MAX failed`. */
export const CHECK_ANNOTATION = 'conformance-check';
/** Annotation type carrying the fast-check seed of a property test (description: `seed=<n> path=<p>` or `seed=<n>`). */
export const SEED_ANNOTATION = 'fast-check-seed';
/** Annotation type carrying how many requests a test sent (description: a number). */
export const REQUESTS_ANNOTATION = 'requests-sent';
/** Attachment name prefix of a failed check's evidence (JSON of Evidence); the full name is `evidence <ID>`. */
export const EVIDENCE_ATTACHMENT_PREFIX = 'evidence ';
/**
 * Attachment name of the answer that stopped a test unjudged, when an answer did (a firewall's or gateway's page, a
 * proxy's 407, a redirect to a sign-in page, a refusal before the data, a body over the cap): JSON of its
 * ExchangeRecord, for the report to show.
 */
export const UNJUDGED_ANSWER_ATTACHMENT = 'unjudged answer';
/**
 * Annotation types of a test that ended without a judgement, through no fault of the target's conformance; the
 * description is one sentence saying why. The test itself is skipped (so Playwright keeps its worker), and the
 * requirements it had not judged yet become `inconclusive` (every attempt throttled or a gateway's error, no answer,
 * an answer over the size cap, or a firewall's page) or `not run` (the run's circuit breaker was open: the target had
 * stopped answering).
 */
export const INCONCLUSIVE_ANNOTATION = 'conformance-inconclusive';
export const NOT_RUN_ANNOTATION = 'conformance-not-run';
/**
 * Annotation type of a test cut short as the run was interrupted (Ctrl-C, or a signal): skipped, and reported as
 * `interrupted`, as Playwright reports a test it interrupted itself. The description says which request.
 */
export const INTERRUPTED_ANNOTATION = 'conformance-interrupted';
/**
 * Annotation type carrying the longest chain of a test's requests that waited for each other (a request's depth is one
 * more than the deepest request that had completed when it started): the test's critical path, in round trips.
 */
export const REQUEST_CHAIN_ANNOTATION = 'requests-chain';
/** Annotation type naming the credential variant a test sends (the HTML report's matrix has a column each). */
export const CREDENTIALS_ANNOTATION = 'credentials';
/** Annotation type carrying how many requests of a test were retried after a 429 or 503 (description: a number). */
export const RETRIES_ANNOTATION = 'requests-retried';
/** Annotation type carrying how many transient gateway errors (retry.ts, isGatewayError) a test's requests retried. */
export const TRANSIENT_ANNOTATION = 'transient-answers-retried';
/**
 * Annotation type carrying how many answers a test got that refused a request for its size (413, 414, 431): limits §8
 * leaves open, whose samples are not judged, and which the reports count so that the user knows they were not.
 */
export const SIZE_REFUSED_ANNOTATION = 'refused-for-size';
/**
 * Refused for its size: 413 (content), 414 (URI) or 431 (header fields), RFC 9110 §15.5.14, §15.5.15 and RFC 6585 §5.
 * §8 leaves payload size limits to the implementation, and the valid-input probes send text of up to 300 characters
 * in bodies and paths: a server, or the web server in front of it (nginx's 8 KB request line, IIS's 4 KB URL), may
 * refuse such a request, in whatever body its own.
 */
export const SIZE_REFUSALS: ReadonlySet<number> = new Set([413, 414, 431]);
/**
 * Annotation type of a property's valid inputs that the target refused for a reason the spec allows (§4.5's "could
 * not be updated", say): "count<TAB>the first of them", so that the reports show them, judged or not (indep106: a
 * 32-bit amount refused at 2^32 left no trace).
 */
export const ALLOWED_REFUSALS_ANNOTATION = 'valid-input-refused';
/**
 * Annotation type of one halving of the run's pace (slow-downs.ts), e.g. `HTTP 429: 5.2 requests a second over the
 * run`, heard by the test's worker since its last test, or by the runner and handed on (RunState.handOverSlowDown):
 * the reports say how often the target slowed the run down, and how far.
 */
export const SLOWED_DOWN_ANNOTATION = 'run-slowed-down';
/**
 * Annotation type of one pause of the circuit breaker that ended with the target serving again (breaker.ts), heard
 * by the test's worker since its last test: when the requests without an answer began (ISO time). The reports count
 * them, so that a run that rode out an outage says so.
 */
export const PAUSED_ANNOTATION = 'run-paused';

/** A slow-down as its annotation's description. */
export function slowDownDescription({ status, ratePerSecond }: SlowDown): string {
  return `HTTP ${status}: ${plural(ratePerSecond, 'request')} a second over the run`;
}

/** The slow-down an annotation's description says; undefined for text not written by slowDownDescription. */
export function slowDownOf(description: string): SlowDown | undefined {
  const match = /^HTTP (\d{3}): (\d+(?:\.\d+)?) requests? a second/.exec(description);
  return match ? { status: Number(match[1]), ratePerSecond: Number(match[2]) } : undefined;
}

/**
 * passed / failed, or untested: the check ran but saw no applicable sample (e.g. no product carried the logged-in
 * stock fields), so it vouches for nothing. An untested check carries its reason.
 */
export type CheckOutcome = 'passed' | 'failed' | 'untested';

/** What a failed check attaches. Every string in it is already redacted. */
export interface Evidence {
  requirement: string;
  level: string;
  section: string;
  operation: string;
  /** Short, e.g. "Response does not match the schema". */
  title?: string;
  message: string;
  schemaErrors: string[];
  /** Names the settings that may be to blame instead of the target, with their values (secrets named only). */
  hint?: string;
  exchanges: ExchangeRecord[];
  seed?: string;
  replay?: string;
}

/**
 * Description: `<ID> <outcome>`, then the reason of an untested check,
 * e.g. `OP8-STOCK-BOUNDS untested no product …`.
 */
export function checkAnnotation(
  id: string,
  outcome: CheckOutcome,
  reason?: string,
): { type: string; description: string } {
  return { type: CHECK_ANNOTATION, description: reason ? `${id} ${outcome} ${reason}` : `${id} ${outcome}` };
}

export interface ParsedCheck {
  id: string;
  outcome: CheckOutcome;
  reason?: string;
}

export function parseCheckAnnotation(a: { type: string; description?: string }): ParsedCheck | undefined {
  if (a.type !== CHECK_ANNOTATION || !a.description) return undefined;
  const [id, outcome, ...rest] = a.description.split(' ');
  if (!id || (outcome !== 'passed' && outcome !== 'failed' && outcome !== 'untested')) return undefined;
  return rest.length > 0 ? { id, outcome, reason: rest.join(' ') } : { id, outcome };
}

/** Only MUST failures fail a test; SHOULD and INFO are reported as warnings. */
export function failsTheTest(level: string): boolean {
  return level === 'MUST';
}
