// Latency hidden by Playwright's public API. Most tests send requests that wait for nothing before them: a probe its
// one request, a link its write (and then the read built from its answer), a property the inputs it samples. These
// are declared as data (probe(), link(), property()), each under a key its test carries as an annotation, and sent
// ahead of their tests; each test then takes its own answers, recorded exactly as if it had sent them (ApiClient).
// Two senders share the work, as the plan says (plan-reporter.ts, at onBegin: the tests the run runs):
// - without a rate cap, the runner sends them all as the run begins (runner-prefetch.ts), and a worker asks it for
//   its test's answers; once the runner has stopped for a quick target, only for the tests it sent a request for,
//   and the worker sends the others' itself, as under a cap;
// - under a cap, which the workers share, a worker sends a spec file's declared requests as the file starts (but for
//   a file that shares its tests out one by one: each of its tests sends its own).
import type { Prefetched } from './api-client';
import type { Transport } from '../http/transport';
import type { Delivery } from '../http/delivery';
import type { OutgoingRequest } from '../http/exchange';
import { requestFingerprint } from '../http/request';
import type { TargetConfig } from '../config/settings/target';
import {
  type ApiBaseFor,
  type DeclaredRequest,
  type FollowUp,
  type Plan,
  type RequestContext,
  buildRequests,
  declarationOf,
  exchangesOf,
  readPlan,
  sendsAhead,
} from './declarations';
import { answersFromRunner } from './runner-prefetch';

/**
 * Requests out at once while the target's answers are quick: the next test's, while a test is judged. More would
 * teach nothing sooner (the run is bound by CPU), and would each be one more request to a target that dies mid-run.
 */
export const NEAR_WINDOW = 1;

interface Queued {
  request: OutgoingRequest;
  settle: (delivery: Promise<Delivery>) => void;
}

/** The test that asks for its answers (Playwright's TestInfo has all of it). */
export interface TestIdentity {
  file: string;
  project: string;
  /** Its declared requests' key (its annotation). */
  key?: string;
  /** Its time-out: a request sent for it may spend as long as the test would on throttled retries. */
  timeout: number;
}

