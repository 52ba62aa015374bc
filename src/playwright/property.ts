// The property runner. A property is an arbitrary of request inputs, how to send one, and one check per
// requirement. Each check is its own fc.check inside its own conformance.verify, so that MUST and SHOULD
// are never judged by one fc.assert, and a failure carries the counterexample's exchange, seed and replay line.
// The examples and the first numRuns values are drawn up front (fc.sample: same seed, same values as the run) and sent
// concurrently; the checks read that cache, so only shrinking sends requests one at a time.
import { randomInt } from 'node:crypto';
import { relative, resolve } from 'node:path';
import { type TestDetails, type TestInfo, test } from '@playwright/test';
import { type RequestContext, declarationKey, declareRequests } from './declarations';
import fc from 'fast-check';
import { escapeRegex } from '../model/text';
import { resumeSkip, stopAsInconclusive } from './unjudged';
import { type Check, isNotApplicable, notApplicable, noteRefusedForItsSize } from '../checks/checks';
import { ALLOWED_REFUSALS_ANNOTATION, SEED_ANNOTATION, SIZE_REFUSALS } from '../checks/check-protocol';
import { redact } from '../http/redact';
import { printableLine } from '../model/printable';
import { wasRefused } from '../checks/outcome';
import type { Conformance, SettingKey } from './conformance';
import { refusedAsWrongSettings, refusedWith4xx } from './wrong-settings';
import { CheckFailure } from '../checks/failure';
import type { Config } from '../config/config';
import type { PropertiesConfig } from '../config/settings/properties';
import type { ValidBodies } from '../model/bodies';
import type { WrongSettings } from '../model/body-rules';
import type { ApiClient } from './api-client';
import type { Exchange, SendOptions } from '../http/exchange';
import type { OperationName } from '../model/operations';

/** Annotation type of one check's numbers: runs, shrinks, requests. */
export const PROPERTY_ANNOTATION = 'fast-check-runs';
/**
 * Requests in flight at once while the sampled values are sent ahead, against a target that answers quickly (a slow
 * one gets the transport's window, ApiClient.inFlightWindow); the transport paces them anyway, under the rate cap and
 * the run's throttle.
 */
export const PREFETCH_CONCURRENCY = 24;
/** Share of the test's time-out that the checks of one test may use before fast-check interrupts them. */
const TIME_BUDGET_SHARE = 0.75;
const ROOT = resolve(__dirname, '../..');

export interface PropertyCheck<T> {
  /** The same check an example test runs; each of its requirements is one fc.check in one conformance.verify. */
  check: Check;
  /** The values the check speaks about; the others pass without a request. */
  when?: (value: T) => boolean;
}

export interface PropertyOptions<T> {
  /** The test's client, which `send` uses: its transport says how many inputs may be in flight at once. */
  api: ApiClient;
  conformance: Conformance;
  config: PropertiesConfig;
  arbitrary: fc.Arbitrary<T>;
  /** Sends one value; goes through the `api` fixture, so that the test's requests-sent count includes it. */
  send: (value: T) => Promise<Exchange>;
  checks: PropertyCheck<T>[];
  /**
   * Values checked before the numRuns generated ones, e.g. every element of a small finite domain, so that none
   * is left to chance. List them simplest first: the first failing one is reported, and may not shrink further.
   */
  examples?: readonly T[];
  /** Values with the same key are sent once. Default: their JSON. */
  key?: (value: T) => string;
  /** Generated values to check; default RSF_FC_NUM_RUNS. */
  numRuns?: number;
}

export interface CheckResult {
  id: string;
  runs: number;
  /** Executions (runs and shrinks) of values the requirement speaks about (`when`) whose answer it could judge. */
  judged: number;
  shrinks: number;
  /** Inputs this check sent itself: cache misses, i.e. values met while shrinking or replaying. */
  requests: number;
  failed: boolean;
  interrupted: boolean;
  counterexample?: string;
  path?: string;
}

