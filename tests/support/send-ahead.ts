// Send-ahead: a worker runs the tests of a spec file in order, one at a time, and most of them are probes, one request
// each that depends on nothing before it. Against a far target (RSF_TARGET_DISTANCE) a worker would spend the run
// waiting on one answer after another, so while a test runs, the worker sends the requests of the probes that follow
// it in its group, as many as the target's latency and the rate cap make useful (Transport.sendAheadWindow). Each
// probe then judges its own exchange, recorded exactly as if it had sent it (ApiClient.send).
//
// Only tests the run will run are sent ahead: the runner writes the plan (its filtered tests, grouped as Playwright
// hands them to a worker) into the run directory at onBegin, and a probe of the plan is found again in the worker by
// its declaration key (spec file and declaration order), the same in every process that loads the file.
//
// Two things here are Playwright's, not in its public types: a TestCase keeps its function as `fn` (how the runner
// tells a probe), and a describe's mode is `_parallelMode`. Were `fn` renamed, nothing would be sent ahead, and
// tests/self/send-ahead.spec.ts, which counts the requests out at once, would fail; were `_parallelMode`, a probe in a
// parallel describe (there is none) could be sent ahead by a worker that does not run it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { TestInfo } from '@playwright/test';
import type { FullConfig, Suite, TestCase } from '@playwright/test/reporter';
import type { ValidBodies } from './bodies';
import { validBodies } from './bodies';
import type { RequestContext } from './body-rules';
import type { Config } from './config';
import { type Delivery, type OutgoingRequest, type SendOptions, type Transport, outgoingRequest } from './http';
import { OPERATIONS, type OperationName } from './operations';
import { RUN_STATE_ENV } from './run-state';
import { skippedAsWrite } from './write-safety';

const ROOT = resolve(__dirname, '../..');
const PLAN_FILE = 'send-ahead-plan.json';

/** What a probe sends, as declared: enough to build its request outside its test. */
export interface DeclaredRequest {
  operation: OperationName;
  request: (ctx: RequestContext) => SendOptions;
}

interface Declared extends DeclaredRequest {
  key: string;
}

/** A test of the plan: its probe's declaration key, or none when it is not a probe. */
interface PlannedTest {
  id: string;
  key?: string;
  tags: string[];
  /** Skipped when it is declared (test.skip, test.fixme): never sent. */
  skipped?: boolean;
}

/** Groups of tests, each run by one worker in this order. */
interface Plan {
  groups: PlannedTest[][];
}

const byBody = new WeakMap<object, Declared>();
const byKey = new Map<string, Declared>();
const declaredPerFile = new Map<string, number>();

/** The spec file being loaded: the first one on the stack of the declaration (raw call sites, no source maps). */
function declaringFile(): string | undefined {
  const original = Error.prepareStackTrace;
  const holder: { stack?: NodeJS.CallSite[] } = {};
  try {
    Error.prepareStackTrace = (_, sites) => sites;
    Error.captureStackTrace(holder, declaringFile);
    return holder.stack?.map((site) => site.getFileName()).find((file) => file?.endsWith('.spec.ts')) ?? undefined;
  } finally {
    Error.prepareStackTrace = original;
  }
}

/** Called by probe() as a test is declared: `body` is the test's function, as Playwright keeps it. */
export function declareProbe(body: object, declared: DeclaredRequest): void {
  const file = declaringFile();
  if (!file) return;
  const path = relative(ROOT, file);
  const index = declaredPerFile.get(path) ?? 0;
  declaredPerFile.set(path, index + 1);
  const entry = { ...declared, key: `${path}#${index}` };
  byBody.set(body, entry);
  byKey.set(entry.key, entry);
}

/** Playwright's TestCase keeps the test's function as `fn` (not in its public types). */
const probeOf = (test: TestCase): Declared | undefined => {
  const body = (test as TestCase & { fn?: unknown }).fn;
  return typeof body === 'function' ? byBody.get(body) : undefined;
};

/** A describe configured with mode 'parallel' hands each test to a worker of its own (Suite._parallelMode). */
function runsAlone(test: TestCase, config: FullConfig): boolean {
  if (config.fullyParallel) return true;
  for (let suite: Suite | undefined = test.parent; suite; suite = suite.parent) {
    if ((suite as Suite & { _parallelMode?: string })._parallelMode === 'parallel') return true;
  }
  return false;
}

