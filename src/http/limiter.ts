// The pace of a worker's requests: the rate cap and the run's throttle (both over all workers), the rate the target
// accepted (for the throttle to halve), and how many requests may be out at once.
import type { Interceptor } from './delivery';
import type { WireResponse } from './exchange';
import { isGatewayError, sleep } from './retry';
import { MAX_SOCKETS_PER_HOST } from './wire';

/** The window over which a worker measures the rate the target accepted, to tell the throttle how fast to go. */
const RATE_WINDOW_MS = 2000;
/**
 * A shorter measure (a burst at the start of a run) says little about a limit, which is usually per second or longer:
 * it counts as this long.
 */
const MIN_RATE_WINDOW_MS = 1000;
/** Answers quicker than this leave nothing worth overlapping: judging one costs about as much as waiting for it. */
const OVERLAP_MIN_LATENCY_MS = 20;
/** Requests a process has out at once before any answer said how long the target takes, without a rate cap. */
export const FIRST_WINDOW = 4;
/** Requests a process has out at once at most, when no rate cap bounds them sooner: as many as it keeps connections. */
export const MAX_WINDOW = MAX_SOCKETS_PER_HOST;
/** The answers whose durations say how far away the target is. */
const LATENCY_SAMPLES = 8;
/**
 * A 503 says the server is overloaded, or down (RFC 9110 §15.6.4); a rate limiter in front of it may answer so, as
 * nginx's limit_req does by default, without Retry-After. It slows the run down as a 429 does only when it is common
 * among a worker's last OVERLOAD_WINDOW answers (OVERLOAD_COUNT of them, a fifth: below that, the six attempts of
 * RSF_MAX_RETRIES' default are all refused less than once in 15,000), and some of those were served. A load
 * balancer's blips (the reference's flaky mode: every 17th request) are no overload, and a target in maintenance
 * serves nothing, which a slower pace would only take longer to find out. Served answers anywhere in the window, not
 * only since the 503s began: two workers paced alike can lock in step with a limiter's refill, one of them served
 * every time and the other never.
 */
const OVERLOAD_WINDOW = 20;
const OVERLOAD_COUNT = 4;

/**
 * How many requests a process may have out at once, from how long its latest answers took (the target's latency,
 * measured: a tunnel to a far server is on localhost, and as slow as the server) and the requests per second it may
 * send (undefined: no limit). Before the first answer, a few (FIRST_WINDOW; one under a rate). None (the caller's
 * own, small window) while the median recent answer took under 20 ms: there is nothing worth overlapping. Otherwise
 * as many as the rate allows during one answer's time (Little's law: rate × latency), at most MAX_WINDOW.
 */
export function concurrencyWindow(answerTimesMs: readonly number[], ratePerSecond: number | undefined): number {
  if (answerTimesMs.length === 0) return ratePerSecond === undefined ? FIRST_WINDOW : 1;
  const latencyMs = [...answerTimesMs].sort((a, b) => a - b)[Math.floor(answerTimesMs.length / 2)] ?? 0;
  if (latencyMs < OVERLAP_MIN_LATENCY_MS) return 0;
  if (ratePerSecond === undefined) return MAX_WINDOW;
  return Math.min(MAX_WINDOW, Math.ceil((ratePerSecond * latencyMs) / 1000));
}

/**
 * When a worker may send next, from `earliestMs` on, at `rate` requests a second over the run's `workers`: on a grid
 * of the rate, aligned to the clock the workers share, offset by its `slot`. Each worker's requests keep its share's
 * interval, and the workers' fall between each other's, 1/rate apart, where slots of their own would fall at random
 * and two workers' could leave a few milliseconds apart: refused by a limiter without burst (nginx's limit_req, as a
 * staging gateway has it, indep105: a cap of 4 a second met 12 refusals of a limit of 8).
 */
export function paceSlot(earliestMs: number, rate: number, workers: number, slot: number): number {
  // One worker has no other to fall between: after a pause, it need not wait for the grid.
  if (workers <= 1) return earliestMs;
  const intervalMs = (1000 * workers) / rate;
  const phaseMs = ((slot % workers) * 1000) / rate;
  return Math.ceil((earliestMs - phaseMs) / intervalMs) * intervalMs + phaseMs;
}

