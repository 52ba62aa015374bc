// Every request of the suite goes through one pipeline, composed here once: the wire (deadline, capped body), the
// limiter (pace, throttle), the breaker's gate (and each operation's), retries of throttled answers and gateway blips,
// and the breaker's count of those that never got through. Each layer has its file; this one only puts them in order.
import { type AskingAgain, gatedByBreaker, unusableCounted } from './breaker';
import { type Deliver, type Delivery, type Send, compose } from './delivery';
import type { OutgoingRequest } from './exchange';
import { Limiter, paced } from './limiter';
import type { ProxySettings } from './proxy';
import { type RetryOptions, retrying } from './retry';
import { throttleNotice } from './throttle-notice';
import { type BreakerTrip, type RunState, runState } from './run-state';
import { type SlowDown, SlowDownLog } from './slow-downs';
import { type ClientCertificate, type WireOptions, wire } from './wire';

/** What the transport needs to know, and nothing more: the fixtures make it from the configuration. */
export interface TransportOptions extends RetryOptions {
  /** RSF_REQUEST_TIMEOUT_MS: for the whole exchange. */
  requestTimeoutMs: number;
  /** RSF_MAX_RESPONSE_BYTES: body bytes read, after decompression. */
  maxResponseBytes: number;
  /** RSF_MAX_REQUESTS_PER_SECOND over the whole run; 0: no cap. */
  maxRequestsPerSecond: number;
  /** In place of the wire: a replay's answers from a recording (src/evidence/replay.ts). */
  innermost?: Send;
  /** The target answers at the cost of this machine's CPU (limiter.ts): requests are not overlapped. */
  inProcess?: boolean;
  /** The environment's forward proxies (proxy.ts). */
  proxy?: ProxySettings;
  /** For an https target that asks for one (RSF_TLS_CLIENT_CERT). */
  clientCertificate?: ClientCertificate;
  /** Rides out a restart of the target within the deadline (wire.ts): the workers', once the preflight found it up. */
  resendAfterRestart?: boolean;
  /** false: a connection of its own per request, closed after its answer (RSF_KEEP_ALIVE). */
  keepAlive?: boolean;
  /** How the breaker's pause ends (breaker.ts): the workers' ask for the price list; without it, a pause stops. */
  resume?: AskingAgain;
  /** This worker's place among the run's workers (its parallel index): where its requests fall in the pace. */
  paceSlot?: number;
}

/**
 * The wire's part of the transport's options: the deadline, the body cap, the proxies, the client certificate, and
 * whether connections are kept alive.
 */
export function wireOptions(options: TransportOptions): WireOptions {
  const { requestTimeoutMs, maxResponseBytes, proxy, clientCertificate, resendAfterRestart, keepAlive } = options;
  return {
    timeoutMs: requestTimeoutMs,
    maxBodyBytes: maxResponseBytes,
    ...(resendAfterRestart && { resendAfterRestart }),
    ...(keepAlive === false && { keepAlive }),
    ...(proxy && { proxy }),
    ...(clientCertificate && { clientCertificate }),
  };
}

/** Shared by every test of a worker: it paces, retries, and keeps the run's circuit breaker. */
export class Transport {
  private readonly limiter: Limiter;
  private readonly pipeline: Deliver;
  /** This worker's halvings of the run's pace, until the tests take them into their annotations. */
  readonly slowDowns = new SlowDownLog();
  /** When the outages began that this worker's breaker pauses rode out, until a test takes them (takePauses). */
  private pauses: string[] = [];

  constructor(
    readonly options: TransportOptions,
    readonly apiBase: string,
    workers: number,
    private readonly state: RunState = runState(),
  ) {
    const { maxRequestsPerSecond, inProcess, paceSlot: slot } = options;
    const share = { maxRequestsPerSecond, workers, ...(slot !== undefined && { slot }) };
    this.limiter = new Limiter({ ...share, ...(inProcess && { inProcess }) }, state);
    if (options.innermost) {
      // A replay: the recording says what the breaker and the pace did (its "not sent" after a recorded trip). A
      // breaker of its own would open at its own moment, not the recorded one, and judge other tests.
      this.pipeline = retrying(options, options.innermost);
      return;
    }
    const slowingDown = this.slowDowns.noting(throttleNotice(state));
    const { resume } = options;
    const onResumed = (trip: BreakerTrip) => {
      this.pauses.push(trip.since);
      resume?.onResumed?.(trip);
    };
    const gate = gatedByBreaker(state, [], resume && { ...resume, onResumed });
    const send = compose(wire(wireOptions(options)), gate, paced(this.limiter, state, slowingDown));
    // Outermost first: the breaker's gate, then the pace (and the notice of the run's first slow-down), then the wire.
    this.pipeline = unusableCounted(state, retrying(options, send));
  }

  /**
   * Sends `request`, again after each throttled answer or gateway blip (up to RSF_MAX_RETRIES, waiting no more than
   * `maxWaitMs` in all), unless the breaker is open or its operation stopped.
   */
  deliver(request: OutgoingRequest, maxWaitMs = Number.POSITIVE_INFINITY): Promise<Delivery> {
    return this.pipeline(request, maxWaitMs);
  }

  /** This worker's halvings of the run's pace since the last call, and those the runner handed over (run-state.ts). */
  takeSlowDowns(): SlowDown[] {
    return [...this.slowDowns.take(), ...this.state.takeHandedSlowDowns()];
  }

  /** The pauses this worker's requests rode out since the last call: when each outage began (ISO time). */
  takePauses(): string[] {
    const taken = this.pauses;
    this.pauses = [];
    return taken;
  }

  /** The breaker's trip, once it is open. */
  breakerOpen(): BreakerTrip | undefined {
    return this.state.breakerOpen();
  }

  /** Whether this transport's requests are paced: a rate cap, or the run's throttle. */
  isPaced(): boolean {
    return this.limiter.isPaced();
  }

  /** Waits for this worker's next slot. */
  pace(): Promise<void> {
    return this.limiter.pace();
  }

  /** Under a rate, waits a second past the last request, so that whoever sends next starts a window of its own. */
  settle(): Promise<void> {
    return this.limiter.settle();
  }

  /** An answer took `durationMs`: what it says of the target's distance (an answer another process got counts too). */
  observedLatency(durationMs: number): void {
    this.limiter.observedLatency(durationMs);
  }

  /** How many requests this process may have out at once (limiter.ts, concurrencyWindow); 0 while answers are quick. */
  inFlightWindow(): number {
    return this.limiter.inFlightWindow();
  }

  /** How many of `wanted` requests this process may have out at once against a quick target (limiter.ts). */
  nearWindow(wanted: number): number {
    return this.limiter.nearWindow(wanted);
  }
}