/** One per worker: the answers to the declared requests of its tests, from the runner or sent by the worker. */
export class Prefetcher {
  private readonly plan: Plan;
  private readonly startedFiles = new Set<string>();
  private readonly queue: Queued[] = [];
  /**
   * Per test (by key), the deliveries of its requests sent or queued for it, by request fingerprint: one each time the
   * test declared the request, in the order it did.
   */
  private readonly sent = new Map<string, Map<string, Promise<Delivery>[]>>();
  /** Per test (by key), its chain's follow-up being built: the test waits for it before it sends its own. */
  private readonly chains = new Map<string, Promise<void>>();
  private inFlight = 0;
  private maxWaitMs = Number.POSITIVE_INFINITY;
  /** Once the runner said it stopped: the tests it sent a request for, the only ones it is still asked about. */
  private runnerSentFor: ReadonlySet<string> | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly config: TargetConfig,
    private readonly ctx: RequestContext,
    private readonly runDir: string | undefined,
  ) {
    this.plan = readPlan(runDir);
  }

  /** At the start of a test: its answers, from the runner or from its file's requests sent ahead. */
  async testStarts(test: TestIdentity, apiBaseFor: ApiBaseFor): Promise<Prefetched | undefined> {
    if (test.key === undefined) return undefined;
    if (this.plan.runnerSends && (this.runnerSentFor === undefined || this.runnerSentFor.has(test.key))) {
      const askSentFor = this.runnerSentFor === undefined;
      const fromRunner = this.runDir
        ? await answersFromRunner(this.runDir, test.key, test.timeout, askSentFor)
        : undefined;
      if (fromRunner?.sentFor) {
        // The runner stopped: this worker sends the rest of its files' requests, the next test's as this one runs.
        this.runnerSentFor = fromRunner.sentFor;
        this.sendsOwn(test, apiBaseFor, 'after it');
      }
      return fromRunner && this.taking(fromRunner.sent);
    }
    if (!this.sendsOwn(test, apiBaseFor)) return undefined;
    const sent = this.sent.get(test.key);
    return sent && this.taking(sent, this.chains.get(test.key));
  }

  /**
   * Sends the declared requests of the test's file from this test on (or from the next), unless the file's were sent
   * already; false when its tests are shared out.
   */
  private sendsOwn(test: TestIdentity, apiBaseFor: ApiBaseFor, from: 'it' | 'after it' = 'it'): boolean {
    // Its file's tests are shared out among the workers: which of them this worker runs, only Playwright knows.
    if (this.plan.sharedOut?.includes(test.file)) return false;
    if (test.timeout > 0) this.maxWaitMs = Math.max(0, test.timeout - this.config.requestTimeoutMs - 2000);
    if (!this.startedFiles.has(test.file)) this.startFile(test, apiBaseFor, from);
    return true;
  }

  /**
   * The first test of a file this worker runs sends the declared requests of the file's planned tests (of its own
   * project) from its own on: those before it ran in a worker that ended (a worker runs a file's tests in order).
   * After the runner stopped, not those it sent a request for.
   */
  private startFile(test: TestIdentity, apiBaseFor: ApiBaseFor, from: 'it' | 'after it'): void {
    this.startedFiles.add(test.file);
    const ofProject = (this.plan.files[test.file] ?? []).filter((planned) => planned.project === test.project);
    const at = ofProject.findIndex((planned) => planned.key === test.key);
    for (const planned of ofProject.slice(at === -1 ? 0 : from === 'it' ? at : at + 1)) {
      const declaration = declarationOf(planned.key);
      if (!planned.key || !declaration || this.runnerSentFor?.has(planned.key)) continue;
      if (!sendsAhead(planned, this.config) || this.sent.has(planned.key)) continue;
      const apiBase = apiBaseFor(planned.tags);
      if (apiBase === undefined) continue;
      const declared = declaration.requests(this.ctx);
      const deliveries = this.enqueue(planned.key, buildRequests(declared, this.config, apiBase));
      if (declaration.followUp && deliveries.length === declared.length)
        this.chain(planned.key, declared, deliveries, declaration.followUp, apiBase);
    }
    this.pump();
  }

  /** Queues requests for the test of `key`; their deliveries can be awaited at once (they settle once sent). */
  private enqueue(key: string, requests: readonly OutgoingRequest[], first = false): Promise<Delivery>[] {
    const sent = this.sent.get(key) ?? new Map<string, Promise<Delivery>[]>();
    this.sent.set(key, sent);
    const items: Queued[] = [];
    const deliveries = requests.map((request) => {
      const delivery = new Promise<Delivery>((resolve) => items.push({ request, settle: resolve }));
      const fingerprint = requestFingerprint(request);
      sent.set(fingerprint, [...(sent.get(fingerprint) ?? []), delivery]);
      return delivery;
    });
    if (first) this.queue.unshift(...items);
    else this.queue.push(...items);
    return deliveries;
  }

  /** A link's read is built from the answers to its write, and sent as soon as they come, first in the queue. */
  private chain(
    key: string,
    declared: readonly DeclaredRequest[],
    deliveries: readonly Promise<Delivery>[],
    followUp: FollowUp,
    apiBase: string,
  ): void {
    const built = Promise.all(deliveries).then((all) => {
      const exchanges = exchangesOf(declared, all, this.config, apiBase);
      this.enqueue(key, buildRequests(followUp(this.ctx, exchanges), this.config, apiBase), true);
      this.pump();
    });
    // Not answered: the test sends its read itself, and judges why.
    this.chains.set(
      key,
      built.catch(() => undefined),
    );
  }

  /**
   * A test's answers by fingerprint, each taken once, in the order they were declared (a property's restore may be
   * one of its inputs: its answer is the later); what is not there the test sends itself.
   */
  private taking(sent: Map<string, Promise<Delivery>[]>, chain?: Promise<void>): Prefetched {
    const takeOrSend = (fingerprint: string, sendItself: () => Promise<Delivery>): Promise<Delivery> => {
      const deliveries = sent.get(fingerprint);
      const delivery = deliveries?.shift();
      if (deliveries?.length === 0) sent.delete(fingerprint);
      return delivery ?? sendItself();
    };
    return {
      deliver: (request, sendItself) => {
        const fingerprint = requestFingerprint(request);
        if (sent.has(fingerprint) || !chain) return takeOrSend(fingerprint, sendItself);
        return chain.then(() => takeOrSend(fingerprint, sendItself));
      },
    };
  }

  /** Sends queued requests while fewer than the transport's window are out (an open breaker answers at once). */
  private pump(): void {
    const window = this.transport.inFlightWindow() || NEAR_WINDOW;
    while (this.queue.length > 0 && this.inFlight < window) {
      const { request, settle } = this.queue.shift() as Queued;
      const delivery = this.transport.deliver(request, this.maxWaitMs);
      settle(delivery);
      this.inFlight++;
      const done = (): void => {
        this.inFlight--;
        this.pump();
      };
      delivery.then(done, done);
    }
  }
}