/** The run's throttle, shared by all workers (run-state.ts). */
export interface RunThrottle {
  /** Requests per second over the run, or undefined when not throttled. */
  throttledRate(): number | undefined;
  /**
   * A 429 after the target accepted about `acceptedRate` requests per second over the run: the run's new rate, or
   * undefined when it had just slowed down (the answer was to a request sent before that).
   */
  slowDown(acceptedRate: number): number | undefined;
}

export interface LimiterOptions {
  /** RSF_MAX_REQUESTS_PER_SECOND over the whole run; 0: no cap. */
  maxRequestsPerSecond: number;
  /** The run's workers: each keeps to its share of the run's rate. */
  workers: number;
  /** This worker's place among them (its parallel index): its slots on the run's grid of the rate (paceSlot). */
  slot?: number;
  /**
   * The target answers at the cost of this machine's CPU, not of waiting (the embedded reference without latency):
   * nothing to overlap, however long a loaded machine makes its answers take.
   */
  inProcess?: boolean;
  /**
   * The runner's burst, sent all at once: a 503 to it says nothing of the pace the tests may keep, since a limit on
   * connections (nginx's limit_conn) refuses a burst that it would serve one by one. A 429 slows the run down still.
   */
  burst?: boolean;
}

/** One per worker: it paces the worker's requests, and measures what the target accepts and how far it is. */
export class Limiter {
  private nextSlot = 0;
  /** When this worker's recent requests were answered without throttling, oldest first. */
  private readonly recentAnswers: number[] = [];
  private firstSendAt: number | undefined;
  private lastSendAt: number | undefined;
  /** Requests this worker sent, and how many of them a 429 (or a rate limiter's 503) refused: for its first second. */
  private sentCount = 0;
  private refusedCount = 0;
  /** How long this worker's latest unthrottled answers took, oldest first. */
  private readonly answerTimes: number[] = [];
  /** This worker's last answers, oldest first: true for a 503, false for one served (not throttled). */
  private readonly lastAnswers: boolean[] = [];

  constructor(
    private readonly options: LimiterOptions,
    private readonly throttle: RunThrottle,
  ) {}

  /** Requests per second over the whole run that this worker keeps to its share of; undefined: no limit. */
  private runRate(): number | undefined {
    const cap = this.options.maxRequestsPerSecond > 0 ? this.options.maxRequestsPerSecond : undefined;
    const throttle = this.throttle.throttledRate();
    if (cap === undefined) return throttle;
    return throttle === undefined ? cap : Math.min(cap, throttle);
  }

  private get workers(): number {
    return Math.max(1, this.options.workers);
  }

  /** Whether requests are paced: a rate cap, or the run's throttle. */
  isPaced(): boolean {
    return this.runRate() !== undefined;
  }

  /** Waits for this worker's next slot: each of the workers sends at most its share of the run's rate. */
  async pace(): Promise<void> {
    const rate = this.runRate();
    const now = Date.now();
    if (rate !== undefined) {
      const intervalMs = (1000 * this.workers) / rate;
      const slot = paceSlot(Math.max(now, this.nextSlot), rate, this.workers, this.options.slot ?? 0);
      this.nextSlot = slot + intervalMs;
      if (slot > now) await sleep(slot - now);
      // From when this request really leaves: a timer that fired late must not shorten the next gap.
      this.nextSlot = Math.max(this.nextSlot, Date.now() + intervalMs);
    }
    this.firstSendAt ??= Date.now();
    this.lastSendAt = Date.now();
    this.sentCount++;
  }

  /**
   * Under a rate, waits until a second has passed since this worker's last request, so that whoever sends next
   * (the workers, after the preflight) starts a window of its own: the cap holds over the whole run.
   */
  async settle(): Promise<void> {
    if (this.runRate() === undefined || this.lastSendAt === undefined) return;
    const wait = this.lastSendAt + 1000 - Date.now();
    if (wait > 0) await sleep(wait);
  }

