// Every request of the suite goes through here: credentials, pace, retries of throttled requests, the run's circuit
// breaker, a capped body, and redacted, printable accounts of each exchange. The bytes travel in wire.ts; the state
// shared by all workers (breaker, throttle) lives in run-state.ts.
import { createHash } from 'node:crypto';
import { type TestInfo, test } from '@playwright/test';
import type { ExchangeRecord } from '../checks/check-protocol';
import { type Config, secretSettings } from '../config/config';
import { OPERATIONS, type Operation, type OperationName, fillPath, operationLabel } from '../model/operations';
import { printable } from '../model/printable';
import { redact, replaceSecret } from './redact';
import { BREAKER_THRESHOLD, type BreakerTrip, type RunState, runState } from './run-state';
import { resumeSkip, stopAsInconclusive, stopAsNotRun } from '../playwright/unjudged';
import { MAX_SOCKETS_PER_HOST, NoAnswer, type WireResponse, sendOnce } from './wire';

/** How the request authenticates: the valid token, nothing, or one of the ways §5.4 says must not be accepted. */
export type Credentials = 'valid' | 'none' | 'unknown-token' | 'non-bearer' | 'empty-bearer';

export type ParsedBody = { kind: 'json'; value: unknown } | { kind: 'text'; value: string } | { kind: 'empty' };

/** A throttled answer that was retried: its status, the Retry-After it carried, and how long we waited after it. */
export interface ThrottledAttempt {
  status: number;
  retryAfter?: string;
  waitedMs: number;
}

export interface Exchange {
  operation: Operation;
  credentials: Credentials;
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  status: number;
  contentType: string;
  /** The body read, as UTF-8 (invalid bytes become U+FFFD): for judging. Excerpts are made from rawBody. */
  text: string;
  /** The parsed body; for a body larger than the cap, a text saying so (it was not read whole). */
  body: ParsedBody;
  durationMs: number;
  /** The body's bytes as read, decompressed, up to RSF_MAX_RESPONSE_BYTES. */
  rawBody: Buffer;
  /** Decompressed size of the body read, or the size the target announced when it was larger than the cap. */
  sizeBytes: number;
  /**
   * Set when the body was larger than RSF_MAX_RESPONSE_BYTES: only its first limitBytes were read. announcedBytes is
   * its size when the target said it (Content-Length).
   */
  truncated?: { limitBytes: number; announcedBytes?: number };
  /** The throttled answers (429, or 503 with Retry-After) before this one, in order; empty for most. */
  attempts: ThrottledAttempt[];
}

