// Latency hidden by Playwright's public API. A worker runs a spec file's tests in order (fullyParallel is off), and
// most of them send requests that wait for nothing before them: a probe its one request, a link its write (and then
// the read built from its answer). These are declared as data (probe(), link()). When a worker starts a spec file,
// it sends the declared requests of every test of that file the run will run, as many at once as the transport's
// window allows, and each test then takes its own answers, recorded exactly as if it had sent them (ApiClient.send).
// Against a near target this costs nothing; against a far one a file waits about one round trip instead of one per
// test.
//
// Which tests the run will run (after grep, shards, projects, skips) the worker learns from the plan that the plan
// reporter wrote at onBegin (plan-reporter.ts), before any worker started. A test of the plan is found among the
// declarations of its file by its title and tags; a title and tags that two tests of a file share are not sent
// ahead (each of those tests sends its own).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Exchange, OutgoingRequest, SendOptions } from '../http/exchange';
import type { Prefetched } from './api-client';
import type { Transport } from '../http/transport';
import type { Delivery } from '../http/delivery';
import { credentialsOf, outgoingRequest, requestFingerprint } from '../http/request';
import { exchangeOf } from '../http/exchange';
import type { Config } from '../config/config';
import type { RequestContext } from '../model/body-rules';
import { OPERATIONS, type OperationName } from '../model/operations';
import { skippedAsWrite } from '../checks/write-safety';

const PLAN_FILE = 'prefetch-plan.json';
/**
 * Requests out at once while the target's answers are quick: the next test's, while a test is judged. More would
 * teach nothing sooner (the run is bound by CPU), and would each be one more request to a target that dies mid-run.
 */
export const NEAR_WINDOW = 1;

/** A request a test sends, as declared: which operation, and how. */
export interface DeclaredRequest {
  operation: OperationName;
  options: SendOptions;
}

/** What a test sends that waits for nothing before it, as declared. */
export type DeclaredRequests = (ctx: RequestContext) => DeclaredRequest[];

/** What a chain sends once its declared requests are answered: a link's read of what its write did. */
export type FollowUp = (ctx: RequestContext, answers: readonly Exchange[]) => DeclaredRequest[];

interface Declaration {
  title: string;
  tags: readonly string[];
  requests: DeclaredRequests;
  followUp?: FollowUp;
}

/** A test the run will run, as the plan reporter saw it. */
export interface PlannedTest {
  project: string;
  title: string;
  tags: string[];
  /** Skipped as it is declared (test.skip, test.fixme): never sent. */
  skipped?: boolean;
}

/** The run's tests by spec file (absolute path), in the order a worker runs them. */
export type Plan = Record<string, PlannedTest[]>;

const keyOf = (title: string, tags: readonly string[]): string => JSON.stringify([title, [...tags].sort()]);

/** Declarations of the spec files this process loaded, in load order; those not yet claimed by a file follow. */
const declarations: Declaration[] = [];
let claimed = 0;

/** Called as a test is declared (probe(), link()): its requests, found again by its title and tags. */
export function declareRequests(
  title: string,
  tags: readonly string[],
  requests: DeclaredRequests,
  followUp?: FollowUp,
): void {
  declarations.push({ title, tags, requests, ...(followUp && { followUp }) });
}

/** For the plan reporter, at onBegin: the plan, in the run directory, where the workers look for it. */
export function writePlan(dir: string, plan: Plan): void {
  writeFileSync(join(dir, PLAN_FILE), JSON.stringify(plan));
}

/** The plan of the run whose directory is `dir`; empty without one (a run without the plan reporter). */
export function readPlan(dir: string | undefined): Plan {
  if (!dir) return {};
  try {
    return JSON.parse(readFileSync(join(dir, PLAN_FILE), 'utf8')) as Plan;
  } catch {
    return {};
  }
}

/** Where a test's requests go: the transport's target, or the profile its tags send it to (the mutation matrix). */
export type ApiBaseFor = (tags: readonly string[]) => string | undefined;

interface Queued {
  request: OutgoingRequest;
  settle: (delivery: Promise<Delivery>) => void;
}

/** The test that asks for its answers: its file, project, title and tags (Playwright's TestInfo has them all). */
export interface TestIdentity {
  file: string;
  project: string;
  title: string;
  tags: readonly string[];
  /** Its time-out: a request sent for it may spend as long as the test would on throttled retries. */
  timeout: number;
}