  /** A request was answered, unthrottled, at `at` after `durationMs`. */
  answered(at: number, durationMs: number): void {
    this.lastAnswer(false);
    this.recentAnswers.push(at);
    while ((this.recentAnswers[0] ?? at) < at - RATE_WINDOW_MS) this.recentAnswers.shift();
    this.observedLatency(durationMs);
  }

  /** A 503 came: whether such answers are common enough among this worker's last ones to slow the run down for. */
  overloaded(): boolean {
    if (this.options.burst) return false;
    this.lastAnswer(true);
    const refused = this.lastAnswers.filter(Boolean).length;
    return refused >= OVERLOAD_COUNT && refused < this.lastAnswers.length;
  }

  private lastAnswer(was503: boolean): void {
    this.lastAnswers.push(was503);
    if (this.lastAnswers.length > OVERLOAD_WINDOW) this.lastAnswers.shift();
  }

  /** An answer took `durationMs`: what it says of the target's distance (an answer another process got counts too). */
  observedLatency(durationMs: number): void {
    this.answerTimes.push(durationMs);
    if (this.answerTimes.length > LATENCY_SAMPLES) this.answerTimes.shift();
  }

  /** How many requests this process may have out at once: see concurrencyWindow; 0 while answers are quick. */
  inFlightWindow(): number {
    if (this.options.inProcess) return 0;
    const rate = this.runRate();
    return concurrencyWindow(this.answerTimes, rate === undefined ? undefined : rate / this.workers);
  }

  /**
   * How many of `wanted` requests to a quick target this worker may have out at once: all of them without a pace;
   * under one, as many as it lets out during a quick answer's time, and one more. More would only wait for their
   * slots, and a request sent again after a 429 or 503 would wait behind them all.
   */
  nearWindow(wanted: number): number {
    const rate = this.runRate();
    if (rate === undefined) return wanted;
    return Math.min(wanted, 1 + Math.ceil(((rate / this.workers) * OVERLAP_MIN_LATENCY_MS) / 1000));
  }

  /** A 429 (or a rate limiter's 503) refused one of this worker's requests. */
  countRefusal(): void {
    this.refusedCount++;
  }

  /**
   * The rate the target accepted lately over the whole run, from this worker's share (the workers share the load
   * evenly): half of it is a pace the target can take. In the worker's first second, the answers to its first burst
   * may not have come yet (a limiter refuses at once, and the server serves slower): half of the requests it sent
   * that were not refused count as accepted, or a limiter that cut a burst short would slow the run to its floor.
   */
  acceptedRunRate(now: number): number {
    const span = now - (this.firstSendAt ?? now);
    const window = Math.max(MIN_RATE_WINDOW_MS, Math.min(RATE_WINDOW_MS, span));
    let accepted = this.recentAnswers.filter((at) => at >= now - window).length;
    if (span < MIN_RATE_WINDOW_MS) accepted = Math.max(accepted, (this.sentCount - this.refusedCount) / 2);
    return (Math.max(1, accepted) * this.workers * 1000) / window;
  }
}

/**
 * Each attempt waits for its slot; an answer is measured, and a 429, or 503s without Retry-After often enough
 * (Limiter.overloaded), slow the whole run down: `slowingDown` hears of each such answer, with the run's new rate
 * (undefined when it had just slowed down), for the console's notice and the reports.
 */
export function paced(
  limiter: Limiter,
  throttle: RunThrottle,
  slowingDown: (response: WireResponse, ratePerSecond: number | undefined) => void = () => {},
): Interceptor {
  return (next) => async (request) => {
    await limiter.pace();
    const sent = await next(request);
    if (sent.kind !== 'answer') return sent;
    const { response } = sent;
    const now = Date.now();
    // A 503 tells nothing of the rate the target accepts, nor of its distance (a limiter answers at once); with
    // Retry-After, its retry waits as asked.
    const slowsDown =
      response.status === 429 || (isGatewayError(response) && response.status === 503 && limiter.overloaded());
    if (slowsDown) {
      limiter.countRefusal();
      slowingDown(response, throttle.slowDown(limiter.acceptedRunRate(now)));
    } else if (response.status !== 503) limiter.answered(now, response.durationMs);
    return sent;
  };
}
