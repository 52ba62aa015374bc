// The client a test sends its requests with: one Playwright step per request, and a test whose request could not
// be judged (throttled, unanswered, a gateway's error, a firewall's page, a proxy's 407, a sign-in redirect, breaker
// open) ends here as skipped, the answer attached for the report. The requests travel in src/http.
import { type TestInfo, test } from '@playwright/test';
import { type Config, secretSettings } from '../config/config';
import { SIZE_REFUSALS, UNJUDGED_ANSWER_ATTACHMENT } from '../checks/check-protocol';
import type { Delivery } from '../http/delivery';
import { type Credentials, type Exchange, type OutgoingRequest, type SendOptions, exchangeOf } from '../http/exchange';
import {
  answeredInFront,
  breakerMessage,
  noAnswerMessage,
  recordOf,
  refusedBeforeTheDataMessage,
  refusedWholesaleMessage,
  throttledMessage,
  unavailableMessage,
  tooLargeUnjudgedMessage,
} from '../http/presentation';
import { redact } from '../http/redact';
import { credentialsOf, outgoingRequest } from '../http/request';
import type { Transport } from '../http/transport';
import { OPERATIONS, type Operation, type OperationName, operationLabel } from '../model/operations';
import { printable } from '../model/printable';
import { asStep } from './steps';
import { resumeSkip, stopAsInconclusive, stopAsInterrupted, stopAsNotRun } from './unjudged';
import {
  answeredAsAnonymous,
  currentBearerToken,
  onTokenRefused,
  recordRefusedWholesale,
  refusedWholesaleReason,
  refusesAuthentication,
  tokenRefusedReason,
} from './bearer-token';
import { documentsErrors, inNoDocumentedErrorShape, outcomeOf, refusedBeforeTheData } from '../checks/outcome';
import { validBodies } from '../model/bodies';
import { type RequestContext, VALID_WRITES } from '../model/body-rules';

/** A test's requests sent before it ran: the delivery of `request` if it was sent (once), else `sendItself`'s. */
export interface Prefetched {
  deliver(request: OutgoingRequest, sendItself: () => Promise<Delivery>): Promise<Delivery>;
}

/** Keeps a delivery for the run's recording (reports/exchanges.har), with the test that sent it. */
export type RecordExchange = (
  request: OutgoingRequest,
  delivery: Delivery,
  credentials: Credentials,
  test: TestInfo | undefined,
) => void;

/** The configuration each exchange was sent under, for `expect`'s matchers (matchers.ts), which see no fixture. */
const sentUnder = new WeakMap<Exchange, Config>();