/** One per worker: the answers to the declared requests of the spec files it runs. */
export class Prefetcher {
  private readonly plan: Plan;
  private readonly startedFiles = new Set<string>();
  private readonly queue: Queued[] = [];
  /** Per test (by key), the deliveries of its requests sent or queued for it, by request fingerprint. */
  private readonly sent = new Map<string, Map<string, Promise<Delivery>>>();
  /** Per test (by key), its chain's follow-up being built: the test waits for it before it sends its own. */
  private readonly chains = new Map<string, Promise<void>>();
  private inFlight = 0;
  private maxWaitMs = Number.POSITIVE_INFINITY;

  constructor(
    private readonly transport: Transport,
    private readonly config: Config,
    private readonly ctx: RequestContext,
    runDir: string | undefined,
  ) {
    this.plan = readPlan(runDir);
  }

  /**
   * At the start of a test: the first test of a file sends the declared requests of the file's planned tests (of its
   * own project); then the test gets those sent for it, by fingerprint, and sends the rest itself.
   */
  testStarts(test: TestIdentity, apiBaseFor: ApiBaseFor): Prefetched | undefined {
    if (test.timeout > 0) this.maxWaitMs = Math.max(0, test.timeout - this.config.requestTimeoutMs - 2000);
    if (!this.startedFiles.has(test.file)) this.startFile(test, apiBaseFor);
    return this.take(keyOf(test.title, test.tags));
  }

  private startFile(test: TestIdentity, apiBaseFor: ApiBaseFor): void {
    this.startedFiles.add(test.file);
    // The declarations made since the last file started are this file's: a worker loads a spec file, then runs it.
    const own = declarations.slice(claimed);
    claimed = declarations.length;
    for (const planned of this.plan[test.file] ?? []) {
      if (planned.project !== test.project || planned.skipped) continue;
      if (skippedAsWrite(this.config.writesEnabled, planned.tags)) continue;
      const key = keyOf(planned.title, planned.tags);
      // A test's tags are its declared ones and those of its describes; one match, or the test sends its own.
      const [declaration, ...more] = own.filter(
        (d) => d.title === planned.title && d.tags.every((tag) => planned.tags.includes(tag)),
      );
      if (more.length > 0) continue;
      const apiBase = apiBaseFor(planned.tags);
      if (!declaration || apiBase === undefined || this.sent.has(key)) continue;
      const declared = declaration.requests(this.ctx);
      const deliveries = this.enqueue(key, this.build(declared, apiBase));
      if (declaration.followUp && deliveries.length === declared.length)
        this.chain(key, declared, deliveries, declaration.followUp, apiBase);
    }
    this.pump();
  }

  /** Requests as the test would build them; none when they cannot be built (the test builds them, and says why). */
  private build(declared: readonly DeclaredRequest[], apiBase: string): OutgoingRequest[] {
    try {
      return declared.map(({ operation, options }) =>
        outgoingRequest(OPERATIONS[operation], options, this.config, apiBase),
      );
    } catch {
      return [];
    }
  }

  /** Queues requests for the test of `key`; their deliveries can be awaited at once (they settle once sent). */
  private enqueue(key: string, requests: readonly OutgoingRequest[], first = false): Promise<Delivery>[] {
    const sent = this.sent.get(key) ?? new Map<string, Promise<Delivery>>();
    this.sent.set(key, sent);
    const items: Queued[] = [];
    const deliveries = requests.map((request) => {
      const delivery = new Promise<Delivery>((resolve) => items.push({ request, settle: resolve }));
      sent.set(requestFingerprint(request), delivery);
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
      const exchanges = all.map((delivery, i) => {
        const item = declared[i] as DeclaredRequest;
        if (delivery.kind !== 'answer') throw new Error('not answered');
        const operation = OPERATIONS[item.operation];
        const request = outgoingRequest(operation, item.options, this.config, apiBase);
        const credentials = credentialsOf(operation, item.options);
        return exchangeOf(operation, credentials, request, delivery.response, [], this.config.maxResponseBytes);
      });
      this.enqueue(key, this.build(followUp(this.ctx, exchanges), apiBase), true);
      this.pump();
    });
    // Not answered: the test sends its read itself, and judges why.
    this.chains.set(
      key,
      built.catch(() => undefined),
    );
  }

  /** A test's answers: the delivery of a request sent for it, once; else what it sends itself. */
  private take(key: string): Prefetched | undefined {
    const sent = this.sent.get(key);
    if (!sent) return undefined;
    const chain = this.chains.get(key);
    const takeOrSend = (fingerprint: string, sendItself: () => Promise<Delivery>): Promise<Delivery> => {
      const delivery = sent.get(fingerprint);
      sent.delete(fingerprint);
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
