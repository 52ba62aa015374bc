// The only module that exports `test` and `expect`. It holds fixtures and nothing else: checks, probes and policies
// have modules of their own, which spec files import directly.
import { expect as baseExpect, test as base } from '@playwright/test';
import { type ValidBodies, validBodies } from '../model/bodies';
import { REQUEST_CHAIN_ANNOTATION, REQUESTS_ANNOTATION, RETRIES_ANNOTATION } from '../checks/check-protocol';
import { type Config, config as loadedConfig } from '../config/config';
import { Conformance } from './conformance';
import { ApiClient, Transport } from '../http/http';
import { conformanceMatchers } from './matchers';
import { apiBase, referenceProfilePath } from '../config/target';
import type { ApiBaseFor } from './send-ahead';
import { SendAhead } from './send-ahead-worker';
import { WRITES_OFF, skippedAsWrite } from '../checks/write-safety';

interface WorkerFixtures {
  /** Path prefix of a reference profile (a mode or a fault), set per project by the mutation matrix. */
  referenceProfile: string;
  /**
   * Set by the mutation matrix, where a failing MUST check is the expected outcome: a failed test is then marked
   * expected-to-fail, so that Playwright keeps its worker (it replaces it after every unexpected failure).
   */
  failingChecksExpected: boolean;
  config: Config;
  transport: Transport;
  /** Requests of the probes after the running test, sent while it runs (send-ahead.ts). */
  sendAhead: SendAhead;
}

interface TestFixtures {
  /**
   * Set by the mutation matrix, which runs several faults in one project: a test tagged with one of these
   * requirement tags is sent to that tag's profile (a fault breaking the requirement), instead of referenceProfile.
   */
  profileByTag: Record<string, string>;
  api: ApiClient;
  conformance: Conformance;
  bodies: ValidBodies;
  /** Skips a test tagged @writes while writes are off (write-safety.ts). */
  writeSafety: void;
  /** Applies failingChecksExpected after the test. */
  expectedFailure: void;
  _setupArtifacts: void;
  _setupContextOptions: void;
}

/** Playwright's own options for the two fixtures replaced below; an override must keep their `auto` mode. */
const PLAYWRIGHT_PLUMBING = { auto: 'all-hooks-included' as unknown as true, box: 'self' } as const;

export const test = base.extend<TestFixtures, WorkerFixtures>({
  referenceProfile: ['', { option: true, scope: 'worker' }],
  failingChecksExpected: [false, { option: true, scope: 'worker' }],
  config: [
    async ({}, use) => {
      await use(loadedConfig());
    },
    { scope: 'worker', box: 'self' },
  ],
  transport: [
    async ({ config, referenceProfile }, use, workerInfo) => {
      const base = apiBase(config, referenceProfile || referenceProfilePath(config));
      await use(new Transport(config, base, workerInfo.config.workers));
    },
    { scope: 'worker', box: 'self' },
  ],
  sendAhead: [
    async ({ transport, config }, use) => {
      await use(new SendAhead(transport, config));
    },
    { scope: 'worker', box: 'self' },
  ],
  profileByTag: [{}, { option: true }],
  api: [
    async ({ transport, config, profileByTag, sendAhead }, use, testInfo) => {
      // Undefined for a test its tags send to two profiles: no profile is right for it.
      const apiBaseFor: ApiBaseFor = (tags) => {
        const [profile, ...more] = tags.flatMap((tag) => profileByTag[tag] ?? []);
        if (more.length > 0) return undefined;
        return profile === undefined ? transport.apiBase : apiBase(config, profile);
      };
      const base = apiBaseFor(testInfo.tags);
      if (base === undefined) throw new Error('profileByTag sends this test to more than one profile');
      const api = new ApiClient(transport, base, sendAhead.testStarts(testInfo, apiBaseFor));
      await use(api);
      const counts: [string, number][] = [
        [REQUESTS_ANNOTATION, api.exchanges.length],
        [REQUEST_CHAIN_ANNOTATION, api.chainLength],
        [RETRIES_ANNOTATION, api.retried],
      ];
      for (const [type, count] of counts) testInfo.annotations.push({ type, description: String(count) });
    },
    { box: 'self' },
  ],
  conformance: [
    async ({ config }, use) => {
      await use(new Conformance(config));
    },
    { box: 'self' },
  ],
  bodies: [
    async ({ config }, use) => {
      await use(validBodies(config));
    },
    { box: 'self' },
  ],
  // Playwright's browser plumbing (trace recording, context options), set up and torn down around every test as
  // steps that each capture a source-mapped stack: a quarter of a worker's CPU. This suite opens no browser
  // context and refuses --trace (global-setup.ts), so they do nothing here.
  _setupArtifacts: [async ({}, use) => use(), PLAYWRIGHT_PLUMBING],
  _setupContextOptions: [async ({}, use) => use(), PLAYWRIGHT_PLUMBING],
  writeSafety: [
    async ({ config }, use, testInfo) => {
      testInfo.skip(skippedAsWrite(config.writesEnabled, testInfo.tags), WRITES_OFF);
      await use();
    },
    { auto: true, box: 'self' },
  ],
  expectedFailure: [
    async ({ failingChecksExpected }, use, testInfo) => {
      await use();
      if (failingChecksExpected && testInfo.status === 'failed')
        testInfo.fail(true, 'a fault of the reference, as intended');
    },
    { auto: true, box: 'self' },
  ],
});

export const expect = baseExpect.extend(conformanceMatchers);
