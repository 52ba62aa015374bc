// Send-ahead: most tests send requests that depend on nothing before them: a probe its one request, a property the
// inputs it samples, a link its write (and then the read built from its answer). Against a far target
// (RSF_TARGET_DISTANCE) a worker, which runs one test at a time, would spend the run waiting on one answer after
// another. So these requests, declared as data (probe(), property(), link()), are sent before their tests run, as
// many at once as the target's latency and the rate cap make useful (Transport.sendAheadWindow), and each test then
// judges its own exchanges, recorded exactly as if it had sent them (ApiClient.send). Two senders share the work:
// - without a rate cap, the runner sends them all from the start, while the workers start, and a link's read as soon
//   as its write is answered (send-ahead-runner.ts): nothing is left for a worker to wait on but a property's last
//   request, which restores the configured values;
// - under a cap, which the workers share, each worker sends those of the probes that follow its running test in its
//   spec file (send-ahead-worker.ts).
//
// Only tests the run will run are sent ahead: the runner writes the plan (its filtered tests, grouped as Playwright
// hands them to a worker, and those the runner sends) into the run directory at onBegin, and a test of the plan is
// found again in the worker by its declaration key (spec file and declaration order), the same in every process that
// loads the file.
//
// Two things here are Playwright's, not in its public types: a TestCase keeps its function as `fn` (how the runner
// finds what a test declared), and a describe's mode is `_parallelMode`. Were `fn` renamed, nothing would be sent
// ahead, and tests/self/send-ahead.spec.ts, which counts the requests out at once, would fail; were `_parallelMode`,
// a worker could send ahead a property that another worker runs (then sent twice).
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { FullConfig, Suite, TestCase } from '@playwright/test/reporter';
import type { ValidBodies } from '../model/bodies';
import type { RequestContext } from '../model/body-rules';
import type { Config } from '../config/config';
import {
  type Delivery,
  type Exchange,
  type OutgoingRequest,
  type SendOptions,
  credentialsOf,
  exchangeOf,
  outgoingRequest,
} from '../http/http';
import { OPERATIONS, type OperationName } from '../model/operations';
import type { WireResponse } from '../http/wire';
import { skippedAsWrite } from '../checks/write-safety';

const ROOT = resolve(__dirname, '../..');
const PLAN_FILE = 'send-ahead-plan.json';

/** A request a test sends, as declared: which operation, and how. */
export interface DeclaredRequest {
  operation: OperationName;
  options: SendOptions;
}

/**
 * What a test sends that waits for nothing before it, as declared: enough to build its requests outside the test.
 * A probe sends one; a property, one per sampled input.
 */
export type DeclaredRequests = (ctx: RequestContext) => DeclaredRequest[];

/**
 * What a chain sends once the declared requests are answered, built from their exchanges (in declared order): a
 * link's read of what its write did. The test builds it from the same exchanges, so the request is the same one.
 */
export type FollowUp = (ctx: RequestContext, answers: readonly Exchange[]) => DeclaredRequest[];

interface Declared {
  key: string;
  requests: DeclaredRequests;
  followUp?: FollowUp;
}

/** A test of the plan: the key of its declared requests, or none when it declared none. */
export interface PlannedTest {
  id: string;
  key?: string;
  tags: string[];
  /** Skipped when it is declared (test.skip, test.fixme): never sent. */
  skipped?: boolean;
  /** Its project sends it to a reference profile of its own (the mutation matrix): only its worker knows where. */
  profiled?: boolean;
  /** In a parallel describe: any worker may run it, whenever one is free (the properties). */
  alone?: boolean;
}