export interface SendOptions {
  params?: Record<string, string | number>;
  query?: string;
  credentials?: Credentials;
  /** A JSON value, sent as application/json. */
  json?: unknown;
  /** Raw bytes with their own content type, e.g. malformed JSON. */
  raw?: { text: string; contentType: string };
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
  /** No HTTP answer; `trip` is set when the breaker is open (this request may have opened it). */
  | { kind: 'no-answer'; failure: NoAnswer; attempts: ThrottledAttempt[]; trip?: BreakerTrip }
  /** The breaker was open: not sent. */
  | { kind: 'not-sent'; trip: BreakerTrip; attempts: ThrottledAttempt[] };

/** A test's requests sent before it ran: the delivery of `request` if it was sent (once), else `sendItself`'s. */
export interface Prefetched {
  deliver(request: OutgoingRequest, sendItself: () => Promise<Delivery>): Promise<Delivery>;
}

export interface OutgoingRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** The first wait of a back-off without Retry-After; it doubles with each attempt (full jitter below it). */
const BACKOFF_BASE_MS = 500;
/** A wait after Retry-After gets up to this share more, so that workers throttled together do not return together. */
const RETRY_AFTER_SPREAD = 0.2;
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

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A 429, or a 503 with Retry-After: the target asks us to come back later. */
function isThrottled(response: WireResponse): boolean {
  return response.status === 429 || (response.status === 503 && headerValue(response, 'retry-after') !== undefined);
}

function headerValue(response: WireResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
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

/** "GET /v1/item/1001": how the breaker names a request; no query, secrets redacted. */
export function requestLine(method: string, url: string): string {
  return redact(`${method} ${new URL(url).pathname}`);
}

/**
 * Shared by every test of a worker. It paces the worker's requests (the rate cap and the run's throttle, both over
 * all workers), retries throttled ones, and keeps the run's circuit breaker (run-state.ts).
 */
export class Transport {
  private nextSlot = 0;
  /** When this worker's recent requests were answered without throttling, oldest first. */
  private readonly recentAnswers: number[] = [];
  private firstSendAt: number | undefined;
  private lastSendAt: number | undefined;
  /** How long this worker's latest unthrottled answers took, oldest first. */
  private readonly answerTimes: number[] = [];

  constructor(
    readonly config: Config,
    readonly apiBase: string,
    private readonly workers: number,
    private readonly state: RunState = runState(),
  ) {}

  /** The breaker's trip, once it is open. */
  breakerOpen(): BreakerTrip | undefined {
    return this.state.breakerOpen();
  }

  /** Requests per second over the whole run that this worker keeps to its share of; undefined: no limit. */
  private runRate(): number | undefined {
    const cap = this.config.maxRequestsPerSecond > 0 ? this.config.maxRequestsPerSecond : undefined;
    const throttle = this.state.throttledRate();
    if (cap === undefined) return throttle;
    return throttle === undefined ? cap : Math.min(cap, throttle);
  }

  /** Whether this transport's requests are paced: a rate cap, or the run's throttle. */
  isPaced(): boolean {
    return this.runRate() !== undefined;
  }

  /** Waits for this worker's next slot: each of the workers sends at most its share of the run's rate. */
  async pace(): Promise<void> {
    const rate = this.runRate();
    const now = Date.now();
    if (rate !== undefined) {
      const intervalMs = (1000 * Math.max(1, this.workers)) / rate;
      const wait = this.nextSlot - now;
      this.nextSlot = Math.max(now, this.nextSlot) + intervalMs;
      if (wait > 0) await sleep(wait);
      // From when this request really leaves: a timer that fired late must not shorten the next gap.
      this.nextSlot = Math.max(this.nextSlot, Date.now() + intervalMs);
    }
    this.firstSendAt ??= Date.now();
    this.lastSendAt = Date.now();
  }

  /**
   * Under a rate, waits until a second has passed since this transport's last request, so that whoever sends next
   * (the workers, after the preflight) starts a window of its own: the cap holds over the whole run.
   */
  async settle(): Promise<void> {
    if (this.runRate() === undefined || this.lastSendAt === undefined) return;
    const wait = this.lastSendAt + 1000 - Date.now();
    if (wait > 0) await sleep(wait);
  }

  private answeredUnthrottled(at: number, durationMs: number): void {
    this.recentAnswers.push(at);
    while ((this.recentAnswers[0] ?? at) < at - RATE_WINDOW_MS) this.recentAnswers.shift();
    this.observedLatency(durationMs);
  }

  /** An answer took `durationMs`: what it says of the target's distance (an answer another process got counts too). */
  observedLatency(durationMs: number): void {
    this.answerTimes.push(durationMs);
    if (this.answerTimes.length > LATENCY_SAMPLES) this.answerTimes.shift();
  }

  /** How many requests this process may have out at once: see concurrencyWindow; 0 while answers are quick. */
  inFlightWindow(): number {
    const rate = this.runRate();
    return concurrencyWindow(this.answerTimes, rate === undefined ? undefined : rate / Math.max(1, this.workers));
  }

  /**
   * The rate the target accepted lately over the whole run, from this worker's share (the workers share the load
   * evenly): half of it is a pace the target can take.
   */
  private acceptedRunRate(now: number): number {
    const window = Math.max(MIN_RATE_WINDOW_MS, Math.min(RATE_WINDOW_MS, now - (this.firstSendAt ?? now)));
    const answers = this.recentAnswers.filter((at) => at >= now - window).length;
    return (Math.max(1, answers) * Math.max(1, this.workers) * 1000) / window;
  }

  /**
   * Sends `request`, again after each throttled answer (up to RSF_MAX_RETRIES, waiting no more than `maxWaitMs` in
   * all), unless the breaker is open. Every request is counted by the breaker: a usable answer closes the count;
   * none, or throttled ones to the end, add to it.
   */
  async deliver(request: OutgoingRequest, maxWaitMs = Number.POSITIVE_INFINITY): Promise<Delivery> {
    const { requestTimeoutMs, maxResponseBytes, retryMaxWaitMs } = this.config;
    const maxRetries = Math.floor(this.config.maxRetries);
    const attempts: ThrottledAttempt[] = [];
    let waited = 0;
    const line = requestLine(request.method, request.url);
    const throttledOut = (response: WireResponse, gaveUp: 'retries' | 'time', firstSentAt: number): Delivery => {
      const trip = this.state.unanswered(firstSentAt, line, 'throttled');
      return { kind: 'throttled', response, attempts, gaveUp, ...(trip && { trip }) };
    };
    let firstSentAt: number | undefined;
    for (let retry = 0; ; retry++) {
      const trip = this.state.breakerOpen();
      if (trip) return { kind: 'not-sent', trip, attempts };
      await this.pace();
      const sentAt = Date.now();
      firstSentAt ??= sentAt;
      let response: WireResponse;
      try {
        response = await sendOnce({ ...request, timeoutMs: requestTimeoutMs, maxBodyBytes: maxResponseBytes });
      } catch (e) {
        if (!(e instanceof NoAnswer)) throw e;
        const trip = this.state.unanswered(sentAt, line);
        return { kind: 'no-answer', failure: e, attempts, ...(trip && { trip }) };
      }
      if (!isThrottled(response)) {
        this.state.answered();
        this.answeredUnthrottled(Date.now(), response.durationMs);
        return { kind: 'answer', response, attempts };
      }
      if (response.status === 429) this.state.slowDown(this.acceptedRunRate(Date.now()));
      if (retry >= maxRetries) return throttledOut(response, 'retries', firstSentAt);
      const retryAfter = headerValue(response, 'retry-after');
      const wait = retryWaitMs(retryAfter, retry, retryMaxWaitMs);
      if (waited + wait > maxWaitMs) return throttledOut(response, 'time', firstSentAt);
      attempts.push({
        status: response.status,
        ...(retryAfter !== undefined && { retryAfter }),
        waitedMs: Math.round(wait),
      });
      waited += wait;
      await sleep(wait);
    }
  }
}

export function authorizationHeader(credentials: Credentials, config: Config): string | undefined {
  switch (credentials) {
    case 'valid':
      return `Bearer ${config.bearerToken}`;
    case 'none':
      return undefined;
    case 'unknown-token':
      return `Bearer ${config.invalidBearerToken}`;
    case 'non-bearer':
      return `Token ${config.bearerToken}`;
    case 'empty-bearer':
      return 'Bearer ';
  }
}

/** The credentials a request is sent with: those asked for, or the valid token where the operation needs one. */
export function credentialsOf(operation: Operation, options: SendOptions): Credentials {
  return options.credentials ?? (operation.auth === 'bearer' ? 'valid' : 'none');
}

/** The request `options` make of `operation` against `apiBase`, with its credentials. */
export function outgoingRequest(
  operation: Operation,
  options: SendOptions,
  config: Config,
  apiBase: string,
): OutgoingRequest {
  const path = fillPath(operation.path, options.params ?? {});
  const url = `${apiBase}${path}${options.query ? `?${options.query}` : ''}`;
  const headers: Record<string, string> = { Accept: 'application/json' };
  const authorization = authorizationHeader(credentialsOf(operation, options), config);
  if (authorization !== undefined) headers.Authorization = authorization;
  let body: string | undefined;
  if (options.raw) {
    body = options.raw.text;
    headers['Content-Type'] = options.raw.contentType;
  } else if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['Content-Type'] = 'application/json';
  }
  return { method: operation.method, url, headers, ...(body !== undefined && { body }) };
}

/**
 * The body as JSON, or as text. Under a text/* content type only an object or an array counts as (mislabelled)
 * JSON: a plain-string body such as 200 or true must stay the string it is (§7.1).
 */
export function parseBody(text: string, contentType = ''): ParsedBody {
  if (text.trim() === '') return { kind: 'empty' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'text', value: text };
  }
  const structured = typeof value === 'object' && value !== null;
  return /^text\//i.test(contentType) && !structured ? { kind: 'text', value: text } : { kind: 'json', value };
}

