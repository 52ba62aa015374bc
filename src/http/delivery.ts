// The pipeline's vocabulary: one attempt (Sent), what became of a request (Delivery), and the layers around them,
// composed in the manner of undici's interceptors (transport.ts composes them once).
import type { OutgoingRequest, ThrottledAttempt, WireResponse } from './exchange';
import type { BreakerTrip } from './run-state';
import type { NoAnswer } from './no-answer';

/** One attempt of a request: an answer (any status), none, or not sent at all (the breaker is open). */
export type Sent =
  | { kind: 'answer'; response: WireResponse; sentAt: number }
  /** `trip` is set when the breaker is open (this attempt may have opened it). */
  | { kind: 'no-answer'; failure: NoAnswer; sentAt: number; trip?: BreakerTrip }
  | { kind: 'not-sent'; trip: BreakerTrip };

/** Sends one attempt. */
export type Send = (request: OutgoingRequest) => Promise<Sent>;

/** A layer around one attempt: pacing, the breaker's gate. */
export type Interceptor = (next: Send) => Send;

/** `send` wrapped by `interceptors`, the first outermost. */
export function compose(send: Send, ...interceptors: Interceptor[]): Send {
  return interceptors.reduceRight((next, interceptor) => interceptor(next), send);
}

/** What became of one request, its retries included. Nothing here is a verdict on the target's conformance. */
export type Delivery =
  | { kind: 'answer'; response: WireResponse; attempts: ThrottledAttempt[] }
  /** Every attempt was throttled: the last answer, and why we stopped retrying; `trip` as for no-answer. */
  | {
      kind: 'throttled';
      response: WireResponse;
      attempts: ThrottledAttempt[];
      gaveUp: 'retries' | 'time';
      trip?: BreakerTrip;
    }
  /**
   * Every attempt was a gateway's error (retry.ts, isGatewayError), to the last retry or the end of the wait,
   * or one that could not safely be sent again: the target, or what stands in front of it, was not there to answer.
   * Not the API's answer, so not judged; `trip` as for no-answer.
   */
  | {
      kind: 'unavailable';
      response: WireResponse;
      attempts: ThrottledAttempt[];
      gaveUp: 'retries' | 'time' | 'unsafe';
      trip?: BreakerTrip;
    }
  /** No HTTP answer; `trip` is set when the breaker is open (this request may have opened it). */
  | { kind: 'no-answer'; failure: NoAnswer; attempts: ThrottledAttempt[]; trip?: BreakerTrip }
  /** The breaker was open: not sent. */
  | { kind: 'not-sent'; trip: BreakerTrip; attempts: ThrottledAttempt[] };

/** Delivers a request, retries included, spending at most `maxWaitMs` waiting on retries. */
export type Deliver<D = Delivery> = (request: OutgoingRequest, maxWaitMs?: number) => Promise<D>;