export interface PropertyResult {
  seed: number;
  numRuns: number;
  /** Distinct inputs sent ahead, concurrently (one request each, unless `send` reuses an exchange). */
  prefetched: number;
  checks: CheckResult[];
}

let fallbackSeed: number | undefined;

/** RSF_FC_SEED (set once per run by playwright.config.ts), or one random seed for this process. */
export function propertySeed(config: PropertiesConfig): number {
  const raw = config.fcSeed.trim();
  if (raw === '') {
    fallbackSeed ??= randomInt(2 ** 31 - 1);
    return fallbackSeed;
  }
  if (!/^-?\d+$/.test(raw) || Math.abs(Number(raw)) > 2 ** 31)
    throw new Error(`RSF_FC_SEED must be a 32-bit integer, got "${raw}"`);
  return Number(raw);
}

const deadlines = new WeakMap<TestInfo, number>();

/** When the checks of this test must stop: fixed at its first property, below the test's time-out. */
function deadline(info: TestInfo): number {
  let at = deadlines.get(info);
  if (at === undefined) {
    at = Date.now() + (info.timeout > 0 ? info.timeout * TIME_BUDGET_SHARE : 10 * 60_000);
    deadlines.set(info, at);
  }
  return at;
}

function recordSeed(info: TestInfo, seed: number, path?: string): void {
  const existing = info.annotations.find((a) => a.type === SEED_ANNOTATION);
  if (!existing)
    info.annotations.push({ type: SEED_ANNOTATION, description: path ? `seed=${seed} path=${path}` : `seed=${seed}` });
  else if (path && !existing.description?.includes('path=')) existing.description = `seed=${seed} path=${path}`;
}