/** The body as a "plain string" (§7.1): a JSON string, or raw text. */
export function plainString(body: ParsedBody): string | undefined {
  if (body.kind === 'text') return body.value;
  if (body.kind === 'json' && typeof body.value === 'string') return body.value;
  return undefined;
}

/** The parsed JSON body, or undefined when the body is empty or not JSON. */
export function jsonBody(exchange: Exchange): unknown {
  return exchange.body.kind === 'json' ? exchange.body.value : undefined;
}

/** The value handed to a JSON Schema: the parsed JSON, the raw text, or undefined for no body. */
export function schemaInput(body: ParsedBody): unknown {
  return body.kind === 'empty' ? undefined : body.value;
}

/** What a body larger than the cap is judged as: not the operation's body, and saying why. */
export function tooLargeMessage(limitBytes: number): string {
  const limit = `${limitBytes} bytes`;
  return `response larger than ${limit} (RSF_MAX_RESPONSE_BYTES): only its first ${limit} were read`;
}

/** An answer as the checks see it. */
export function exchangeOf(
  operation: Operation,
  credentials: Credentials,
  request: OutgoingRequest,
  response: WireResponse,
  attempts: ThrottledAttempt[],
  limitBytes: number,
): Exchange {
  const contentType = headerValue(response, 'content-type') ?? '';
  const text = response.body.toString('utf8');
  const { announcedBytes } = response;
  const truncated = response.truncated
    ? { limitBytes, ...(announcedBytes !== undefined && { announcedBytes }) }
    : undefined;
  return {
    operation,
    credentials,
    request,
    status: response.status,
    contentType,
    text,
    body: truncated ? { kind: 'text', value: tooLargeMessage(limitBytes) } : parseBody(text, contentType),
    durationMs: response.durationMs,
    rawBody: response.body,
    sizeBytes: response.sizeBytes,
    ...(truncated && { truncated }),
    attempts,
  };
}

