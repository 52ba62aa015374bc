// Throttled requests (429, or 503 with Retry-After) are sent again, after the wait the target asked for; gateway
// blips (502, 503 without Retry-After, 504, Cloudflare's 52x: passing trouble) are sent again where that is safe. A
// gateway's error that lasts (a maintenance page, an upstream that is down) is not the API's answer: it is not judged.
import { headerValue, type ThrottledAttempt, type WireResponse } from './exchange';
import type { Deliver, Delivery, Send } from './delivery';
import { SAME_ANSWER_WHEN_RESENT } from './wire';

/** The first wait of a back-off without Retry-After; it doubles with each attempt (full jitter below it). */
const BACKOFF_BASE_MS = 500;
/** A wait after Retry-After gets up to this share more, so that workers throttled together do not return together. */
const RETRY_AFTER_SPREAD = 0.2;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A 429, or a 503 with Retry-After: the target asks us to come back later. */
export function isThrottled(response: WireResponse): boolean {
  return response.status === 429 || (response.status === 503 && headerValue(response, 'retry-after') !== undefined);
}

/**
 * A gateway's errors besides 503: 502 and 504 (RFC 9110 §15.6.3, §15.6.5), and the 520 to 527 and 530 that Cloudflare,
 * in front of a great many servers, answers when the server behind it is down, unreachable, slow or answers nothing
 * usable (a 521 "Web server is down" to every request of a target that died behind it).
 */
export const GATEWAY_STATUSES: ReadonlySet<number> = new Set([502, 504, 520, 521, 522, 523, 524, 525, 526, 527, 530]);

/**
 * Answers that say the request was not processed, so that any method may be sent again: 503 without Retry-After (RFC
 * 9110 §15.6.4), and 408, the server having given up waiting for the request (§15.5.9), as a load balancer answers a
 * request that reached it as it closed an idle connection; and Cloudflare's errors of an origin it never sent the
 * request to: 521 (connection refused), 522 (connection timed out), 523 (unreachable), 525 (TLS handshake failed),
 * 526 (invalid certificate), 530 (its DNS). Not 520 or 524, which an origin that got the request answered, or did not.
 */
const NOT_PROCESSED: ReadonlySet<number> = new Set([408, 503, 521, 522, 523, 525, 526, 530]);

/**
 * A gateway's error (GATEWAY_STATUSES), 503 without Retry-After, or 408: what a gateway or an unavailable server
 * answers in place of the API (RFC 9110 §15.5.9, §15.6.3 to §15.6.5). The spec documents none of them for any
 * operation.
 */
export function isGatewayError(response: WireResponse): boolean {
  if (response.status === 503) return headerValue(response, 'retry-after') === undefined;
  return response.status === 408 || GATEWAY_STATUSES.has(response.status);
}

/** Neither throttled nor a gateway's error: the API's own answer, to judge (and to close the breaker's count). */
export function isUsableAnswer(response: WireResponse): boolean {
  return !isThrottled(response) && !isGatewayError(response);
}

/**
 * A gateway blip worth sending again: a 503 without Retry-After, a 408 or Cloudflare's errors of an origin it never
 * reached for any method (NOT_PROCESSED); another gateway's error (502, 504, Cloudflare's 520, 524, 527) only for a
 * method whose answer a second sending leaves the same, since the upstream may have processed the request before the
 * gateway gave up: not a POST or PATCH, nor a DELETE, which is then refused as not found (left unavailable).
 */
