// Throttled requests (429, or 503 with Retry-After) are sent again, after the wait the target asked for.
import { headerValue, type ThrottledAttempt, type WireResponse } from './exchange';
import type { Deliver, Delivery, Send } from './delivery';

/** The first wait of a back-off without Retry-After; it doubles with each attempt (full jitter below it). */
const BACKOFF_BASE_MS = 500;
/** A wait after Retry-After gets up to this share more, so that workers throttled together do not return together. */
const RETRY_AFTER_SPREAD = 0.2;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A 429, or a 503 with Retry-After: the target asks us to come back later. */
export function isThrottled(response: WireResponse): boolean {
  return response.status === 429 || (response.status === 503 && headerValue(response, 'retry-after') !== undefined);
}

/** Retry-After in milliseconds: delta-seconds or an HTTP-date (RFC 9110 §10.2.3); undefined when absent or invalid. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The wait before retry number `retry` (0 for the first): Retry-After up to `maxWaitMs`, spread a little; without it,
 * exponential back-off with full jitter.
 */
export function retryWaitMs(
  retryAfter: string | undefined,
  retry: number,
  maxWaitMs: number,
  random = Math.random,
): number {
  const asked = retryAfterMs(retryAfter);
  if (asked !== undefined) return Math.min(maxWaitMs, asked * (1 + RETRY_AFTER_SPREAD * random()));
  return Math.floor(random() * Math.min(maxWaitMs, BACKOFF_BASE_MS * 2 ** retry));
}

export interface RetryOptions {
  /** RSF_MAX_RETRIES. */
  maxRetries: number;
  /** RSF_RETRY_MAX_WAIT_MS: the longest wait before one retry. */
  retryMaxWaitMs: number;
}

/** A delivery whose every attempt was throttled also says when the first was sent: the breaker counts from there. */
export type Retried = Delivery | (Extract<Delivery, { kind: 'throttled' }> & { firstSentAt: number });

/**
 * Sends a request with `send`, again after each throttled answer (up to maxRetries, waiting no more than `maxWaitMs`
 * in all). An attempt not sent, or not answered, ends it.
 */
export function retrying(options: RetryOptions, send: Send): Deliver<Retried> {
  const maxRetries = Math.floor(options.maxRetries);
  return async (request, maxWaitMs = Number.POSITIVE_INFINITY) => {
    const attempts: ThrottledAttempt[] = [];
    let waited = 0;
    let firstSentAt: number | undefined;
    for (let retry = 0; ; retry++) {
      const sent = await send(request);
      if (sent.kind === 'not-sent') return { kind: 'not-sent', trip: sent.trip, attempts };
      if (sent.kind === 'no-answer')
        return { kind: 'no-answer', failure: sent.failure, attempts, ...(sent.trip && { trip: sent.trip }) };
      firstSentAt ??= sent.sentAt;
      const { response } = sent;
      if (!isThrottled(response)) return { kind: 'answer', response, attempts };
      if (retry >= maxRetries) return { kind: 'throttled', response, attempts, gaveUp: 'retries', firstSentAt };
      const retryAfter = headerValue(response, 'retry-after');
      const wait = retryWaitMs(retryAfter, retry, options.retryMaxWaitMs);
      if (waited + wait > maxWaitMs) return { kind: 'throttled', response, attempts, gaveUp: 'time', firstSentAt };
      attempts.push({
        status: response.status,
        ...(retryAfter !== undefined && { retryAfter }),
        waitedMs: Math.round(wait),
      });
      waited += wait;
      await sleep(wait);
    }
  };
}