/** "4 × HTTP 429 (Retry-After: 1)": the throttled answers of a request, counted by status. */
export function throttleSummary(attempts: readonly ThrottledAttempt[], last: WireResponse): string {
  const all = [
    ...attempts.map((a) => ({ status: a.status, retryAfter: a.retryAfter })),
    { status: last.status, retryAfter: headerValue(last, 'retry-after') },
  ];
  const counts = new Map<number, number>();
  for (const a of all) counts.set(a.status, (counts.get(a.status) ?? 0) + 1);
  const statuses = [...counts].map(([status, n]) => `${n} × HTTP ${status}`).join(', ');
  const retryAfter = all.map((a) => a.retryAfter).find((v) => v !== undefined);
  return `${statuses}${retryAfter !== undefined ? `, Retry-After: ${printable(retryAfter, { maxChars: 40 })}` : ''}`;
}

/** The message of a request whose every attempt was throttled. */
export function throttledMessage(label: string, delivery: Extract<Delivery, { kind: 'throttled' }>): string {
  const why =
    delivery.gaveUp === 'time'
      ? "waiting longer would pass the test's time-out"
      : `RSF_MAX_RETRIES=${delivery.attempts.length} retries were spent`;
  return redact(
    `every attempt of ${label} was throttled (${throttleSummary(delivery.attempts, delivery.response)}); ${why}. ` +
      "A rate limit is the target's choice (§8), not a defect: lower RSF_MAX_REQUESTS_PER_SECOND, " +
      'or raise RSF_MAX_RETRIES and RSF_RETRY_MAX_WAIT_MS.',
  );
}

