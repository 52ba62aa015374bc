// The only module that exports `test` and `expect`. Spec files import from here and nowhere else.
import { expect as baseExpect, test as base } from '@playwright/test';
import { type ValidBodies, validBodies } from './bodies';
import { REQUESTS_ANNOTATION } from './check-protocol';
import { requirement } from './catalogue';
import { Conformance, type ErrorShape } from './checks';
import { conformanceMatchers } from './matchers';
import { OPERATIONS, type OperationName } from './operations';
import { type Config, config as loadedConfig } from './config';
import { ApiClient, Transport } from './http';
import { apiBase, referenceProfilePath } from './target';

interface WorkerFixtures {
  /** Path prefix of a reference profile (a mode or a fault), set per project by the mutation matrix. */
  referenceProfile: string;
  /** Set by the mutation matrix: see ConformanceOptions. */
  failingChecksExpected: boolean;
  config: Config;
  transport: Transport;
}

interface TestFixtures {
  api: ApiClient;
  conformance: Conformance;
  bodies: ValidBodies;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  referenceProfile: ['', { option: true, scope: 'worker' }],
  failingChecksExpected: [false, { option: true, scope: 'worker' }],
  config: [async ({}, use) => { await use(loadedConfig()); }, { scope: 'worker' }],
  transport: [async ({ config, referenceProfile }, use, workerInfo) => {
    await use(new Transport(config, apiBase(config, referenceProfile || referenceProfilePath(config)), workerInfo.config.workers));
  }, { scope: 'worker' }],
  api: async ({ request, transport }, use, testInfo) => {
    const api = new ApiClient(request, transport);
    await use(api);
    testInfo.annotations.push({ type: REQUESTS_ANNOTATION, description: String(api.exchanges.length) });
  },
  conformance: async ({ config, failingChecksExpected }, use) => { await use(new Conformance(config, { failingChecksExpected })); },
  bodies: async ({ config }, use) => { await use(validBodies(config)); },
});

export const expect = baseExpect.extend(conformanceMatchers);
export type { Config };
export { tags, INVALID_INPUT_IDS, AUTH_REJECTION_IDS } from './checks';
// Shared test families; they declare tests with this module's `test`, read when they are called.
export { bearerAuthTests, requestBodyTests, malformedJsonTest, type RequestContext } from './scenarios';
export { without, requiredFields } from './bodies';
export { jsonBody, plainString } from './http';
export { isObject } from './outcome';
export { LOGGED_IN_FIELDS, asProduct, loggedInDataIn, stockBoundsProblem, stockLabelProblem } from './stock';

/** Skip reason of tests that a conforming target would carry out, when writes are off. */
export const WRITES_OFF = 'Skipped: a conforming target would carry out this request, and writes are off against an external target. Set RSF_ALLOW_WRITES=true to run it.';

/** Skip reason of refusals that are only a SHOULD on a writing operation, when writes are off. */
export const MAY_BE_CARRIED_OUT = 'Skipped: refusing this request is only a SHOULD, so a conforming target may carry it out, and writes are off against an external target. Set RSF_ALLOW_WRITES=true to run it.';

/**
 * Whether sending a request that `requirementId` expects refused could change the target: writes are off, the
 * operation writes, and a conforming target may accept it because the refusal is not a MUST.
 */
export function refusalMayBeCarriedOut(config: Config, requirementId: string, operation: OperationName): boolean {
  return !config.writesEnabled && OPERATIONS[operation].writes && requirement(requirementId).level !== 'MUST';
}

/** The documented error shape of a requirement: the schemas the catalogue names for it. */
export function errorShapeOf(requirementId: string): ErrorShape {
  const schemas = requirement(requirementId).schemas;
  if (!schemas?.length) throw new Error(`${requirementId} names no schema in specs/requirements.json`);
  return { id: requirementId, schemas };
}
// Property probes: arbitraries, the property runner, the §2.7 price tolerance.
export * from './arbitraries';
export { checkProperty, type PropertyCheck, type PropertyResult } from './property';
export { FINAL_PRICE_TOLERANCE, finalPriceProblem } from './prices';
export { outcomeOf } from './outcome';
export type { ValidBodies } from './bodies';
export type { Exchange } from './http';