/** The configuration an ApiClient sent `exchange` under, or undefined for an exchange it did not send. */
export function configOf(exchange: Exchange): Config | undefined {
  return sentUnder.get(exchange);
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

/** Fresh tokens one request may be sent again with. */
const MAX_TOKEN_RENEWALS = 3;

/** When GET /prices last answered with the token in this process (pricesForbiddenNow), and how long that stands. */
let pricesAcceptedAt = 0;
const PRICES_ACCEPTED_FOR_MS = 1000;

/** One client per test; it records the test's exchanges so that failures can show them. */
export class ApiClient {
  readonly exchanges: Exchange[] = [];
  /** Requests of this client that were retried at least once after a throttled answer. */
  retried = 0;
  /** Transient gateway errors (502, 503 without Retry-After, 504, 52x) this client's requests got and sent again. */
  transient = 0;
  /** Answers refused for the request's size (SIZE_REFUSALS, or countRefusedForSize): their samples are not judged. */
  sizeRefused = 0;
  /** The longest chain of this client's requests that waited for each other (the test's critical path). */
  chainLength = 0;
  /** The deepest chain among this client's requests that have completed. */
  private completedDepth = 0;
  /** Whether this test sent a request itself, not answered from those sent ahead. */
  private sentOwn = false;
  private readonly startedAt = Date.now();
  /** The test this client serves: requests left running after it ended (a pool of sends) must not touch another. */
  private readonly owner = runningTest();
  /** Set once a request stopped the test unjudged: the test's other requests are not sent. */
  private stoppedBecause: string | undefined;
  /** Inside inOneStep: requests make no step of their own. */
  private batched = 0;
  /** Per operation, whether the control of validWriteTaken, sent once in this test, was carried out. */
  private readonly validWrites = new Map<Operation, Promise<boolean>>();

  /**
   * `settings`: the configuration the transport was made from.
   * `apiBase`: where this client's requests go, the transport's unless a test is sent to a profile of its own.
   * `prefetched`: this test's declared requests, sent as its spec file started (prefetch.ts).
   * `record`: keeps each delivery for reports/exchanges.har (issue 24), throttled attempts and failures included.
   */
  constructor(
    private readonly transport: Transport,
    private readonly settings: Config,
    private readonly apiBase = transport.apiBase,
    private readonly prefetched?: Prefetched,
    private readonly record?: RecordExchange,
  ) {}

  get config(): Config {
    return this.settings;
  }

  /**
   * How many requests of this test may be out at once: the transport's window against a target whose answers take a
   * while, or up to `whenNear` against one that answers quickly (Limiter.nearWindow).
   */
  inFlightWindow(whenNear: number): number {
    return this.transport.inFlightWindow() || this.transport.nearWindow(whenNear);
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
    return location ? asStep(title, batch, location) : batch();
  }

  /** Sends operation `name` of §4, e.g. api.call('listPrices'). */
  call(name: OperationName, options: SendOptions = {}): Promise<Exchange> {
    return this.send(OPERATIONS[name], options);
  }

  /**
   * Sends operation `name` after every request this test sent: its answer sent ahead (the follow-up of the test's
   * declared requests) stands only if the test sent none itself, since that one left before them.
   */
  callAfterOwnRequests(name: OperationName, options: SendOptions = {}): Promise<Exchange> {
    return this.send(OPERATIONS[name], options, 0, this.sentOwn);
  }

  /**
   * Sends `operation` and returns the answer, whatever its status. A test whose request could not be judged ends
   * here as skipped: inconclusive (every attempt throttled or a gateway's error, no answer, or a firewall's page) or
   * not run (the breaker is open).
   * `notAhead`: sent now, whatever answer was sent ahead for it (callAfterOwnRequests).
   */
  async send(operation: Operation, options: SendOptions = {}, renewals = 0, notAhead = false): Promise<Exchange> {
    const credentials = credentialsOf(operation, options);
    const token = currentBearerToken(this.config.bearerToken);
    const request = outgoingRequest(operation, options, { ...this.config, bearerToken: token }, this.apiBase);
    const label = operationLabel(operation);
    this.refuseIfStopped(label);
    const refused = refusedWholesaleReason() ?? (credentials === 'valid' ? tokenRefusedReason() : undefined);
    if (refused !== undefined) return this.stop(stopAsNotRun, refused);
    const waitedFor = this.completedDepth;
    const timeLeft = testTimeLeft(this.owner, this.startedAt, this.config.requestTimeoutMs);
    // An answer sent ahead (prefetch.ts) waited for none of this test's requests: only one it sends adds to its chain.
    let wentOut = false;
    const sendNow = () => {
      wentOut = true;
      this.sentOwn = true;
      return this.transport.deliver(request, timeLeft);
    };
    const { prefetched } = this;
    const deliver = () => (prefetched && !notAhead ? prefetched.deliver(request, sendNow) : sendNow());
    // A step per request, as Playwright's own client made, where a reporter shows it (steps.ts); its title never
    // holds a secret.
    const title = redact(printable(`${request.method} ${request.url}`, { maxChars: 300 }));
    // At the test's own line, as a boxed step would be, without capturing a source-mapped stack per request.
    const location = this.owner && { file: this.owner.file, line: this.owner.line, column: this.owner.column };
    const delivery = location && this.batched === 0 ? await asStep(title, deliver, location) : await deliver();
    this.record?.(request, delivery, credentials, this.owner);
    const transient = delivery.attempts.filter((a) => a.transient).length;
    if (delivery.attempts.length > transient) this.retried++;
    this.transient += transient;
    if (delivery.kind === 'answer' && SIZE_REFUSALS.has(delivery.response.status)) this.sizeRefused++;
    if (delivery.kind !== 'answer') this.refuseIfStopped(label);
    switch (delivery.kind) {
      case 'not-sent':
        return this.stop(stopAsNotRun, breakerMessage(delivery.trip));
      case 'no-answer':
        // A replay without this request: nothing was sent, so nothing is judged (issue 24, item 2).
        if (delivery.failure.kind === 'stopped-in-recording') return this.stop(stopAsNotRun, delivery.failure.message);
        if (delivery.failure.kind === 'not-recorded')
          return this.stop(stopAsInconclusive, `not in the recording (${label})`);
        if (delivery.failure.kind === 'interrupted')
          return this.stop(stopAsInterrupted, `${label}: ${delivery.failure.message}`);
        return this.stop(stopAsInconclusive, noAnswerMessage(label, delivery.failure, this.config.requestTimeoutMs));
      case 'throttled':
        return this.stop(stopAsInconclusive, throttledMessage(label, delivery));
      case 'unavailable':
        return this.stop(stopAsInconclusive, unavailableMessage(label, delivery));
      case 'answer': {
        const { response, attempts } = delivery;
        const exchange = exchangeOf(operation, credentials, request, response, attempts, this.config.maxResponseBytes);
        if (credentials === 'valid' && (refusesAuthentication(exchange) || answeredAsAnonymous(exchange))) {
          const renewal = await onTokenRefused({
            configured: this.config.bearerToken,
            refused: token,
            command: this.config.bearerTokenCommand,
            request: label,
            answer: exchange,
            pricesRefuse: () => this.pricesRefuse(token),
          });
          if (renewal.kind === 'refused') return this.stop(stopAsNotRun, renewal.reason);
          // Sent once more with the fresh token. Parallel senders may use a short-lived token up before the resend
          // arrives: again while GET /prices confirms the expiry, a bounded number of times; then the checks judge.
          if (renewal.kind === 'token' && renewals < MAX_TOKEN_RENEWALS)
            return this.send(operation, options, renewals + 1, notAhead);
        }
        // A 403 in no documented shape may be what stands in front of the API refusing the run from now on (a quota,
        // a firewall's rate-based rule): then the price list, which the preflight saw answered, is refused too.
        if (exchange.status === 403 && inNoDocumentedErrorShape(exchange) && (await this.pricesForbiddenNow())) {
          await this.attachAnswer(exchange);
          return this.stop(stopAsNotRun, recordRefusedWholesale(refusedWholesaleMessage(label, exchange)));
        }
        this.exchanges.push(exchange);
        sentUnder.set(exchange, this.settings);
        const unjudged = await this.unjudgedBecause(label, exchange);
        if (unjudged !== undefined) {
          await this.attachAnswer(exchange);
          return this.stop(stopAsInconclusive, unjudged);
        }
        const depth = wentOut ? waitedFor + 1 : waitedFor;
        this.completedDepth = Math.max(this.completedDepth, depth);
        this.chainLength = Math.max(this.chainLength, depth);
        // A body over the cap is no evidence either way: what needs it is inconclusive (README, HTTP client).
        if (response.truncated) {
          await this.attachAnswer(exchange);
          return this.stop(stopAsInconclusive, tooLargeUnjudgedMessage(label, response, this.config.maxResponseBytes));
        }
        return exchange;
      }
    }
  }

  /**
   * GET /prices with `token`, which the preflight saw answered: its exchange, or undefined when no answer came.
   * Recorded, so that a replay of this test asks the recording alike.
   */
  private async askPrices(token: string): Promise<Exchange | undefined> {
    const operation = OPERATIONS.listPrices;
    const request = outgoingRequest(operation, {}, { ...this.config, bearerToken: token }, this.apiBase);
    const delivery = await this.transport.deliver(request, this.config.requestTimeoutMs);
    this.record?.(request, delivery, 'valid', this.owner);
    if (delivery.kind !== 'answer') return undefined;
    return exchangeOf(operation, 'valid', request, delivery.response, delivery.attempts, 4096);
  }

  /** GET /prices with `token`: does it refuse authentication too? Undefined when no answer tells. */
  private async pricesRefuse(token: string): Promise<boolean | undefined> {
    const prices = await this.askPrices(token);
    return prices && refusesAuthentication(prices);
  }

  /**
   * GET /prices with the token: is it forbidden now (HTTP 403; a 401 is the token's, which onTokenRefused deals
   * with)? An answer that accepts it stands for a second in this process: the target's own 403s (to another account's
   * product, say) cost one more request a second at most. A replay asks the recording each time, as the run may have
   * asked the target.
   */
  private async pricesForbiddenNow(): Promise<boolean> {
    if (this.config.recording === '' && Date.now() - pricesAcceptedAt < PRICES_ACCEPTED_FOR_MS) return false;
    const prices = await this.askPrices(currentBearerToken(this.config.bearerToken));
    if (prices === undefined) return false;
    if (prices.status !== 403) pricesAcceptedAt = Date.now();
    return prices.status === 403;
  }

  /** Why an answer is none of the API's to judge, or undefined when it is the API's. */
  private async unjudgedBecause(label: string, exchange: Exchange): Promise<string | undefined> {
    // A firewall's page, a gateway's page served with 200, a sign-in redirect or a proxy's 407 in place of the API's
    // answer: judging it would blame the API, or pass it, for what stands in front of it.
    const inFront = answeredInFront(label, exchange, this.config.proxy);
    if (inFront !== undefined) return inFront;
    if (!refusedBeforeTheData(exchange)) return undefined;
    const control = await this.validWriteControl(exchange);
    if (control === 'taken') return undefined;
    return refusedBeforeTheDataMessage(label, exchange, { validRequestRefused: control === 'refused' });
  }

  /**
   * A write's 403 where the operation shows no error body (§7.4) may be the API's own refusal of the data, in any
   * shape (RFC 9110 allows it), rather than the account's rights: it is, if the operation's valid request (its
   * success test's), sent with the same token, is carried out. Only with writes on, the control being a write; and
   * only there, since a 403 in no documented shape where the spec shows the errors may still be a firewall's.
   */
  private async validWriteControl(exchange: Exchange): Promise<'taken' | 'refused' | 'not sent'> {
    const { operation, request, status } = exchange;
    const valid = validWriteOf(operation);
    const applies = status === 403 && request.body !== undefined && !documentsErrors(operation);
    if (!(applies && valid && this.config.writesEnabled)) return 'not sent';
    return (await this.validWriteTaken(operation, valid)) ? 'taken' : 'refused';
  }

  /**
   * Sends `operation`'s valid request (its success test's) with the token: is it carried out? Asked once per test and
   * recorded in it, so that a replay asks the recording alike.
   */
  private validWriteTaken(operation: Operation, valid: ValidWrite): Promise<boolean> {
    let taken = this.validWrites.get(operation);
    if (taken === undefined) {
      taken = this.askValidWrite(operation, valid);
      this.validWrites.set(operation, taken);
    }
    return taken;
  }

  private async askValidWrite(operation: Operation, valid: ValidWrite): Promise<boolean> {
    const options = valid({ bodies: validBodies(this.config), config: this.config });
    const token = currentBearerToken(this.config.bearerToken);
    const request = outgoingRequest(operation, options, { ...this.config, bearerToken: token }, this.apiBase);
    const delivery = await this.transport.deliver(request, this.config.requestTimeoutMs);
    this.record?.(request, delivery, 'valid', this.owner);
    if (delivery.kind !== 'answer') return false;
    const { response, attempts } = delivery;
    const control = exchangeOf(operation, 'valid', request, response, attempts, this.config.maxResponseBytes);
    return outcomeOf(control, this.config).succeeded;
  }

  /** Attaches the answer that stops the test unjudged, for the report to show with the reason. */
  private async attachAnswer(exchange: Exchange): Promise<void> {
    const body = JSON.stringify(recordOf(exchange, secretSettings(this.config)));
    await this.owner?.attach(UNJUDGED_ANSWER_ATTACHMENT, { body, contentType: 'application/json' });
  }

  /** Counts an answer refused for its size though not by its status: its sample is not judged (property.ts). */
  countRefusedForSize(): void {
    this.sizeRefused++;
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

type ValidWrite = (ctx: RequestContext) => SendOptions;

/** The valid request of `operation`, the control of a write refused before its data, where the model has one. */
function validWriteOf(operation: Operation): ValidWrite | undefined {
  const writes: [string, ValidWrite][] = Object.entries(VALID_WRITES);
  return writes.find(([name]) => OPERATIONS[name as OperationName] === operation)?.[1];
}
