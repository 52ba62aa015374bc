// The run's circuit breaker (its state: run-state.ts) around the pipeline: no attempt while it is open, and every
// request counted: a usable answer closes the count; none, or throttled ones to the end, add to it.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Deliver, Delivery, Interceptor, Send } from './delivery';
import type { OutgoingRequest } from './exchange';
import { unusableDetail } from './presentation';
import { redact } from './redact';
import { type Retried, isUsableAnswer } from './retry';
import { BREAKER_THRESHOLD, type BreakerTrip, RESUME_PAUSE_MS, type Unanswered } from './run-state';
import { NoAnswer, type NoAnswerKind } from './no-answer';

/** The breaker's side of the run state. */
export interface Breaker {
  breakerOpen(): BreakerTrip | undefined;
  /** True for one process: it asks for the price list after the breaker's pause. */
  claimResumption(trip: BreakerTrip): boolean;
  /** The price list answered after the pause: the breaker closes. */
  resumed(trip: BreakerTrip): void;
  /** It did not: the breaker stays open for good, saying what the price list got. */
  stayOpen(trip: BreakerTrip, askedAgain: string): void;
  /** Why `operation` is no longer sent (its last requests got no answer), or undefined. */
  operationStopped(operation: string): string | undefined;
  answered(operation?: string): void;
  unanswered(
    sentAt: number,
    request: string,
    how?: Unanswered,
    operation?: string,
    detail?: string,
  ): BreakerTrip | undefined;
}

/** "GET /v1/item/1001": how the breaker names a request; no query, secrets redacted. */
export function requestLine(method: string, url: string): string {
  return redact(`${method} ${new URL(url).pathname}`);
}

/** How a breaker's pause ends: the request that asks whether the target answers again, and who hears it did. */
export interface AskingAgain {
  /** GET /v1/prices, with the token: the preflight's first request. */
  probe: OutgoingRequest;
  notify?: (line: string) => void;
  /** The pause of `trip` ended with the target serving again. */
  onResumed?: (trip: BreakerTrip) => void;
}

/** How often a request waiting out the breaker's pause looks whether it ended. */
const PAUSE_POLL_MS = 100;
/** How long after the pause a waiting request lets another process's price list come, at most (120 s a request). */
const ASKED_AGAIN_WITHIN_MS = 125_000;

/**
 * While the breaker is half open: waits out its pause; then one process (the first to claim it) asks for the price
 * list, whose usable answer closes the breaker, and anything else keeps it open for good. The trip that stands
 * once that is known, or undefined when the breaker closed. Without `resume` (the runner's sending ahead, which the
 * tests send again), a pause is no reason to wait: the request is not sent.
 */
async function afterPause(
  breaker: Breaker,
  trip: BreakerTrip,
  send: Send,
  resume: AskingAgain | undefined,
): Promise<BreakerTrip | undefined> {
  let current: BreakerTrip | undefined = trip;
  while (current?.resumeAt !== undefined) {
    const { resumeAt } = current;
    if (!resume || Date.now() > resumeAt + ASKED_AGAIN_WITHIN_MS) return current;
    if (Date.now() >= resumeAt && breaker.claimResumption(current)) {
      const answer = await send(resume.probe);
      if (answer.kind === 'answer' && isUsableAnswer(answer.response)) {
        breaker.resumed(current);
        resume.notify?.(resumedLine(current, answer.response.status));
        resume.onResumed?.(current);
      } else breaker.stayOpen(current, askedAgainDetail(answer));
    } else await sleep(Math.max(1, Math.min(PAUSE_POLL_MS, resumeAt - Date.now())));
    current = breaker.breakerOpen();
  }
  return current;
}

/** What the price list asked again got, when it was no usable answer. */
function askedAgainDetail(answer: Awaited<ReturnType<Send>>): string {
  // One request after seconds of silence: no rate limiter refuses that (indep99's maintenance window, 503 and a page).
  if (answer.kind === 'answer' && answer.response.status === 503)
    return 'HTTP 503, alone after the pause, so no rate limiter: the target is unavailable (maintenance, a deploy)';
  if (answer.kind === 'answer') return unusableDetail(answer.response.status);
  return answer.kind === 'no-answer' ? answer.failure.message : 'not sent';
}

/** What the console says when the run goes on after a pause. */
function resumedLine(trip: BreakerTrip, status: number): string {
  const why = trip.lastProblem === undefined ? '' : `: ${trip.lastProblem}`;
  return redact(
    `The target gave no usable answer to ${BREAKER_THRESHOLD} requests in a row from ${trip.since} on (last ` +
      `request: ${trip.lastRequest}${why}): the run paused ${RESUME_PAUSE_MS / 1000} s, asked for the price list ` +
      `again, got HTTP ${status}, and goes on. The requests that got no answer are not judged.`,
  );
}

/**
 * Each attempt: not sent while the breaker is open, and held while it is half open (afterPause, with `resume`); an
 * unthrottled answer closes the count, none adds to it, except the kinds in `uncounted` (the runner's burst: a server
 * or proxy may refuse or reset a burst it would serve one by one, and the tests then send those requests again,
 * counted).
 */
export function gatedByBreaker(
  breaker: Breaker,
  uncounted: readonly NoAnswerKind[] = [],
  resume?: AskingAgain,
): Interceptor {
  return (next) => async (request) => {
    const open = breaker.breakerOpen();
    const trip = open && (await afterPause(breaker, open, next, resume));
    if (trip) return { kind: 'not-sent', trip };
    const { operation } = request;
    // One operation that never answers in time stops alone: its requests are not sent, the rest of the run goes on.
    const stopped = operation === undefined ? undefined : breaker.operationStopped(operation);
    if (stopped)
      return { kind: 'no-answer', failure: new NoAnswer('operation-stopped', stopped, 0), sentAt: Date.now() };
    const sent = await next(request);
    // A gateway's error is no usable answer: the request counts once its retries end (unusableCounted).
    if (sent.kind === 'answer' && isUsableAnswer(sent.response)) breaker.answered(operation);
    // A request cut short by Ctrl-C says nothing of the target.
    if (sent.kind !== 'no-answer' || sent.failure.kind === 'interrupted' || uncounted.includes(sent.failure.kind))
      return sent;
    const line = requestLine(request.method, request.url);
    const opened = breaker.unanswered(sent.sentAt, line, 'no-answer', operation, sent.failure.message);
    return { ...sent, ...(opened && { trip: opened }) };
  };
}

/**
 * A request whose every attempt was throttled, or a gateway's error, adds to the count, from when its first attempt
 * was sent: a target in maintenance stops the run as one that does not answer does, and one operation whose upstream
 * is down stops alone.
 */
export function unusableCounted(breaker: Breaker, deliver: Deliver<Retried>): Deliver {
  return async (request, maxWaitMs) => {
    const delivery = await deliver(request, maxWaitMs);
    if (!('firstSentAt' in delivery)) return delivery;
    const { firstSentAt, ...unusable } = delivery;
    const line = requestLine(request.method, request.url);
    const trip =
      unusable.kind === 'throttled'
        ? breaker.unanswered(firstSentAt, line, 'throttled', request.operation)
        : breaker.unanswered(
            firstSentAt,
            line,
            'no-answer',
            request.operation,
            unusableDetail(unusable.response.status),
          );
    return { ...unusable, ...(trip && { trip }) } satisfies Delivery;
  };
}