/** For the runner, at onBegin: the run's tests as the workers will get them, written where the workers look. */
export function writePlan(config: FullConfig, suite: Suite): void {
  const dir = process.env[RUN_STATE_ENV];
  if (!dir) return;
  const groups: PlannedTest[][] = [];
  for (const project of suite.suites) {
    for (const file of project.suites) {
      const group: PlannedTest[] = [];
      for (const test of file.allTests()) {
        if (runsAlone(test, config)) continue;
        const key = probeOf(test)?.key;
        group.push({
          id: test.id,
          tags: test.tags,
          ...(key && { key }),
          ...(test.expectedStatus === 'skipped' && { skipped: true }),
        });
      }
      if (group.some((t) => t.key)) groups.push(group);
    }
  }
  writeFileSync(join(dir, PLAN_FILE), JSON.stringify({ groups } satisfies Plan));
}

function readPlan(): Map<string, PlannedTest[]> {
  const following = new Map<string, PlannedTest[]>();
  const dir = process.env[RUN_STATE_ENV];
  if (!dir) return following;
  let plan: Plan;
  try {
    plan = JSON.parse(readFileSync(join(dir, PLAN_FILE), 'utf8')) as Plan;
  } catch {
    return following; // no plan (a run without the plan reporter): nothing is sent ahead
  }
  for (const group of plan.groups) {
    for (const [i, test] of group.entries()) following.set(test.id, group.slice(i + 1));
  }
  return following;
}

export interface SentAhead {
  request: OutgoingRequest;
  delivery: Promise<Delivery>;
}

interface Queued {
  testId: string;
  request: OutgoingRequest;
}

/** Where a test's requests go: the transport's target, or the profile its tags send it to (the mutation matrix). */
export type ApiBaseFor = (tags: readonly string[]) => string | undefined;

/** One per worker: the probes that follow the running test, queued in run order, and those already sent. */
export class SendAhead {
  private readonly following: Map<string, PlannedTest[]>;
  private readonly queue: Queued[] = [];
  private readonly sent = new Map<string, SentAhead>();
  private readonly known = new Set<string>();
  private inFlight = 0;
  private readonly bodies: ValidBodies;
  /** The time-out of the latest test: requests sent ahead may spend as long as a test on throttled retries. */
  private testTimeoutMs = 0;

  constructor(
    private readonly transport: Transport,
    private readonly config: Config,
  ) {
    this.following = readPlan();
    this.bodies = validBodies(config);
    transport.onAnswer = () => this.pump();
  }

  /**
   * At the start of a test: its own request if it was sent ahead, and the probes after it queued (those the run
   * will not judge, skipped ones and writes while writes are off, are not).
   */
  testStarts(info: Pick<TestInfo, 'testId' | 'timeout'>, apiBaseFor: ApiBaseFor): SentAhead | undefined {
    const own = this.take(info.testId);
    for (const test of this.following.get(info.testId) ?? []) {
      if (this.known.has(test.id)) continue;
      this.known.add(test.id);
      const queued = this.queuedRequest(test, apiBaseFor);
      if (queued) this.queue.push(queued);
    }
    this.testTimeoutMs = info.timeout;
    this.pump();
    return own;
  }

  private take(testId: string): SentAhead | undefined {
    this.known.add(testId);
    const queuedAt = this.queue.findIndex((q) => q.testId === testId);
    if (queuedAt >= 0) this.queue.splice(queuedAt, 1);
    const sent = this.sent.get(testId);
    this.sent.delete(testId);
    return sent;
  }

  private queuedRequest(test: PlannedTest, apiBaseFor: ApiBaseFor): Queued | undefined {
    const declared = test.key === undefined ? undefined : byKey.get(test.key);
    if (!declared || test.skipped) return undefined;
    if (skippedAsWrite(this.config.writesEnabled, test.tags)) return undefined;
    const apiBase = apiBaseFor(test.tags);
    if (apiBase === undefined) return undefined;
    try {
      const options = declared.request({ bodies: this.bodies, config: this.config });
      return {
        testId: test.id,
        request: outgoingRequest(OPERATIONS[declared.operation], options, this.config, apiBase),
      };
    } catch {
      return undefined; // the test builds it again, and says what is wrong
    }
  }

  /**
   * Sends queued requests while fewer than the window are out: at a test's start, and after each answer (which makes
   * room, and may widen the window).
   */
  private pump(): void {
    const { testTimeoutMs } = this;
    const maxWaitMs =
      testTimeoutMs > 0 ? Math.max(0, testTimeoutMs - this.config.requestTimeoutMs - 2000) : Number.POSITIVE_INFINITY;
    while (this.queue.length > 0 && this.inFlight < this.transport.sendAheadWindow()) {
      if (this.transport.breakerOpen()) return;
      const { testId, request } = this.queue.shift() as Queued;
      const delivery = this.transport.deliver(request, maxWaitMs);
      this.inFlight++;
      const done = (): void => {
        this.inFlight--;
        this.pump();
      };
      delivery.then(done, done);
      this.sent.set(testId, { request, delivery });
    }
  }
}