/** Groups of tests, each run by one worker in this order, and the tests whose requests the runner sends. */
interface Plan {
  groups: PlannedTest[][];
  runnerSends: string[];
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

/**
 * Called as a test is declared (probe(), property(), link()): `body` is the test's function, as Playwright keeps it.
 * The runner sends a chain's follow-up as soon as the requests before it are answered (send-ahead-runner.ts).
 */
export function declareRequests(body: object, requests: DeclaredRequests, followUp?: FollowUp): void {
  const file = declaringFile();
  if (!file) return;
  const path = relative(ROOT, file);
  const index = declaredPerFile.get(path) ?? 0;
  declaredPerFile.set(path, index + 1);
  const entry = { key: `${path}#${index}`, requests, ...(followUp && { followUp }) };
  byBody.set(body, entry);
  byKey.set(entry.key, entry);
}

/** Playwright's TestCase keeps the test's function as `fn` (not in its public types). */
const declaredOf = (test: TestCase): Declared | undefined => {
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

/** The fixtures the mutation matrix sets per project (fixtures.ts): a project with either sends its own way. */
function sendsToItsOwnProfile(test: TestCase): boolean {
  const use = (test.parent.project()?.use ?? {}) as { referenceProfile?: string; profileByTag?: object };
  return !!use.referenceProfile || Object.keys(use.profileByTag ?? {}).length > 0;
}

/**
 * For the runner, at onBegin: the run's tests that declared requests, grouped as the workers will get them: a spec
 * file's tests in order, and then each test of a parallel describe (the properties) as a group of its own.
 */
export function plannedGroups(config: FullConfig, suite: Suite): PlannedTest[][] {
  const inOrder: PlannedTest[][] = [];
  const alone: PlannedTest[][] = [];
  for (const project of suite.suites) {
    for (const file of project.suites) {
      const group: PlannedTest[] = [];
      for (const test of file.allTests()) {
        const key = declaredOf(test)?.key;
        const planned: PlannedTest = {
          id: test.id,
          tags: test.tags,
          ...(key && { key }),
          ...(test.expectedStatus === 'skipped' && { skipped: true }),
          ...(sendsToItsOwnProfile(test) && { profiled: true }),
        };
        if (!runsAlone(test, config)) group.push(planned);
        else if (key) alone.push([{ ...planned, alone: true }]);
      }
      if (group.some((t) => t.key)) inOrder.push(group);
    }
  }
  return [...inOrder, ...alone];
}

/** For the runner, before it starts a worker: the plan, in the run directory, where the workers look for it. */
export function writePlan(dir: string, groups: PlannedTest[][], runnerSends: string[]): void {
  writeFileSync(join(dir, PLAN_FILE), JSON.stringify({ groups, runnerSends } satisfies Plan));
}

/**
 * The plan of the run whose directory is `dir`: empty when there is none (a process outside a run, or a run without
 * the plan reporter), and then nothing is sent ahead.
 */
export function readPlan(dir: string | undefined): Plan {
  if (!dir) return { groups: [], runnerSends: [] };
  try {
    return JSON.parse(readFileSync(join(dir, PLAN_FILE), 'utf8')) as Plan;
  } catch {
    return { groups: [], runnerSends: [] };
  }
}

/** Where a test's requests go: the transport's target, or the profile its tags send it to (the mutation matrix). */
export type ApiBaseFor = (tags: readonly string[]) => string | undefined;

/**
 * The requests a planned test declared, or none when they must not be sent ahead: the run will not judge it
 * (skipped, or a write while writes are off), or they cannot be built (its test builds them, and says why).
 */
export function requestsAhead(
  test: PlannedTest,
  config: Config,
  bodies: ValidBodies,
  apiBaseFor: ApiBaseFor,
): OutgoingRequest[] {
  const declared = test.key === undefined ? undefined : byKey.get(test.key);
  if (!declared || test.skipped) return [];
  if (skippedAsWrite(config.writesEnabled, test.tags)) return [];
  const apiBase = apiBaseFor(test.tags);
  if (apiBase === undefined) return [];
  try {
    return declared
      .requests({ bodies, config })
      .map(({ operation, options }) => outgoingRequest(OPERATIONS[operation], options, config, apiBase));
  } catch {
    return [];
  }
}

/**
 * The follow-up of a planned test's chain, from the answers to its declared requests (requestsAhead, same order),
 * or none: it declared none, or it cannot be built (its test builds it, and says why).
 */
export function followUpAhead(
  test: PlannedTest,
  config: Config,
  bodies: ValidBodies,
  apiBase: string,
  answers: readonly WireResponse[],
): OutgoingRequest[] {
  const declared = test.key === undefined ? undefined : byKey.get(test.key);
  if (!declared?.followUp) return [];
  const ctx = { bodies, config };
  try {
    const exchanges = declared.requests(ctx).map(({ operation, options }, i) => {
      const answer = answers[i];
      if (!answer) throw new Error('not answered');
      const request = outgoingRequest(OPERATIONS[operation], options, config, apiBase);
      const credentials = credentialsOf(OPERATIONS[operation], options);
      return exchangeOf(OPERATIONS[operation], credentials, request, answer, [], config.maxResponseBytes);
    });
    return declared
      .followUp(ctx, exchanges)
      .map(({ operation, options }) => outgoingRequest(OPERATIONS[operation], options, config, apiBase));
  } catch {
    return [];
  }
}

/**
 * A test's requests, sent ahead of it: the delivery of `request` if it was sent, once, and else what `sendItself`
 * gets (a request sent twice by the test is sent again).
 */
export interface SentAhead {
  deliver(request: OutgoingRequest, sendItself: () => Promise<Delivery>): Promise<Delivery>;
}
