// The only module that exports `test` and `expect`. It holds fixtures and nothing else: checks, probes and policies
// have modules of their own, which spec files import directly.
import { expect as baseExpect } from '@playwright/test';
import { testWithoutBrowserPlumbing } from './internals';
import { type ValidBodies, validBodies } from '../model/bodies';
import {
  REQUEST_CHAIN_ANNOTATION,
  REQUESTS_ANNOTATION,
  RETRIES_ANNOTATION,
  SIZE_REFUSED_ANNOTATION,
  TRANSIENT_ANNOTATION,
  SLOWED_DOWN_ANNOTATION,
  PAUSED_ANNOTATION,
  slowDownDescription,
} from '../checks/check-protocol';
import { type Config, loadConfig } from '../config/config';
import { Conformance } from './conformance';
import { ApiClient, type RecordExchange } from './api-client';
import { Transport } from '../http/transport';
import { toConsole } from '../http/throttle-notice';
import { outgoingRequest } from '../http/request';
import { OPERATIONS } from '../model/operations';
import { interruptOnSignals } from '../http/interrupt';
import { conformanceMatchers } from './matchers';
import { apiBase, referenceProfilePath, transportOptions } from '../config/target';
import './secrets';
import { type ApiBaseFor, DECLARED_ANNOTATION, markSharedOut } from './declarations';
import { Prefetcher } from './prefetch';
import { keepWorkerAfterRequirementFailure } from './kept-worker';
import { failIfNotJudged } from './unjudged';
import { reportersReplaced } from './replaced-reporters';
import { RUN_STATE_ENV, runState } from '../http/run-state';
import { redact } from '../http/redact';
import { EXCHANGES_DIR_ENV, ExchangeLog, recordsOf } from '../evidence/exchange-log';
import { Replay, ReplayState, readRecording } from './replay';
import { name as suiteName, version as suiteVersion } from '../../package.json';
import { WRITES_OFF, skippedAsWrite } from '../checks/write-safety';

interface WorkerFixtures {
  /** Path prefix of a reference profile (a mode or a fault), set per project by the mutation matrix. */
  referenceProfile: string;
  /**
   * Set by the mutation matrix, which runs several faults in one project: a test tagged with one of these
   * requirement tags is sent to that tag's profile (a fault breaking the requirement), instead of referenceProfile.
   */
  profileByTag: Record<string, string>;
  config: Config;
  transport: Transport;
  /** The declared requests of the spec file a test belongs to, sent as the file starts (prefetch.ts). */
  prefetcher: Prefetcher;
  /** This worker's exchanges, for the run's recording; undefined when the run records none (a replay). */
  exchangeLog: ExchangeLog | undefined;
  /** Holds no state of a test: one per worker. */
  conformance: Conformance;
  bodies: ValidBodies;
}

interface TestFixtures {
  api: ApiClient;
  /**
   * Before the test: skips a test tagged @writes while writes are off (write-safety.ts). After it: a failed
   * requirement keeps the worker (kept-worker.ts), unless --reporter or -x says otherwise. One fixture for both:
   * Playwright runs each fixture of a test as a step of its own.
   */
  judging: void;
}

/** The running test's ID, for a replay, which answers each test from its own recorded exchanges first. */
function runningTestId(): string | undefined {
  try {
    return testWithoutBrowserPlumbing.info().testId;
  } catch {
    return undefined;
  }
}

/** Requirement tags are the catalogue's IDs (upper case); label tags such as @writes and @property are not. */
const requirementTags = (tags: readonly string[]): string[] =>
  tags.filter((t) => /^@[A-Z]/.test(t)).map((t) => t.slice(1));

