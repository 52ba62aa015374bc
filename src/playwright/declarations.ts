// What a test declares it sends, before it runs: its requests as data (probe(), link(), property()), under a key the
// test carries as an annotation; and the run's plan, the tests it runs, by spec file. Both senders read these: the
// runner (runner-prefetch.ts) and a worker (prefetch.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestDetails } from '@playwright/test';
import type { Exchange, OutgoingRequest, SendOptions } from '../http/exchange';
import type { Delivery } from '../http/delivery';
import { credentialsOf, outgoingRequest } from '../http/request';
import { exchangeOf } from '../http/exchange';
import type { Config } from '../config/config';
import type { TargetConfig } from '../config/settings/target';
import type { RequestContext as BodyContext } from '../model/body-rules';
import { OPERATIONS, type OperationName } from '../model/operations';
import { skippedAsWrite } from '../checks/write-safety';

const PLAN_FILE = 'prefetch-plan.json';
/** The annotation under which a test carries the key of its declared requests. */
export const DECLARED_ANNOTATION = 'declared-requests';

/** A request a test sends, as declared: which operation, and how. */
export interface DeclaredRequest {
  operation: OperationName;
  options: SendOptions;
}

/** What a test's requests are built from: the valid bodies and the worker's whole configuration. */
export type RequestContext = BodyContext<Config>;

/** What a test sends that waits for nothing before it, as declared. */
export type DeclaredRequests = (ctx: RequestContext) => DeclaredRequest[];

/** What a chain sends once its declared requests are answered: a link's read of what its write did. */
export type FollowUp = (ctx: RequestContext, answers: readonly Exchange[]) => DeclaredRequest[];

export interface Declaration {
  requests: DeclaredRequests;
  followUp?: FollowUp;
}

/** A test the run will run, as the plan reporter saw it. */
export interface PlannedTest {
  /** Its declared requests' key; none when it declared none. */
  key?: string;
  project: string;
  tags: string[];
  /** Skipped as it is declared (test.skip, test.fixme): never sent. */
  skipped?: boolean;
  /** Its project sends it to a reference profile of its own (the mutation matrix): only its worker knows where. */
  profiled?: boolean;
}

/** The run's tests by spec file (absolute path), in the order a worker runs them; and who sends ahead. */
export interface Plan {
  files: Record<string, PlannedTest[]>;
  /** Spec files whose tests are shared out among the workers one by one (shareOutTestByTest). */
  sharedOut?: string[];
  /** The runner sends the declared requests (no rate cap); else each worker sends its files'. */
  runnerSends: boolean;
}

/** The spec files this process loaded that share their tests out one by one, by absolute path. */
const sharedOutFiles = new Set<string>();

/**
 * Called as a spec file is loaded (shareOutTestByTest, fixtures.ts): its tests may run in any worker, in any order.
 * Playwright's public API does not say which files those are, so the file says it itself.
 */
export function markSharedOut(file: string): void {
  sharedOutFiles.add(file);
}

/** The files marked by markSharedOut in this process (the runner loads them all). */
export function sharedOut(): string[] {
  return [...sharedOutFiles];
}

/** The declarations of the spec files this process loaded (the runner loads them all), by key. */
const declarations = new Map<string, Declaration | 'ambiguous'>();

/** The key of a test's declared requests: its operation and title, which no two tests of the suite share. */
export const declarationKey = (operation: OperationName, title: string): string => `${operation} › ${title}`;

/**
 * Called as a test is declared (probe(), link(), property()): its requests, and `details` with the annotation that
 * names them. A key declared twice names neither: each of those tests sends its own (a self-test keeps keys unique).
 */
export function declareRequests(
  key: string,
  details: TestDetails,
  requests: DeclaredRequests,
  followUp?: FollowUp,
): TestDetails {
  declarations.set(key, declarations.has(key) ? 'ambiguous' : { requests, ...(followUp && { followUp }) });
  const annotation = { type: DECLARED_ANNOTATION, description: key };
  const existing = details.annotation === undefined ? [] : [details.annotation].flat();
  return { ...details, annotation: [...existing, annotation] };
}

/** The declaration under `key`, if this process loaded it and it is unique. */
export function declarationOf(key: string | undefined): Declaration | undefined {
  const declaration = key === undefined ? undefined : declarations.get(key);
  return declaration === 'ambiguous' ? undefined : declaration;
}

/** Keys declared more than once in this process: a self-test keeps this empty. */
export function ambiguousKeys(): string[] {
  return [...declarations].flatMap(([key, d]) => (d === 'ambiguous' ? [key] : []));
}

/** For the plan reporter, at onBegin: the plan, in the run directory, where the workers look for it. */
export function writePlan(dir: string, plan: Plan): void {
  writeFileSync(join(dir, PLAN_FILE), JSON.stringify(plan));
}

/** The plan of the run whose directory is `dir`; empty without one (a run without the plan reporter). */
export function readPlan(dir: string | undefined): Plan {
  if (!dir) return { files: {}, runnerSends: false };
  try {
    return JSON.parse(readFileSync(join(dir, PLAN_FILE), 'utf8')) as Plan;
  } catch {
    return { files: {}, runnerSends: false };
  }
}

/** Where a test's requests go: the transport's target, or the profile its tags send it to (the mutation matrix). */
export type ApiBaseFor = (tags: readonly string[]) => string | undefined;

/** The requests a declaration makes, as a test would build them; none when they cannot be built (the test says why). */
export function buildRequests(
  declared: readonly DeclaredRequest[],
  config: TargetConfig,
  apiBase: string,
): OutgoingRequest[] {
  try {
    return declared.map(({ operation, options }) => outgoingRequest(OPERATIONS[operation], options, config, apiBase));
  } catch {
    return [];
  }
}

/** The exchanges of a chain's declared requests, from their answers: what its follow-up is built from. */
export function exchangesOf(
  declared: readonly DeclaredRequest[],
  deliveries: readonly Delivery[],
  config: TargetConfig,
  apiBase: string,
): Exchange[] {
  return deliveries.map((delivery, i) => {
    const item = declared[i];
    if (delivery.kind !== 'answer' || !item) throw new Error('not answered');
    const operation = OPERATIONS[item.operation];
    const request = outgoingRequest(operation, item.options, config, apiBase);
    const credentials = credentialsOf(operation, item.options);
    return exchangeOf(operation, credentials, request, delivery.response, [], config.maxResponseBytes);
  });
}

/** Whether a planned test's requests may be sent ahead at all: it runs, and it does not write while writes are off. */
export function sendsAhead(planned: PlannedTest, config: TargetConfig): boolean {
  return !planned.skipped && !planned.profiled && !skippedAsWrite(config.writesEnabled, planned.tags);
}
