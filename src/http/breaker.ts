// The run's circuit breaker (its state: run-state.ts) around the pipeline: no attempt while it is open, and every
// request counted: a usable answer closes the count; none, or throttled ones to the end, add to it.
import type { Deliver, Delivery, Interceptor } from './delivery';
import { redact } from './redact';
import type { Retried } from './retry';
import { isThrottled } from './retry';
import type { BreakerTrip, Unanswered } from './run-state';
import type { NoAnswerKind } from './wire';

/** The breaker's side of the run state. */
export interface Breaker {
  breakerOpen(): BreakerTrip | undefined;
  answered(): void;
  unanswered(sentAt: number, request: string, how?: Unanswered): BreakerTrip | undefined;
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
    const sent = await next(request);
    if (sent.kind === 'answer' && !isThrottled(sent.response)) breaker.answered();
    if (sent.kind !== 'no-answer' || uncounted.includes(sent.failure.kind)) return sent;
    const opened = breaker.unanswered(sent.sentAt, requestLine(request.method, request.url));
    return { ...sent, ...(opened && { trip: opened }) };
  };
}

/** A request whose every attempt was throttled adds to the count, from when its first attempt was sent. */
export function throttledOutCounted(breaker: Breaker, deliver: Deliver<Retried>): Deliver {
  return async (request, maxWaitMs) => {
    const delivery = await deliver(request, maxWaitMs);
    if (delivery.kind !== 'throttled' || !('firstSentAt' in delivery)) return delivery;
    const { firstSentAt, ...throttled } = delivery;
    const trip = breaker.unanswered(firstSentAt, requestLine(request.method, request.url), 'throttled');
    return { ...throttled, ...(trip && { trip }) } satisfies Delivery;
  };
}