function isTransient(response: WireResponse, method: string): boolean {
  return (
    isGatewayError(response) &&
    (NOT_PROCESSED.has(response.status) || SAME_ANSWER_WHEN_RESENT.has(method.toUpperCase()))
  );
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
 * The wait a throttled answer asks for, in milliseconds: its Retry-After, else when its rate limit's window resets,
 * which gateways send instead (RateLimit-Reset, or RateLimit's t= or reset=, of the IETF's RateLimit header fields
 * drafts; X-RateLimit-Reset, in seconds or as a Unix time), dates and times read by the answer's own clock
 * (answerClock). Undefined when it says neither, or names a reset already past.
 */
export function askedWaitMs(response: WireResponse, localNow = Date.now()): number | undefined {
  const now = answerClock(response, localNow);
  const retryAfter = retryAfterMs(headerValue(response, 'retry-after'), now);
  if (retryAfter !== undefined) return retryAfter;
  const reset =
    headerValue(response, 'ratelimit-reset') ??
    /(?:^|[;,\s])(?:t|reset)=(\d+)/.exec(headerValue(response, 'ratelimit') ?? '')?.[1] ??
    headerValue(response, 'x-ratelimit-reset');
  if (reset === undefined || !/^\s*\d+\s*$/.test(reset)) return undefined;
  const value = Number(reset);
  // A Unix time (GitHub's X-RateLimit-Reset, say; some send milliseconds), not a number of seconds: no window lasts
  // 30 years. One already past (another clock) says nothing: the back-off, not a resend at once.
  const wait = value > UNIX_MS_FROM ? value - now : value > UNIX_TIME_FROM ? value * 1000 - now : value * 1000;
  return wait > 0 ? wait : undefined;
}

/**
 * "Now" by the clock that wrote the answer's dates and Unix times: its Date header (RFC 9110 §6.6.1), when that is
 * off this machine's by more than CLOCK_SKEW_MS. A staging server whose clock runs minutes fast would otherwise ask,
 * by its HTTP-date one second ahead of it, for a wait of minutes (cut to RSF_RETRY_MAX_WAIT_MS at every retry), and
 * one that runs slow for none. Within the tolerance this machine's clock, which has more than the Date's whole
 * seconds.
 */
function answerClock(response: WireResponse, now: number): number {
  const date = Date.parse(headerValue(response, 'date') ?? '');
  return Number.isNaN(date) || Math.abs(date - now) <= CLOCK_SKEW_MS ? now : date;
}

/** More than the Date header's rounding to a whole second and an answer's time on the way. */
const CLOCK_SKEW_MS = 5000;

/** A reset above this is a Unix time in seconds (2001-09-09 on), and above UNIX_MS_FROM one in milliseconds. */
const UNIX_TIME_FROM = 1e9;
const UNIX_MS_FROM = 1e12;

/**
 * The wait before retry number `retry` (0 for the first): the wait the target asked for (askedWaitMs) up to
 * `maxWaitMs`, spread a little; without one, exponential back-off with full jitter.
 */
export function retryWaitMs(asked: number | undefined, retry: number, maxWaitMs: number, random = Math.random): number {
  if (asked !== undefined) return Math.min(maxWaitMs, asked * (1 + RETRY_AFTER_SPREAD * random()));
  return Math.floor(random() * Math.min(maxWaitMs, BACKOFF_BASE_MS * 2 ** retry));
}

export interface RetryOptions {
  /** RSF_MAX_RETRIES. */
  maxRetries: number;
  /** RSF_RETRY_MAX_WAIT_MS: the longest wait before one retry. */
  retryMaxWaitMs: number;
}

/**
 * A delivery whose every attempt was throttled or a gateway's error also says when the first was sent: the breaker
 * counts from there.
 */
export type Retried =
  | Delivery
  | (Extract<Delivery, { kind: 'throttled' }> & { firstSentAt: number })
  | (Extract<Delivery, { kind: 'unavailable' }> & { firstSentAt: number });

/**
 * Sends a request with `send`, again after each throttled answer or gateway blip (up to maxRetries in all, waiting no
 * more than `maxWaitMs`). An attempt not sent, or not answered, ends it. A blip still there when the retries or the
 * time run out, or a 502 or 504 to a request that may not be sent again, makes the request unavailable: not judged.
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
      const transient = isTransient(response, request.method);
      if (!transient && !isThrottled(response)) {
        // The upstream may have carried out a POST or PATCH before its gateway gave up: not sent again.
        if (isGatewayError(response)) return { kind: 'unavailable', response, attempts, gaveUp: 'unsafe', firstSentAt };
        return { kind: 'answer', response, attempts };
      }
      const unusable = transient ? ('unavailable' as const) : ('throttled' as const);
      if (retry >= maxRetries) return { kind: unusable, response, attempts, gaveUp: 'retries', firstSentAt };
      const retryAfter = headerValue(response, 'retry-after');
      const wait = retryWaitMs(askedWaitMs(response), retry, options.retryMaxWaitMs);
      if (waited + wait > maxWaitMs) return { kind: unusable, response, attempts, gaveUp: 'time', firstSentAt };
      attempts.push({
        status: response.status,
        ...(retryAfter !== undefined && { retryAfter }),
        waitedMs: Math.round(wait),
        ...(transient && { transient: true as const }),
      });
      waited += wait;
      await sleep(wait);
    }
  };
}