/** The message of a request that got no answer. */
export function noAnswerMessage(label: string, failure: NoAnswer, timeoutMs: number): string {
  return redact(`${label} got no answer: ${failure.message} (RSF_REQUEST_TIMEOUT_MS=${timeoutMs})`);
}

/** The message of a test stopped because the breaker is open. */
export function breakerMessage(trip: BreakerTrip): string {
  if (trip.cause === 'throttled') {
    const row = `${BREAKER_THRESHOLD} requests in a row`;
    return `the target throttled every attempt of ${row} from ${trip.since} on (last request: ${trip.lastRequest})`;
  }
  return `the target stopped answering at ${trip.since} (last request: ${trip.lastRequest})`;
}

/** The running test's info, or undefined outside a test. */
function runningTest(): TestInfo | undefined {
  try {
    return test.info();
  } catch {
    return undefined;
  }
}

/** Milliseconds the current test may still spend waiting on retries, keeping room for one more request. */
function testTimeLeft(info: TestInfo | undefined, startedAt: number, requestTimeoutMs: number): number {
  if (!info || info.timeout === 0) return Number.POSITIVE_INFINITY;
  return Math.max(0, info.timeout - (Date.now() - startedAt) - requestTimeoutMs - 2000);
}

/** One client per test; it records the test's exchanges so that failures can show them. */
export class ApiClient {
  readonly exchanges: Exchange[] = [];
  /** Requests of this client that were retried at least once (throttled). */
  retried = 0;
  /** The longest chain of this client's requests that waited for each other (the test's critical path). */
  chainLength = 0;
  /** The deepest chain among this client's requests that have completed. */
  private completedDepth = 0;
  private readonly startedAt = Date.now();
  /** The test this client serves: requests left running after it ended (a pool of sends) must not touch another. */
  private readonly owner = runningTest();
  /** Set once a request stopped the test unjudged: the test's other requests are not sent. */
  private stoppedBecause: string | undefined;
  /** Inside inOneStep: requests make no step of their own. */
  private batched = 0;

  /**
   * `apiBase`: where this client's requests go, the transport's unless a test is sent to a profile of its own.
   * `prefetched`: this test's declared requests, sent as its spec file started (prefetch.ts).
   */
  constructor(
    private readonly transport: Transport,
    private readonly apiBase = transport.apiBase,
    private readonly prefetched?: Prefetched,
  ) {}

  get config(): Config {
    return this.transport.config;
  }

  /**
   * How many requests of this test may be out at once: the transport's window against a target whose answers take a
   * while, or `whenNear` against one that answers quickly.
   */
  inFlightWindow(whenNear: number): number {
    return this.transport.inFlightWindow() || whenNear;
  }

  /**
   * Runs `work`, whose requests show in Playwright's report as one step titled `title` instead of a step each: a
   * property's hundred sampled inputs, sent ahead (each step costs the worker and the runner time, and says little).
   */
  async inOneStep<T>(title: string, work: () => Promise<T>): Promise<T> {
    const location = this.owner && { file: this.owner.file, line: this.owner.line, column: this.owner.column };
    const batch = async (): Promise<T> => {
      this.batched++;
      try {
        return await work();
      } finally {
        this.batched--;
      }
    };
    return location ? test.step(title, batch, { location }) : batch();
  }

  /** Sends operation `name` of §4, e.g. api.call('listPrices'). */
  call(name: OperationName, options: SendOptions = {}): Promise<Exchange> {
    return this.send(OPERATIONS[name], options);
  }

