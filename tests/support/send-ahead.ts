// Send-ahead: a worker runs the tests of a spec file in order, one at a time, and most of them are probes, one request
// each that depends on nothing before it. Against a far target (RSF_TARGET_DISTANCE) a worker would spend the run
// waiting on one answer after another. So the probes' requests are sent before their tests run, as many at once as
// the target's latency and the rate cap make useful (Transport.sendAheadWindow), and each probe then judges its own
// exchange, recorded exactly as if it had sent it (ApiClient.send). Two senders share the work:
// - without a rate cap, the runner sends every probe of the run from the start, while the workers start
//   (send-ahead-runner.ts): nothing is left for a worker to wait on but the chains of requests;
// - under a cap, which the workers share, each worker sends those that follow its running test in its group.
//
// Only tests the run will run are sent ahead: the runner writes the plan (its filtered tests, grouped as Playwright
// hands them to a worker, and those the runner sends) into the run directory at onBegin, and a probe of the plan is
// found again in the worker by its declaration key (spec file and declaration order), the same in every process that
// loads the file.
//
// Two things here are Playwright's, not in its public types: a TestCase keeps its function as `fn` (how the runner
// tells a probe), and a describe's mode is `_parallelMode`. Were `fn` renamed, nothing would be sent ahead, and
// tests/self/send-ahead.spec.ts, which counts the requests out at once, would fail; were `_parallelMode`, a probe in a
// parallel describe (there is none) could be sent ahead by a worker that does not run it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { FullConfig, Suite, TestCase } from '@playwright/test/reporter';
import type { ValidBodies } from './bodies';
import type { RequestContext } from './body-rules';
import type { Config } from './config';
import { type Delivery, type OutgoingRequest, type SendOptions, outgoingRequest } from './http';
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
export interface PlannedTest {
  id: string;
  key?: string;
  tags: string[];
  /** Skipped when it is declared (test.skip, test.fixme): never sent. */
  skipped?: boolean;
  /** Its project sends it to a reference profile of its own (the mutation matrix): only its worker knows where. */
  profiled?: boolean;
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

/** The fixtures the mutation matrix sets per project (fixtures.ts): a project with either sends its own way. */
function sendsToItsOwnProfile(test: TestCase): boolean {
  const use = (test.parent.project()?.use ?? {}) as { referenceProfile?: string; profileByTag?: object };
  return !!use.referenceProfile || Object.keys(use.profileByTag ?? {}).length > 0;
}

/** For the runner, at onBegin: the run's tests with a probe among them, grouped as the workers will get them. */
export function plannedGroups(config: FullConfig, suite: Suite): PlannedTest[][] {
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
          ...(sendsToItsOwnProfile(test) && { profiled: true }),
        });
      }
      if (group.some((t) => t.key)) groups.push(group);
    }
  }
  return groups;
}

/** For the runner, before it starts a worker: the plan, in the run directory, where the workers look for it. */
export function writePlan(dir: string, groups: PlannedTest[][], runnerSends: string[]): void {
  writeFileSync(join(dir, PLAN_FILE), JSON.stringify({ groups, runnerSends } satisfies Plan));
}

/** The plan of this run: empty when there is none (a run without the plan reporter), and nothing is sent ahead. */
export function readPlan(): Plan {
  const dir = process.env[RUN_STATE_ENV];
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
 * The request a planned probe sends, or undefined when it must not be sent ahead: it is no probe, the run will not
 * judge it (skipped, or a write while writes are off), or it cannot be built (its test builds it, and says why).
 */
export function requestAhead(
  test: PlannedTest,
  config: Config,
  bodies: ValidBodies,
  apiBaseFor: ApiBaseFor,
): OutgoingRequest | undefined {
  const declared = test.key === undefined ? undefined : byKey.get(test.key);
  if (!declared || test.skipped) return undefined;
  if (skippedAsWrite(config.writesEnabled, test.tags)) return undefined;
  const apiBase = apiBaseFor(test.tags);
  if (apiBase === undefined) return undefined;
  try {
    const options = declared.request({ bodies, config });
    return outgoingRequest(OPERATIONS[declared.operation], options, config, apiBase);
  } catch {
    return undefined;
  }
}

/** A test's request, sent ahead of it: its delivery if `request` is the one sent, else what `sendItself` gets. */
export interface SentAhead {
  deliver(request: OutgoingRequest, sendItself: () => Promise<Delivery>): Promise<Delivery>;
}
