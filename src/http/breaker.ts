// The run's circuit breaker (its state: run-state.ts) around the pipeline: no attempt while it is open, and every
// request counted: a usable answer closes the count; none, or throttled ones to the end, add to it.
import type { Deliver, Delivery, Interceptor } from './delivery';
import { unusableDetail } from './presentation';
import { redact } from './redact';
import { type Retried, isUsableAnswer } from './retry';
import type { BreakerTrip, Unanswered } from './run-state';
import { NoAnswer, type NoAnswerKind } from './no-answer';

/** The breaker's side of the run state. */
export interface Breaker {
  breakerOpen(): BreakerTrip | undefined;
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

/**
 * Each attempt: not sent while the breaker is open; an unthrottled answer closes the count, none adds to it, except
 * the kinds in `uncounted` (the runner's burst: a server or proxy may refuse or reset a burst it would serve one by
 * one, and the tests then send those requests again, counted).
 */
export function gatedByBreaker(breaker: Breaker, uncounted: readonly NoAnswerKind[] = []): Interceptor {
  return (next) => async (request) => {
    const trip = breaker.breakerOpen();
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