  /**
   * Sends `operation` and returns the answer, whatever its status. A test whose request could not be judged ends
   * here as skipped: inconclusive (every attempt throttled, or no answer) or not run (the breaker is open).
   */
  async send(operation: Operation, options: SendOptions = {}): Promise<Exchange> {
    const credentials = credentialsOf(operation, options);
    const request = outgoingRequest(operation, options, this.config, this.apiBase);
    const label = operationLabel(operation);
    this.refuseIfStopped(label);
    const depth = this.completedDepth + 1;
    const timeLeft = testTimeLeft(this.owner, this.startedAt, this.config.requestTimeoutMs);
    const sendItself = () => this.transport.deliver(request, timeLeft);
    const { prefetched } = this;
    const deliver = () => (prefetched ? prefetched.deliver(request, sendItself) : sendItself());
    // A step per request, as Playwright's own client made, for the HTML report; its title never holds a secret.
    const title = redact(printable(`${request.method} ${request.url}`, { maxChars: 300 }));
    // At the test's own line, as a boxed step would be, without capturing a source-mapped stack per request.
    const location = this.owner && { file: this.owner.file, line: this.owner.line, column: this.owner.column };
    const delivery = location && this.batched === 0 ? await test.step(title, deliver, { location }) : await deliver();
    if (delivery.attempts.length > 0) this.retried++;
    if (delivery.kind !== 'answer') this.refuseIfStopped(label);
    switch (delivery.kind) {
      case 'not-sent':
        return this.stop(stopAsNotRun, breakerMessage(delivery.trip));
      case 'no-answer':
        return this.stop(stopAsInconclusive, noAnswerMessage(label, delivery.failure, this.config.requestTimeoutMs));
      case 'throttled':
        return this.stop(stopAsInconclusive, throttledMessage(label, delivery));
      case 'answer': {
        const { response, attempts } = delivery;
        const exchange = exchangeOf(operation, credentials, request, response, attempts, this.config.maxResponseBytes);
        this.exchanges.push(exchange);
        this.completedDepth = Math.max(this.completedDepth, depth);
        this.chainLength = Math.max(this.chainLength, depth);
        return exchange;
      }
    }
  }

  /** Ends the test unjudged, once: a test whose requests ran side by side gets one reason, the first. */
  private stop(how: (reason: string) => never, reason: string): never {
    this.stoppedBecause = reason;
    return how(reason);
  }

  /** Throws instead of sending when the test has ended, or was already stopped unjudged. */
  private refuseIfStopped(label: string): void {
    if (this.owner && runningTest() !== this.owner) {
      throw new Error(`${label}: not sent, because the test that sent it has ended`);
    }
    if (this.stoppedBecause !== undefined) {
      resumeSkip();
      throw new Error(`${label}: not sent, because the test already stopped: ${this.stoppedBecause}`);
    }
  }
}

/**
 * What tells a request from any other, secrets included, without holding them: what a probe builds when it runs
 * is what was sent ahead for it (prefetch.ts) when the fingerprints are equal.
 */
export function requestFingerprint(request: OutgoingRequest): string {
  return createHash('sha256').update(JSON.stringify(request)).digest('hex');
}

/** Secrets shown as the environment variables that hold them ($RSF_BEARER_TOKEN…), so that a curl line still runs. */
export function withPlaceholders(text: string, config: Config): string {
  let out = text;
  for (const { name, value } of secretSettings(config)) out = replaceSecret(out, value, `$${name}`);
  return redact(out);
}

const shellQuote = (s: string): string => `"${s.replace(/(["\\`$])/g, '\\$1').replace(/\\\$(RSF_[A-Z_]+)/g, '$$$1')}"`;

/** Request bodies are ours, but fast-check makes odd ones: escaped and cut like anything else shown. */
const REQUEST_BODY_CHARS = 4000;

export function curlOf(exchange: Exchange, config: Config): string {
  const { method, url, headers, body } = exchange.request;
  const shown = (text: string): string =>
    shellQuote(printable(text, { maxChars: REQUEST_BODY_CHARS, transform: (t) => withPlaceholders(t, config) }));
  const parts = [`curl -sS -X ${method}`, shown(url)];
  for (const [name, value] of Object.entries(headers)) parts.push(`-H ${shown(`${name}: ${value}`)}`);
  if (body !== undefined) parts.push(`--data-raw ${shown(body)}`);
  return parts.join(' ');
}