export const test = testWithoutBrowserPlumbing.extend<TestFixtures, WorkerFixtures>({
  referenceProfile: ['', { option: true, scope: 'worker' }],
  config: [
    async ({}, use) => {
      // The one holder of the worker's configuration: no module caches it (the matchers look it up by exchange).
      await use(loadConfig());
    },
    { scope: 'worker', box: 'self' },
  ],
  transport: [
    async ({ config, referenceProfile }, use, workerInfo) => {
      const base = apiBase(config, referenceProfile || referenceProfilePath(config));
      const options = transportOptions(config);
      if (config.recording) {
        // Every answer from the recording, no waiting for a Retry-After: nothing is sent (issue 24, item 2).
        const replay = new Replay(readRecording(config.recording), { tokens: config, redact, testId: runningTestId });
        const replaying = { ...options, retryMaxWaitMs: 0, innermost: replay.send() };
        await use(new Transport(replaying, base, workerInfo.config.workers, new ReplayState(runState().dir)));
        return;
      }
      // Ctrl-C or SIGTERM cuts this worker's requests short (interrupt.ts): a test Playwright's stop missed ends too.
      interruptOnSignals(process.env[RUN_STATE_ENV]);
      // The preflight found the target up: a connection refused now is a restart's moment, sent again (wire.ts).
      // And a breaker's pause ends with the preflight's first request, the price list (breaker.ts).
      const resume = { probe: outgoingRequest(OPERATIONS.listPrices, {}, config, base), notify: toConsole };
      const paceSlot = workerInfo.parallelIndex;
      await use(
        new Transport({ ...options, resendAfterRestart: true, resume, paceSlot }, base, workerInfo.config.workers),
      );
    },
    { scope: 'worker', box: 'self' },
  ],
  prefetcher: [
    async ({ transport, config }, use) => {
      const ctx = { bodies: validBodies(config), config };
      await use(new Prefetcher(transport, config, ctx, process.env[RUN_STATE_ENV]));
    },
    { scope: 'worker', box: 'self' },
  ],
  exchangeLog: [
    async ({ config }, use) => {
      const dir = process.env[EXCHANGES_DIR_ENV];
      if (!dir || config.recording) return use(undefined);
      const log = new ExchangeLog(dir, {
        creator: { name: suiteName, version: suiteVersion },
        seed: process.env.RSF_FC_SEED ?? '',
        redact,
        maxBodyBytes: config.maxResponseBytes,
      });
      await use(log);
      log.flush();
    },
    { scope: 'worker', box: 'self' },
  ],
  profileByTag: [{}, { option: true, scope: 'worker' }],
  api: [
    async ({ transport, config, profileByTag, prefetcher, exchangeLog }, use, testInfo) => {
      // Undefined for a test its tags send to two profiles: no profile is right for it.
      const apiBaseFor: ApiBaseFor = (tags) => {
        const [profile, ...more] = tags.flatMap((tag) => profileByTag[tag] ?? []);
        if (more.length > 0) return undefined;
        return profile === undefined ? transport.apiBase : apiBase(config, profile);
      };
      const base = apiBaseFor(testInfo.tags);
      if (base === undefined) throw new Error('profileByTag sends this test to more than one profile');
      const key = testInfo.annotations.find((a) => a.type === DECLARED_ANNOTATION)?.description;
      const identity = { file: testInfo.file, project: testInfo.project.name, timeout: testInfo.timeout, key };
      // A replay sends nothing ahead: each test takes its own recorded answers as it sends.
      const prefetched = config.recording ? undefined : await prefetcher.testStarts(identity, apiBaseFor);
      const record: RecordExchange | undefined =
        exchangeLog &&
        ((request, delivery, credentials, info) => {
          const test = info && { id: info.testId, title: info.titlePath.slice(1).join(' › ') };
          const context = { ...(test && { test }), requirements: requirementTags(info?.tags ?? []), credentials };
          exchangeLog.append(recordsOf(request, delivery, context));
        });
      const api = new ApiClient(transport, config, base, prefetched, record);
      try {
        await use(api);
      } finally {
        exchangeLog?.flush();
      }
      const counts: [string, number][] = [
        [REQUESTS_ANNOTATION, api.exchanges.length],
        [REQUEST_CHAIN_ANNOTATION, api.chainLength],
        [RETRIES_ANNOTATION, api.retried],
        ...(api.transient > 0 ? [[TRANSIENT_ANNOTATION, api.transient] as [string, number]] : []),
        ...(api.sizeRefused > 0 ? [[SIZE_REFUSED_ANNOTATION, api.sizeRefused] as [string, number]] : []),
      ];
      for (const [type, count] of counts) testInfo.annotations.push({ type, description: String(count) });
      // The worker's slow-downs since the last test (a request sent ahead for a later test may have caused one), and
      // those of the runner (its preflight, its sending ahead) not yet taken: a sharded run's blob holds them too.
      for (const slowDown of transport.takeSlowDowns())
        testInfo.annotations.push({ type: SLOWED_DOWN_ANNOTATION, description: slowDownDescription(slowDown) });
      for (const since of transport.takePauses())
        testInfo.annotations.push({ type: PAUSED_ANNOTATION, description: since });
    },
    { box: 'self' },
  ],
  conformance: [
    async ({ config }, use) => {
      await use(new Conformance(config));
    },
    { scope: 'worker', box: 'self' },
  ],
  bodies: [
    async ({ config }, use) => {
      await use(validBodies(config));
    },
    { scope: 'worker', box: 'self' },
  ],
  judging: [
    async ({ config }, use, testInfo) => {
      // Only when it skips: testInfo.skip captures a source-mapped stack for its location, even when it does not.
      if (skippedAsWrite(config.writesEnabled, testInfo.tags)) testInfo.skip(true, WRITES_OFF);
      await use();
      if (!reportersReplaced()) return keepWorkerAfterRequirementFailure(testInfo);
      failIfNotJudged(testInfo);
    },
    { auto: true, box: 'self' },
  ],
});

export const expect = baseExpect.extend(conformanceMatchers);

/**
 * For a spec file of long tests (`file` is its __filename): Playwright shares its tests out among the workers one by
 * one (a describe in mode 'parallel'), so that no worker is left with all of them. Without a rate cap the runner
 * still sends their requests ahead; under one, each test sends its own, as no worker knows which of them it will run.
 */
export function shareOutTestByTest(file: string): void {
  test.describe.configure({ mode: 'parallel' });
  markSharedOut(file);
}