const shellWord = (word: string): string => (/^[\w./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** The command line that reruns exactly this test on the counterexample (seed + path, fast-check stops at it). */
export function replayCommand(
  info: Pick<TestInfo, 'file' | 'title' | 'project' | 'config' | 'tags'>,
  seed: number,
  path: string,
): string {
  const env = [`RSF_FC_SEED=${seed}`, `RSF_FC_PATH=${path}`];
  // A mutation-matrix round sends each test to the fault its tags name (profileByTag): the suite's own config with
  // that fault replays it, where the round's project exists only in the matrix run.
  const byTag = (info.project.use as { profileByTag?: Record<string, string> }).profileByTag ?? {};
  const roundFault = /^\/_faults\/(.+)$/.exec(info.tags.map((tag) => byTag[tag]).find(Boolean) ?? '')?.[1];
  if (roundFault) env.push(`RSF_REFERENCE_FAULT=${decodeURIComponent(roundFault)}`);
  for (const name of roundFault ? [] : ['RSF_REFERENCE_FAULT', 'RSF_REFERENCE_MODE']) {
    const value = process.env[name];
    if (value) env.push(`${name}=${value}`);
  }
  const args = ['npx', 'playwright', 'test', relative(ROOT, info.file)];
  const configFile = info.config.configFile;
  if (!roundFault && configFile && resolve(configFile) !== resolve(ROOT, 'playwright.config.ts'))
    args.push('--config', relative(ROOT, configFile));
  if (!roundFault && info.project.name) args.push('--project', info.project.name);
  args.push('-g', escapeRegex(info.title));
  return [...env, ...args].map(shellWord).join(' ');
}

/**
 * Runs `fn` over `items`, at most `size()` at a time (at least one), asked again as each ends: the first answers
 * of a slow target widen its window. The first error rejects.
 */
function inPool<T>(items: readonly T[], size: () => number, fn: (item: T) => Promise<unknown>): Promise<void> {
  return new Promise((resolve, reject) => {
    let next = 0;
    let running = 0;
    const fill = (): void => {
      if (next >= items.length && running === 0) resolve();
      while (next < items.length && running < Math.max(1, size())) {
        running++;
        fn(items[next++] as T).then(() => {
          running--;
          fill();
        }, reject);
      }
    };
    fill();
  });
}

/**
 * The inputs a property sends before its checks run, in order, each key once: its examples and the first numRuns
 * values fast-check draws (fc.sample: same seed, same values as the run), those a check speaks about. None when a
 * path is replayed: fast-check then runs the one counterexample.
 */
export function inputsAhead<T>(
  property: {
    arbitrary: fc.Arbitrary<T>;
    examples?: readonly T[];
    checks: PropertyCheck<T>[];
    key: (value: T) => string;
    numRuns?: number;
  },
  config: PropertiesConfig,
): T[] {
  if (config.fcPath.trim()) return [];
  const numRuns = property.numRuns ?? config.fcNumRuns;
  const drawn = fc.sample(property.arbitrary, { seed: propertySeed(config), numRuns });
  const keys = new Set<string>();
  return [...(property.examples ?? []), ...drawn].filter((value) => {
    if (!property.checks.some((c) => !c.when || c.when(value))) return false;
    const key = property.key(value);
    if (keys.has(key)) return false;
    keys.add(key);
    return true;
  });
}

/** A property as data: its inputs, the request each makes of its operation, and its checks. */
export interface PropertySpec<T> {
  operation: OperationName;
  inputs: (ctx: RequestContext) => { arbitrary: fc.Arbitrary<T>; examples?: readonly T[] };
  request: (value: T, ctx: RequestContext) => SendOptions;
  checks: (ctx: RequestContext) => PropertyCheck<T>[];
  key?: (value: T) => string;
  /** Sent once the property is judged, whatever the outcome: to leave the configured values behind. */
  restore?: (ctx: RequestContext) => SendOptions;
  /** Generated values to check, from RSF_FC_NUM_RUNS: a family of many properties may check fewer each. */
  numRuns?: (configured: number) => number;
  /**
   * A request with one of the settings every input depends on made wrong on purpose: an input refused alike makes the
   * property inconclusive, naming them (wrong-settings.ts), once.
   */
  wrongSettings?: WrongSettings<SettingKey>;
  /**
   * For an input the target refused: the input with its texts cut to the configured values' size
   * (cutToConfiguredLengths), or undefined if none is longer. Carried out, the input was refused for its size, which
   * §8 leaves open: not judged, and counted as a 413 is (noteRefusedForItsSize).
   */
  sizeControl?: (value: T, ctx: RequestContext) => T | undefined;
}

/** The arguments of Playwright's `test(title, details, body)` for a property, to spread. */
type PropertyDeclaration = [title: string, details: TestDetails, body: (fixtures: PropertyFixtures) => Promise<void>];

interface PropertyFixtures {
  api: ApiClient;
  conformance: Conformance;
  bodies: ValidBodies;
  config: Config;
}

const asJson = (value: unknown): string => JSON.stringify(value);

/**
 * Sends an input. The first refused one, when the property has wrongSettings, is sent with the Bearer token, and the
 * wrong settings' request is sent: refused alike, the property stops as inconclusive, naming the settings. Then a
 * refused input is controlled for its size, where the property has a sizeControl (controlSize).
 */
function controlled<T>(spec: PropertySpec<T>, ctx: RequestContext & { config: Config }, api: ApiClient) {
  let suspect: Promise<string | undefined> | undefined;
  return async (value: T): Promise<Exchange> => {
    const request = spec.request(value, ctx);
    const exchange = await api.call(spec.operation, request);
    const wrong = spec.wrongSettings;
    // Inputs answered meanwhile wait for the answer, so that none is judged before the settings are cleared.
    suspect ??=
      wrong && refusedWith4xx(exchange, ctx.config)
        ? refusedAsWrongSettings(
            exchange,
            {
              wrong,
              sendWrong: (variant) => api.call(spec.operation, variant.request(ctx)),
              sendWithBearer: () => api.call(spec.operation, { ...request, credentials: 'valid' }),
            },
            ctx.config,
          )
        : undefined;
    const reason = await suspect;
    if (reason !== undefined) stopAsInconclusive(reason);
    // After the settings are cleared: refused for a wrong channel token, the control would be refused alike.
    await controlSize(spec, value, exchange, ctx, api);
    return exchange;
  };
}

/**
 * A refusal that is not one of its size by status: any other 4xx, or the operation's documented refusal. Not a 5xx:
 * a server failing is never a refusal, of its size or not (fault op2-long-street-crash).
 */
function refusedNotAsTooLarge(x: Exchange, config: Config): boolean {
  return x.status < 500 && !SIZE_REFUSALS.has(x.status) && wasRefused(x, config);
}

/**
 * The input `exchange` sent, refused, is sent again with its texts cut to the configured values' size (sizeControl):
 * carried out, its refusal was for its size. An input accepted, or refused for its size by status, sends nothing more.
 */
async function controlSize<T>(
  spec: PropertySpec<T>,
  value: T,
  exchange: Exchange,
  ctx: RequestContext & { config: Config },
  api: ApiClient,
): Promise<void> {
  if (!spec.sizeControl || !refusedNotAsTooLarge(exchange, ctx.config)) return;
  const control = spec.sizeControl(value, ctx);
  if (control === undefined) return;
  const again = await api.call(spec.operation, spec.request(control, ctx));
  // wasRefused says so of every status but 2xx too.
  if (wasRefused(again, ctx.config)) return;
  api.countRefusedForSize();
  noteRefusedForItsSize(
    exchange,
    `the same body, its long texts cut to the configured values' size, was carried out: HTTP ${again.status}`,
  );
}

/**
 * A property test, `test(...property(title, details, spec))`. Declared as data: its inputs are sent with the other
 * declared requests of its spec file as the file starts (prefetch.ts), and whatever was not sent ahead, side by side
 * as it starts (checkProperty).
 */
export function property<T>(title: string, details: TestDetails, spec: PropertySpec<T>): PropertyDeclaration {
  const key = spec.key ?? asJson;
  // Playwright reads the fixtures a test uses from its parameter list: it must be a destructuring pattern.
  const body = async ({ api, conformance, bodies, config }: PropertyFixtures): Promise<void> => {
    const ctx = { bodies, config };
    try {
      await checkProperty({
        api,
        conformance,
        config,
        ...spec.inputs(ctx),
        send: controlled(spec, ctx, api),
        checks: spec.checks(ctx),
        key,
        ...(spec.numRuns && { numRuns: spec.numRuns(config.fcNumRuns) }),
      });
    } finally {
      // Last, after every input: the restore sent ahead stands only if the test sent none of its inputs itself.
      if (spec.restore) await api.callAfterOwnRequests(spec.operation, spec.restore(ctx));
    }
  };
  const inputs = (ctx: RequestContext) => {
    const { arbitrary, examples } = spec.inputs(ctx);
    const numRuns = spec.numRuns?.(ctx.config.fcNumRuns);
    const property = { arbitrary, ...(examples && { examples }), checks: spec.checks(ctx), key };
    const values = inputsAhead({ ...property, ...(numRuns !== undefined && { numRuns }) }, ctx.config);
    return values.map((value) => ({ operation: spec.operation, options: spec.request(value, ctx) }));
  };
  // The restore follows the inputs' answers, as a link's read follows its write.
  const { restore } = spec;
  const restoreAfter = restore && ((ctx: RequestContext) => [{ operation: spec.operation, options: restore(ctx) }]);
  const declared = declareRequests(declarationKey(spec.operation, title), details, inputs, restoreAfter);
  return [title, declared, body];
}

/**
 * Checks every requirement of `checks` over `arbitrary`, each as one fc.check wrapped in conformance.verify.
 * A MUST failure throws, and the checks after it do not run; SHOULD and INFO failures are recorded by
 * verify as warnings, and the next check runs.
 */
export async function checkProperty<T>(options: PropertyOptions<T>): Promise<PropertyResult> {
  const { conformance, config, arbitrary, send, checks } = options;
  const keyOf = options.key ?? ((value: T) => JSON.stringify(value));
  const info = test.info();
  const seed = propertySeed(config);
  const path = config.fcPath.trim() || undefined;
  const numRuns = options.numRuns ?? config.fcNumRuns;
  const examples = options.examples ?? [];
  const stopAt = deadline(info); // fixed before anything is sent, so that sending ahead counts against the budget
  recordSeed(info, seed);

  const cache = new Map<string, Promise<Exchange>>();
  let misses = 0;
  const sendCached = (value: T): Promise<Exchange> => {
    const key = keyOf(value);
    let exchange = cache.get(key);
    if (!exchange) {
      misses++;
      exchange = send(value);
      cache.set(key, exchange);
    }
    return exchange;
  };

  // Outside any check: a target that does not answer fails the test as a transport error, not as a requirement.
  if (!path) {
    const relevant = inputsAhead({ arbitrary, examples, checks, key: keyOf, numRuns }, config);
    // Past the deadline the rest is left to the checks, which fast-check interrupts.
    const size = () => options.api.inFlightWindow(PREFETCH_CONCURRENCY);
    await options.api.inOneStep(`send ${relevant.length} inputs ahead`, () =>
      inPool(relevant, size, async (v) => (Date.now() < stopAt ? sendCached(v) : undefined)),
    );
  }
  const prefetched = misses;

  const results: CheckResult[] = [];
  const assertions = checks.flatMap(({ check, when }) => check.assertions.map((assertion) => ({ assertion, when })));
  // The valid inputs refused for a reason the spec allows: not judged, but shown (noteAllowedRefusals).
  const allowedRefusals = new Set<Exchange>();
  try {
    for (const { assertion, when } of assertions) {
      const first = cache.values().next().value;
      const evidence: Exchange[] = first ? [await first] : [];
      const before = misses;
      const result: CheckResult = {
        id: assertion.id,
        runs: 0,
        judged: 0,
        shrinks: 0,
        requests: 0,
        failed: false,
        interrupted: false,
      };
      results.push(result);
      try {
        await conformance.verify(assertion.id, evidence, async (context) => {
          let failing: Exchange | undefined;
          let inapplicable = 'no generated value is one the requirement speaks about';
          const details = await fc.check<[T]>(
            fc.asyncProperty(arbitrary, async (value) => {
              if (when && !when(value)) return;
              const exchange = await sendCached(value);
              try {
                const outcome = await assertion.judge(exchange, context);
                if (isNotApplicable(outcome)) inapplicable = outcome.notApplicable;
                else result.judged++;
                if (isNotApplicable(outcome) && outcome.allowedRefusal) allowedRefusals.add(exchange);
              } catch (e) {
                failing = exchange; // the last failure is the shrunk counterexample's
                throw e;
              }
            }),
            {
              seed,
              // Examples come first and do not use up the generated runs, which stay those fc.sample drew.
              numRuns: numRuns + examples.length,
              examples: examples.map((e): [T] => [e]),
              includeErrorInReport: true,
              // The plugin form of the `interruptAfterTimeLimit` parameter (deprecated in fast-check 4.10); its
              // type is declared for unknown values only, hence the cast.
              plugins: [fc.interruptAfterTimeLimit(Math.max(2_000, stopAt - Date.now())) as fc.Plugin<[T]>],
              ...(path ? { path, endOnFailure: true } : {}),
            },
          );
          Object.assign(result, {
            runs: details.numRuns,
            shrinks: details.numShrinks,
            failed: details.failed,
            interrupted: details.interrupted,
          });
          if (details.failed) resumeSkip(); // a request the transport stopped: not the requirement's failure
          if (details.failed) throw propertyFailure(assertion.id, details, info, result, failing);
          // No run could judge it: a vacuous pass would vouch for nothing.
          if (result.judged === 0) return notApplicable(`no generated input could be judged: ${inapplicable}`);
        });
      } finally {
        result.requests = misses - before;
        info.annotations.push({
          type: PROPERTY_ANNOTATION,
          description:
            `${assertion.id}: ${result.runs} runs of ${numRuns + examples.length} ` +
            `(${result.judged} judged), ${result.shrinks} shrinks, ` +
            `${result.requests} inputs sent while checking, ${prefetched} sent ahead` +
            `${result.interrupted ? '; interrupted by the time limit' : ''}${result.failed ? '; failed' : ''}`,
        });
      }
    }
  } finally {
    noteAllowedRefusals(info, allowedRefusals);
  }
  return { seed, numRuns, prefetched, checks: results };
}

/**
 * Annotates the test with the valid inputs its target refused for a reason the spec allows, and the first of them:
 * right by the spec's words, and so not failed, but a vendor's 32-bit column refusing an amount of 2^32 as "could not
 * be updated" should not pass without a word (indep106).
 */
function noteAllowedRefusals(info: TestInfo, refused: ReadonlySet<Exchange>): void {
  const [first] = refused;
  if (!first) return;
  const { number } = first.operation;
  // Redacted before they are cut, so that no piece of a secret is left at the cut.
  const sent = printableLine(first.request.body ?? first.request.url, 120, redact);
  const answer = printableLine(first.text, 80, redact);
  const example = `operation ${number}: ${sent} answered HTTP ${first.status} ${answer}`;
  info.annotations.push({ type: ALLOWED_REFUSALS_ANNOTATION, description: `${refused.size}\t${example}` });
}

function propertyFailure<T>(
  id: string,
  details: fc.RunDetails<[T]>,
  info: TestInfo,
  result: CheckResult,
  failing: Exchange | undefined,
): CheckFailure {
  // fast-check's report, without the stack of the failure it quotes (the evidence shows the check and the exchange),
  // and without its hint to enable verbose mode, which no setting of the suite does.
  const report = (fc.defaultReportMessage(details) ?? '')
    .split('\n')
    .filter((line) => !/^\s+at \S.*:\d+:\d+\)?$/.test(line) && !/^Hint: Enable verbose mode\b/.test(line))
    .join('\n');
  const exchanges = failing ? [failing] : [];
  if (details.counterexample === null || details.counterexamplePath === null) {
    const detail =
      `Property of ${id} was interrupted before it could pass a single run (time limit).\n\n` + `fast-check: ${report}`;
    return new CheckFailure({ title: 'Property interrupted', detail, exchanges, seed: String(details.seed) });
  }
  const seed = details.seed;
  const path = details.counterexamplePath;
  const counterexample = fc.stringify(details.counterexample[0]);
  const replay = replayCommand(info, seed, path);
  recordSeed(info, seed, path);
  Object.assign(result, { counterexample, path });
  // What failed in the counterexample's run: fast-check's report from its "Got …" line, since the lines before it
  // say again what the lines above say (the counterexample, the seed and path); all of it if its wording changed.
  const got = report.split('\n').findIndex((line) => line.startsWith('Got '));
  const detail = [
    `Property of ${id} failed after ${details.numRuns} run(s); counterexample shrunk ${details.numShrinks} time(s).`,
    `Counterexample: ${counterexample}`,
    `Seed: ${seed}  Path: ${path}`,
    `Replay: ${replay}`,
    '',
    `fast-check: ${got === -1 ? report : report.split('\n').slice(got).join('\n')}`,
  ].join('\n');
  const { errorInstance } = details;
  const schemaErrors = errorInstance instanceof CheckFailure ? errorInstance.data.schemaErrors : undefined;
  return new CheckFailure({
    title: 'Property falsified',
    detail,
    exchanges,
    seed: String(seed),
    replay,
    ...(schemaErrors?.length && { schemaErrors }),
  });
}