/** The response body as printable, redacted text, cut with its total size given. */
export function bodyExcerpt(exchange: Exchange, maxChars?: number): string {
  if (exchange.rawBody.length === 0) return '(empty)';
  const { truncated } = exchange;
  const size = truncated
    ? { totalBytes: truncated.announcedBytes ?? truncated.limitBytes, atLeast: truncated.announcedBytes === undefined }
    : {};
  // Redacted before it is cut, so that a secret across the cut cannot leave half of itself.
  return printable(exchange.rawBody, {
    keepLineBreaks: true,
    transform: redact,
    ...(maxChars && { maxChars }),
    ...size,
  });
}

/** " (Retry-After: 1)", or nothing when the answer had none. */
const retryAfterNote = (retryAfter: string | undefined): string =>
  retryAfter === undefined ? '' : ` (Retry-After: ${printable(retryAfter, { maxChars: 40 })})`;

function throttleLine(attempts: readonly ThrottledAttempt[]): string {
  const each = attempts.map((a) => `HTTP ${a.status}${retryAfterNote(a.retryAfter)}, waited ${a.waitedMs} ms`);
  return `  retried after ${attempts.length} throttled answer${attempts.length === 1 ? '' : 's'}: ${each.join('; ')}`;
}

/** A redacted, printable account of an exchange for failure messages. */
export function describeExchange(exchange: Exchange, config: Config): string {
  const { method, url, headers, body } = exchange.request;
  const shown = (text: string, maxChars?: number): string =>
    printable(text, {
      keepLineBreaks: true,
      transform: (t) => withPlaceholders(t, config),
      ...(maxChars && { maxChars }),
    });
  const shownHeaders = Object.entries(headers).map(([k, v]) => `    ${shown(`${k}: ${v}`)}`);
  const size = exchange.truncated
    ? `, larger than ${exchange.truncated.limitBytes} bytes: not read whole`
    : `, ${exchange.sizeBytes} bytes`;
  const contentType = printable(exchange.contentType, { maxChars: 200 }) || '(none)';
  return [
    `  request:  ${shown(`${method} ${url}`)}  [credentials: ${exchange.credentials}]`,
    ...shownHeaders,
    body !== undefined ? `    body: ${shown(body, 1000)}` : '    (no body)',
    ...(exchange.attempts.length > 0 ? [throttleLine(exchange.attempts)] : []),
    `  response: HTTP ${exchange.status}  content-type: ${contentType}  (${exchange.durationMs} ms${size})`,
    `    body: ${bodyExcerpt(exchange)}`,
    `  reproduce: ${curlOf(exchange, config)}`,
  ].join('\n');
}

/** The redacted record of an exchange that goes into evidence attachments. */
export function recordOf(exchange: Exchange, config: Config): ExchangeRecord {
  const { method, url, headers, body } = exchange.request;
  const shown = (text: string, maxChars?: number): string =>
    printable(text, {
      keepLineBreaks: true,
      transform: (t) => withPlaceholders(t, config),
      ...(maxChars && { maxChars }),
    });
  return {
    request: {
      method,
      url: shown(url),
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, shown(v)])),
      ...(body !== undefined ? { body: shown(body, REQUEST_BODY_CHARS) } : {}),
    },
    response: {
      status: exchange.status,
      contentType: printable(exchange.contentType, { maxChars: 200 }),
      bodyExcerpt: bodyExcerpt(exchange),
    },
    curl: curlOf(exchange, config),
    ...(exchange.attempts.length > 0 && {
      attempts: exchange.attempts.map((a) => ({
        ...a,
        ...(a.retryAfter !== undefined && { retryAfter: printable(a.retryAfter, { maxChars: 40 }) }),
      })),
    }),
  };
}
