// Prefetch (src/playwright/prefetch.ts): the tests' declared requests are sent ahead of them, by the runner without a
// rate cap (runner-prefetch.ts), by a worker as it starts a spec file under one. It must change when requests leave,
// and nothing else: the same requests, each once, only for the tests the run runs, and the same verdict.
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { expect, test } from '../../src/playwright/fixtures';
import { FIRST_WINDOW, Limiter, MAX_WINDOW, type RunThrottle, concurrencyWindow } from '../../src/http/limiter';
import { PREFETCH_CONCURRENCY } from '../../src/playwright/property';
import {
  DECLARED_ANNOTATION,
  type DeclaredRequest,
  type PlannedTest,
  declareRequests,
  writePlan,
} from '../../src/playwright/declarations';
import {
  ASK_SENT_FOR,
  RUNNER_SOCKET,
  RUNNER_WINDOWS,
  RunnerPrefetch,
  type RunnerReply,
  answersFromRunner,
  inOrderOfNeed,
} from '../../src/playwright/runner-prefetch';
import { makeRunFolder } from '../../src/http/run-folders';
import { RunState } from '../../src/http/run-state';
import type { Exchange } from '../../src/http/exchange';
import { readReport, runSuiteIn } from './support/child-run';
import { scratchDir } from './support/scratch';
import { listedConformanceSuite } from './support/conformance-list';
import { referenceForThisFile } from './support/file-reference';
import { type HostileTarget, startHostileTarget } from './support/hostile-server';
import { loadConfig } from '../../src/config/config';
import { apiBase, transportOptions } from '../../src/config/target';
import type { Delivery } from '../../src/http/delivery';
import type { OutgoingRequest } from '../../src/http/exchange';
import { outgoingRequest, requestFingerprint } from '../../src/http/request';
import { Transport } from '../../src/http/transport';
import { validBodies } from '../../src/model/bodies';
import { OPERATIONS } from '../../src/model/operations';
import { ApiClient } from '../../src/playwright/api-client';
import { Prefetcher } from '../../src/playwright/prefetch';

const { secrets, server: reference } = referenceForThisFile();

/** The declared read of product `id` (operation 8). */
const read = (id: number): DeclaredRequest => ({ operation: 'getProduct', options: { params: { product_id: id } } });

/**
 * A target in front of the reference that answers `latencyMs` late and records each request, and the most writes in
 * flight at once (the preflight reads side by side; the writes are the tests').
 */
async function recordingTarget(latencyMs: number, turnAway?: TurnAway) {
  const seen: string[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  let firstWriteAt: number | undefined;
  const turnedAway = { throttled: 0, reset: 0, gateway: 0 };
  const turned = () => turnedAway.throttled + turnedAway.reset + turnedAway.gateway;
  const target = await startHostileTarget({
    upstream: reference().url,
    latencyMs,
    misbehave: (req, res, count) => {
      if (req.method !== 'GET') firstWriteAt ??= count;
      const secondWave = firstWriteAt !== undefined && count >= firstWriteAt + RUNNERS_FIRST_WAVE;
      if (turnAway && secondWave && turned() < turnAway.count) {
        // By turns: a throttling, a resetting burst, and a gateway's 502 to a write, in one run.
        if (req.method !== 'GET' && turnedAway.gateway < turnedAway.reset) {
          turnedAway.gateway++;
          res.writeHead(502, { 'content-type': 'text/html' }).end('<html>502 Bad Gateway</html>');
        } else if (turnedAway.reset < turnedAway.throttled) {
          turnedAway.reset++;
          req.socket.destroy();
        } else {
          turnedAway.throttled++;
          res.writeHead(429, { 'Retry-After': '0' }).end();
        }
        return true;
      }
      const write = req.method !== 'GET';
      if (write) inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      const auth = String(req.headers.authorization ?? '').replace(/invalid-\w+/, '<unknown>');
      const line = `${req.method} ${req.url} auth=${auth} ${req.headers['content-length'] ?? ''}`;
      res.on('close', () => {
        if (write) inFlight--;
        seen.push(`${line} → ${res.statusCode}`);
      });
      return false;
    },
  });
  return { target, seen, mostInFlight: () => mostInFlight, turnedAway: () => ({ ...turnedAway }) };
}

/** The runner sends this many requests first, and the rest of its burst at once when the first answer comes. */
const RUNNERS_FIRST_WAVE = FIRST_WINDOW * RUNNER_WINDOWS;

/**
 * A target turns away `count` requests of the runner's burst by turns: with a 429, by resetting the connection, and
 * a write with a gateway's 502. They are of the burst's second wave, which the runner sends before any test sends its
 * own: the preflight only reads, so the first write the target sees is of the first wave, and a first wave's length
 * after it the second has begun. (Requests in flight at the target, counted instead, missed the burst on a busy
 * machine: the target, starved of CPU, read the burst's requests one by one.)
 */
interface TurnAway {
  count: number;
}

interface Run {
  /** false: without the plan reporter, so nothing is sent ahead. */
  withPlan: boolean;
  /** RSF_MAX_REQUESTS_PER_SECOND: 0, the runner sends ahead; under a cap, the worker does. */
  maxRequestsPerSecond?: number;
  turnAway?: TurnAway;
  workers?: number;
}

/** The suite, read-only, in one worker unless told, against a target 60 ms away. */
async function runAgainst({ withPlan, maxRequestsPerSecond = 0, turnAway, workers = 1 }: Run, args: string[]) {
  const { target, seen, mostInFlight, turnedAway } = await recordingTarget(60, turnAway);
  const reporters = withPlan ? [] : ['--reporter', './src/playwright/conformance-reporter.ts'];
  try {
    const env = {
      RSF_TARGET_URL: target.url,
      RSF_BEARER_TOKEN: secrets.bearer,
      RSF_CHANNEL_TOKEN: secrets.channel,
      RSF_MAX_REQUESTS_PER_SECOND: String(maxRequestsPerSecond),
      // The same sampled inputs in both runs, so that the properties send the same requests.
      RSF_FC_SEED: '4242',
    };
    const run = await runSuiteIn('prefetch', env, [`--workers=${workers}`, ...reporters, ...args], 100_000);
    const report = readReport(run.reportsDir);
    return { run, seen: [...seen].sort(), mostInFlight: mostInFlight(), turnedAway: turnedAway(), report };
  } finally {
    await target.close();
  }
}

const statuses = (report: ReturnType<typeof readReport>): Record<string, string> =>
  Object.fromEntries(report.requirements.map((r) => [r.id, r.status]));

test.describe('requests sent ahead, compared with each test sending its own', () => {
  test.describe.configure({ mode: 'default', timeout: 120_000 });

  // Reads and refusals; the credential probes without a header are left out.
  const PROBES = ['cart', 'categories', 'prices', '--grep-invert', 'without an Authorization header'];
  let ownRun: ReturnType<typeof runAgainst> | undefined;
  const own = () => {
    ownRun ??= runAgainst({ withPlan: false }, PROBES);
    return ownRun;
  };

  const SENDERS: [string, Omit<Run, 'withPlan'>][] = [
    ['the runner, without a rate cap', {}],
    ['the worker, as it starts a file, under a rate cap', { maxRequestsPerSecond: 2000 }],
  ];
  for (const [sender, run] of SENDERS) {
    test(`probes sent by ${sender}: the same requests, each once, for the tests run, the same verdict`, async () => {
      const [ahead, alone] = [await runAgainst({ withPlan: true, ...run }, PROBES), await own()];
      expect(alone.run.code, alone.run.stdout.slice(-2000)).toBe(0);
      expect(ahead.run.code, ahead.run.stdout.slice(-2000)).toBe(0);
      expect(ahead.seen).toEqual(alone.seen);
      expect(ahead.seen.join('\n')).not.toContain('auth= '); // the probes left out sent nothing
      expect(statuses(ahead.report)).toEqual(statuses(alone.report));
      // One worker, one test at a time: only requests sent ahead are out side by side. The runner finds what to send
      // only because Playwright loads the spec files in the runner (README, "Playwright internals").
      expect(alone.mostInFlight, 'each test sends its own write, one at a time').toBe(1);
      expect(ahead.mostInFlight, 'writes are sent side by side').toBeGreaterThan(FIRST_WINDOW);
    });
  }

  test("a target throttling and resetting the runner's burst: the tests send their own; the same verdict", async () => {
    const [turned, alone] = [await runAgainst({ withPlan: true, turnAway: { count: 12 } }, PROBES), await own()];
    expect(turned.run.code, turned.run.stdout.slice(-2000)).toBe(0);
    expect(turned.turnedAway.throttled, 'requests of the burst throttled').toBeGreaterThan(0);
    // The 429s halved the run's pace: the runner hands that to a test, whose annotations the report counts.
    expect(turned.report.summary.slowedDown?.statuses, 'the runner slowed down').toEqual([429]);
    expect(turned.turnedAway.reset, 'requests of the burst reset').toBeGreaterThan(0);
    // A 502 to a write is no answer to judge: its test sends it itself, as after a reset.
    expect(turned.turnedAway.gateway, 'writes of the burst answered 502').toBeGreaterThan(0);
    // What was answered is what a run without sending ahead sent; the requests turned away were sent again.
    expect(turned.seen).toEqual(alone.seen);
    expect(statuses(turned.report)).toEqual(statuses(alone.report));
  });

  test('properties: their inputs are sent ahead, the same ones, and the verdict is the same', async () => {
    const args = ['properties', '--grep', 'utility'];
    const [ahead, alone] = [await runAgainst({ withPlan: true }, args), await runAgainst({ withPlan: false }, args)];
    expect(ahead.run.code, ahead.run.stdout.slice(-2000)).toBe(0);
    expect(ahead.seen).toEqual(alone.seen);
    expect(statuses(ahead.report)).toEqual(statuses(alone.report));
    // Under a cap, two workers share the properties out: each test sends its own inputs, once.
    const shared = await runAgainst({ withPlan: true, maxRequestsPerSecond: 2000, workers: 2 }, args);
    expect(shared.run.code, shared.run.stdout.slice(-2000)).toBe(0);
    expect(shared.run.stdout).toMatch(/using 2 workers/);
    expect(shared.seen).toEqual(alone.seen);
    expect(statuses(shared.report)).toEqual(statuses(alone.report));
  });
});

test('the runner sends in the order the workers will start the tests: free workers take the next file', () => {
  const group = (file: string, count: number) =>
    Array.from({ length: count }, (_, i) => ({ key: `${file}${i + 1}`, project: 'p', tags: [] }));
  const groups = [group('a', 3), group('b', 1), group('c', 2)];
  const order = (workers: number) => inOrderOfNeed(groups, workers).map((t) => t.key);
  expect(order(1), 'one worker runs the files one after the other').toEqual(['a1', 'a2', 'a3', 'b1', 'c1', 'c2']);
  // The worker that ran b, the shorter file, takes c while the other is still on a.
  expect(order(2)).toEqual(['a1', 'b1', 'a2', 'c1', 'a3', 'c2']);
  expect(order(4), 'a worker for each file: the first test of each, then the second…').toEqual([
    'a1',
    'b1',
    'c1',
    'a2',
    'c2',
    'a3',
  ]);
});

test('the window follows the measured latency, not the host name', () => {
  expect(concurrencyWindow([], undefined)).toBe(FIRST_WINDOW);
  expect(concurrencyWindow([], 10)).toBe(1);
  expect(concurrencyWindow([2, 3, 1], undefined), 'quick answers: nothing to overlap').toBe(0);
  expect(concurrencyWindow([150, 140, 160], undefined)).toBe(MAX_WINDOW);
  expect(concurrencyWindow([150, 150, 150], 20), "Little's law: 20 per second × 0.15 s").toBe(3);
});

test('under a pace, a test has out to a quick target no more requests than the pace lets through', () => {
  const unthrottled: RunThrottle = { throttledRate: () => undefined, slowDown: () => undefined };
  const capped = (perSecond: number) => new Limiter({ maxRequestsPerSecond: perSecond, workers: 2 }, unthrottled);
  expect(capped(0).nearWindow(PREFETCH_CONCURRENCY), 'no pace').toBe(PREFETCH_CONCURRENCY);
  // More would wait for their slots, and a request sent again after a 503 behind them all.
  expect(capped(10).nearWindow(PREFETCH_CONCURRENCY), '5 a second for each worker').toBe(2);
  expect(capped(2000).nearWindow(PREFETCH_CONCURRENCY), '1000 a second, answers within 20 ms').toBe(21);
  const throttled = new Limiter({ maxRequestsPerSecond: 0, workers: 1 }, { ...unthrottled, throttledRate: () => 4 });
  expect(throttled.nearWindow(PREFETCH_CONCURRENCY), "the run's throttle paces too").toBe(2);
});

test('no two conformance tests declare requests under one key', async () => {
  const report = await listedConformanceSuite();
  const keys: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      const { type, description } = node as { type?: unknown; description?: unknown };
      if (type === DECLARED_ANNOTATION && typeof description === 'string') keys.push(description);
      else Object.values(node).forEach(walk);
    }
  };
  walk(report.suites);
  expect(keys.length).toBeGreaterThan(100);
  expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([]);
});

test('a conformance spec shares its tests out only by shareOutTestByTest, which the plan knows of', () => {
  // Playwright's public API does not say which describes are parallel: a file in mode 'parallel' that the plan did
  // not know of would have each worker send the requests of all its tests.
  const dir = join(__dirname, '../conformance');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.spec.ts'))) {
    expect(readFileSync(join(dir, file), 'utf8'), file).not.toMatch(/mode:\s*'parallel'|fullyParallel/);
  }
  // The properties, the longest tests, are shared out (the property test above runs them so in two workers).
  expect(readFileSync(join(dir, 'properties.spec.ts'), 'utf8')).toContain('shareOutTestByTest(__filename)');
});

test("a property's restore sent ahead stands only when the test sent none of its inputs itself", async () => {
  // The restore follows the inputs' answers, sent ahead (property.ts); a test that sent an input itself (a value
  // shrunk after a failure, or one the runner did not answer) sent it after that restore: it sends its own, last.
  const config = loadConfig({
    RSF_TARGET_URL: reference().url,
    RSF_BEARER_TOKEN: secrets.bearer,
    RSF_CHANNEL_TOKEN: secrets.channel,
    RSF_ALLOW_WRITES: 'true',
  });
  const restore = { json: validBodies(config).categoryUpdate() };
  const input = (utility: number) => ({ json: { ...restore.json, utility } });
  const run = async (inputs: number[]) => {
    const transport = new Transport(transportOptions(config), apiBase(config), 1);
    const sentAhead = new Set(
      [input(50), restore].map((options) =>
        requestFingerprint(outgoingRequest(OPERATIONS.updateCategory, options, config, transport.apiBase)),
      ),
    );
    const taken: number[] = [];
    const answer = { status: 200, headers: {}, body: Buffer.from('{"success":true}'), sizeBytes: 16, durationMs: 1 };
    const prefetched = {
      deliver: (request: OutgoingRequest, sendItself: () => Promise<Delivery>) => {
        if (!sentAhead.has(requestFingerprint(request))) return sendItself();
        taken.push(JSON.parse(request.body ?? '{}').utility);
        return Promise.resolve<Delivery>({ kind: 'answer', response: { ...answer, truncated: false }, attempts: [] });
      },
    };
    const api = new ApiClient(transport, config, transport.apiBase, prefetched);
    for (const utility of inputs) await api.call('updateCategory', input(utility));
    await api.callAfterOwnRequests('updateCategory', restore);
    return taken;
  };
  const configured = Number(restore.json.utility);
  expect(await run([50]), 'every input sent ahead: the restore sent ahead stands').toEqual([50, configured]);
  expect(await run([50, 61]), 'an input sent by the test: the restore too').toEqual([50]);
});

test("the runner builds a chain's follow-up from each answer paired with its own request, in any order", async () => {
  // The first product is answered last: paired in the order of arrival, each exchange would hold the other's answer.
  const target = await startHostileTarget({
    misbehave: (req, res) => {
      const late = req.url?.includes('/item/1001') ?? false;
      const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.url));
      setTimeout(answer, late ? 150 : 30);
      return true;
    },
  });
  // In the temporary folder, not a scratchDir: the runner's socket path there must stay under 108 characters.
  const runDir = makeRunFolder('run');
  const key = 'getProduct › self-test: a chain of two reads answered out of order';
  let runner: RunnerPrefetch | undefined;
  try {
    const followedUp = new Promise<readonly Exchange[]>((resolve) =>
      declareRequests(
        key,
        {},
        () => [read(1001), read(2002)],
        (_ctx, answers) => {
          resolve(answers);
          return [];
        },
      ),
    );
    const config = loadConfig({ RSF_TARGET_URL: target.url, RSF_MAX_REQUESTS_PER_SECOND: '0' });
    const ctx = { bodies: validBodies(config), config };
    runner = RunnerPrefetch.start(config, ctx, apiBase(config), runDir, [[{ key, project: 'p', tags: [] }]]);
    expect(runner, 'the runner sends the chain').toBeDefined();
    const answers = await followedUp;
    const paths = answers.map((a) => new URL(a.request.url).pathname);
    expect(paths).toEqual(['/v1/item/1001', '/v1/item/2002']);
    expect(
      answers.map((a) => JSON.parse(a.text)),
      'each request with its own answer',
    ).toEqual(paths);
  } finally {
    runner?.close();
    rmSync(runDir, { recursive: true, force: true });
    await target.close();
  }
});

test('the runner sends ahead for the embedded reference in its own process, though it answers at once', async () => {
  // Any other quick target leaves nothing to overlap, and the runner stops after its first burst; the embedded
  // reference without latency answers from the runner's process, whose core idles while the worker works.
  const seen: string[] = [];
  const target = await startHostileTarget({
    misbehave: (req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      return true;
    },
  });
  const sent = async (): Promise<number> => {
    const runDir = makeRunFolder('run');
    const key = 'getProduct › self-test: twenty quick reads of the embedded reference';
    const reads = Array.from({ length: 20 }, (_, i) => read(3000 + i));
    declareRequests(key, {}, () => reads);
    const config = loadConfig({ RSF_MAX_REQUESTS_PER_SECOND: '0' });
    const ctx = { bodies: validBodies(config), config };
    seen.length = 0;
    const runner = RunnerPrefetch.start(config, ctx, `${target.url}/v1`, runDir, [[{ key, project: 'p', tags: [] }]]);
    try {
      // As a worker asks: answered once every request is, or once the runner stopped sending.
      await answersFromRunner(runDir, key, 30_000);
      return seen.length;
    } finally {
      runner?.close();
      rmSync(runDir, { recursive: true, force: true });
    }
  };
  try {
    // Against a quick external target it stops after its first burst (8), unless a busy machine slows the answers:
    // only the embedded reference's side is certain.
    expect(await sent(), 'the embedded reference, in process').toBe(20);
  } finally {
    await target.close();
  }
});

test("a request declared twice (a property's restore that is one of its inputs) is answered ahead twice", async () => {
  // Each answer is taken once: the restore would otherwise find its answer taken by the input, and send its own.
  const seen: number[] = [];
  // Answers that take a while: against a quick target the runner stops before the restore (nothing to overlap).
  const target = await startHostileTarget({
    misbehave: (req, res) => {
      seen.push(Number(/\/item\/(\d+)/.exec(req.url ?? '')?.[1]));
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 40);
      return true;
    },
  });
  const runDir = makeRunFolder('run');
  try {
    const key = 'getProduct › self-test: a restore that is one of the inputs';
    declareRequests(
      key,
      {},
      () => [read(1), read(2)],
      () => [read(1)],
    );
    const planned = [{ key, project: 'p', tags: [] }];
    const file = join(runDir, 'restore.spec.ts');
    for (const runnerSends of [true, false]) {
      seen.length = 0;
      const perSecond = runnerSends ? '0' : '2000';
      const config = loadConfig({ RSF_TARGET_URL: target.url, RSF_MAX_REQUESTS_PER_SECOND: perSecond });
      const base = apiBase(config);
      const ctx = { bodies: validBodies(config), config };
      writePlan(runDir, { files: { [file]: planned }, runnerSends });
      const runner = runnerSends ? RunnerPrefetch.start(config, ctx, base, runDir, [planned]) : undefined;
      try {
        const transport = new Transport(transportOptions(config), base, 1, new RunState(runDir));
        const worker = new Prefetcher(transport, config, ctx, runDir);
        const prefetched = await worker.testStarts({ file, project: 'p', key, timeout: 30_000 }, () => base);
        const sentItself: number[] = [];
        for (const id of [1, 2, 1]) {
          const request = outgoingRequest(OPERATIONS.getProduct, read(id).options, config, base);
          const sendItself = () => {
            sentItself.push(id);
            return transport.deliver(request);
          };
          const delivery = await prefetched?.deliver(request, sendItself);
          expect(delivery?.kind === 'answer' && delivery.response.status, `read ${id}`).toBe(200);
        }
        const sender = runnerSends ? 'the runner' : 'the worker';
        expect(sentItself, `every read taken from what ${sender} sent ahead`).toEqual([]);
        expect(seen, 'the restore after the inputs').toEqual([1, 2, 1]);
      } finally {
        runner?.close();
      }
    }
  } finally {
    rmSync(runDir, { recursive: true, force: true });
    await target.close();
  }
});

/** Reads of products 1 to `count`, each the declared request of a test of its own, planned in one spec file. */
function plannedReads(runDir: string, count: number, title: string) {
  const keyOf = (id: number) => `getProduct › self-test: ${title}, read ${id}`;
  const ids = Array.from({ length: count }, (_, i) => i + 1);
  for (const id of ids) declareRequests(keyOf(id), {}, () => [read(id)]);
  const planned: PlannedTest[] = ids.map((id) => ({ key: keyOf(id), project: 'p', tags: [] }));
  return { ids, keyOf, read, planned, file: join(runDir, 'reads.spec.ts') };
}

interface QuickReads {
  /** A target that answers every read at once (unless `answer` says later), and notes the product of each. */
  target: HostileTarget;
  seen: number[];
  /** In the temporary folder, not a scratchDir: the runner's socket path there must stay under 108 characters. */
  runDir: string;
  /** 12 reads, each a test's declared request. */
  reads: ReturnType<typeof plannedReads>;
}

/** Runs `body` with a quick target and 12 planned reads in a run folder of their own; removes both after. */
async function withQuickReads(
  title: string,
  body: (setup: QuickReads) => Promise<void>,
  answer: (id: number, times: number) => number | { status: number; afterMs: number } = () => 200,
): Promise<void> {
  const seen: number[] = [];
  const target = await startHostileTarget({
    misbehave: (req, res) => {
      const id = Number(/\/item\/(\d+)/.exec(req.url ?? '')?.[1]);
      seen.push(id);
      const answered = answer(id, seen.filter((s) => s === id).length);
      const { status, afterMs } = typeof answered === 'number' ? { status: answered, afterMs: 0 } : answered;
      const send = () => res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      if (afterMs > 0) setTimeout(send, afterMs);
      else send();
      return true;
    },
  });
  const runDir = makeRunFolder('run');
  try {
    await body({ target, seen, runDir, reads: plannedReads(runDir, 12, title) });
  } finally {
    rmSync(runDir, { recursive: true, force: true });
    await target.close();
  }
}

/**
 * A worker's Prefetcher running the tests of `ids` in order, as the api fixture does: each takes what was sent ahead
 * for it, or sends its read itself. Every read must be answered 200; returns the ids of the tests that sent their own.
 */
async function workerRuns(
  { target, runDir, reads }: QuickReads,
  ids: readonly number[],
  { runnerSends, perSecond }: { runnerSends: boolean; perSecond: number },
  /** After each test, as the api fixture annotates it: what its transport has heard of slow-downs. */
  onTestEnd?: (id: number, transport: Transport) => void,
): Promise<number[]> {
  const config = loadConfig({ RSF_TARGET_URL: target.url, RSF_MAX_REQUESTS_PER_SECOND: String(perSecond) });
  const base = apiBase(config);
  writePlan(runDir, { files: { [reads.file]: reads.planned }, runnerSends });
  // The run's state in its folder, as a worker's is: shared with the runner there, and with no other test.
  const transport = new Transport(transportOptions(config), base, 1, new RunState(runDir));
  const worker = new Prefetcher(transport, config, { bodies: validBodies(config), config }, runDir);
  const sentItself: number[] = [];
  for (const id of ids) {
    const identity = { file: reads.file, project: 'p', key: reads.keyOf(id), timeout: 30_000 };
    const prefetched = await worker.testStarts(identity, () => base);
    const request = outgoingRequest(OPERATIONS.getProduct, reads.read(id).options, config, base);
    const sendItself = () => {
      sentItself.push(id);
      return transport.deliver(request);
    };
    const delivery = await (prefetched ? prefetched.deliver(request, sendItself) : sendItself());
    expect(delivery.kind === 'answer' && delivery.response.status, `read ${id}`).toBe(200);
    onTestEnd?.(id, transport);
  }
  return sentItself;
}

test('a runner stopped for a quick target names the tests it sent for; one stopped by trouble does not', async () => {
  // The runner sends its first window at once; a quick target leaves nothing to overlap, and it stops there. A busy
  // machine may make the target seem far: then it sends every read, and has nothing to hand over.
  for (const trouble of [false, true]) {
    // The 502 comes back first, the rest of the first window half a second later: else a busy machine could slow
    // those answers enough to make the target seem far, and the runner send every read before it heard the 502.
    const turnedAway = (id: number, times: number) =>
      !trouble ? 200 : id === 5 && times === 1 ? 502 : { status: 200, afterMs: 500 };
    const title = `the runner stops${trouble ? ' for trouble' : ''}`;
    await withQuickReads(
      title,
      async ({ target, seen, runDir, reads: { ids, keyOf, planned } }) => {
        const config = loadConfig({ RSF_TARGET_URL: target.url, RSF_MAX_REQUESTS_PER_SECOND: '0' });
        // Connections kept open for the runner's first window, whose answers then come as quick as later ones.
        const warm = new Transport(transportOptions(config), apiBase(config), 1);
        const read = () => outgoingRequest(OPERATIONS.getProduct, { params: { product_id: 1 } }, config, warm.apiBase);
        await Promise.all(Array.from({ length: RUNNERS_FIRST_WAVE }, () => warm.deliver(read())));
        seen.length = 0;
        const ctx = { bodies: validBodies(config), config };
        const runner = RunnerPrefetch.start(config, ctx, apiBase(config), runDir, [planned]);
        try {
          // The last read's answers: when it is answered, or as soon as the runner stops.
          const last = await answersFromRunner(runDir, keyOf(ids.length), 30_000, true);
          const sentFor = [...(last?.sentFor ?? [])];
          if (trouble) expect(sentFor, 'after a 502, each test sends its own').toEqual([]);
          else if (seen.length < ids.length) expect(sentFor).toEqual(seen.map(keyOf));
          else expect(sentFor, 'every read sent: nothing to hand over').toEqual([]);
          if (trouble) expect(seen.length, 'the runner stopped at the 502').toBeLessThan(ids.length);
          // Asked without the question, it answers the test alone, as before.
          expect((await answersFromRunner(runDir, keyOf(1), 30_000))?.sentFor).toBeUndefined();
        } finally {
          runner?.close();
        }
      },
      turnedAway,
    );
  }
});

test('a run directory too long for a socket (a long TMPDIR): the runner sends nothing, no error escapes', async () => {
  await withQuickReads('a long path', async ({ target, seen, reads: { planned } }) => {
    // Linux takes a socket path of up to 107 bytes, macOS 103.
    const runDir = join(scratchDir('prefetch'), 'd'.repeat(60), 'e'.repeat(60));
    mkdirSync(runDir, { recursive: true });
    const config = loadConfig({ RSF_TARGET_URL: target.url, RSF_MAX_REQUESTS_PER_SECOND: '0' });
    const ctx = { bodies: validBodies(config), config };
    const runner = RunnerPrefetch.start(config, ctx, apiBase(config), runDir, [planned]);
    runner?.close();
    // Before the change, the runner sent, and its socket was bound at a path cut short, or its error came on the
    // next tick, uncaught, and ended the run (exit 1): writes sent whose answers no test could take, then sent again.
    await new Promise((resolve) => setImmediate(resolve));
    expect(runner, 'no runner').toBeUndefined();
    expect(seen, 'nothing sent ahead').toEqual([]);
  });
});

test("the runner's slow-downs go to one test, which carries them to the reports and a shard's blob", async () => {
  // The runner's first wave has read 5; a 429 to it halves the run's pace, and stops the runner (trouble).
  const throttled = (id: number, times: number) => (id === 5 && times === 1 ? 429 : 200);
  await withQuickReads(
    'the runner is throttled',
    async (setup) => {
      const { target, runDir, reads } = setup;
      const config = loadConfig({ RSF_TARGET_URL: target.url, RSF_MAX_REQUESTS_PER_SECOND: '0' });
      const ctx = { bodies: validBodies(config), config };
      const runner = RunnerPrefetch.start(config, ctx, apiBase(config), runDir, [reads.planned]);
      try {
        const carried: number[] = [];
        // As the api fixture does after each test (fixtures.ts).
        const sentItself = await workerRuns(setup, reads.ids, { runnerSends: true, perSecond: 0 }, (_, transport) => {
          carried.push(...transport.takeSlowDowns().map((slowDown) => slowDown.status));
        });
        expect(sentItself, 'the throttled read, sent again by its test').toContain(5);
        expect(carried, 'one slow-down, carried by one test').toEqual([429]);
        expect(new RunState(runDir).takeHandedSlowDowns(), 'none left').toEqual([]);
      } finally {
        runner?.close();
      }
    },
    throttled,
  );
});

test('a slow-down handed over is taken once, by one of the processes that ask', () => {
  const runDir = makeRunFolder('run');
  try {
    const [runner, worker, other] = [new RunState(runDir), new RunState(runDir), new RunState(runDir)];
    runner.handOverSlowDown({ status: 429, ratePerSecond: 4 });
    runner.handOverSlowDown({ status: 503, ratePerSecond: 2 });
    expect(
      worker
        .takeHandedSlowDowns()
        .map((s) => s.status)
        .sort(),
    ).toEqual([429, 503]);
    expect(other.takeHandedSlowDowns(), 'taken already').toEqual([]);
    runner.handOverSlowDown({ status: 429, ratePerSecond: 1 });
    expect(other.takeHandedSlowDowns()).toEqual([{ status: 429, ratePerSecond: 1 }]);
    expect(readdirSync(runDir), 'no file left').toEqual([]);
  } finally {
    rmSync(runDir, { recursive: true, force: true });
  }
});

test("once the runner stopped for a quick target, a worker sends its file's other tests ahead itself", async () => {
  await withQuickReads('the worker goes on', async (setup) => {
    const { seen, runDir, reads } = setup;
    const { ids, keyOf } = reads;
    // A stand-in for the runner: it sent reads 1 to 8 (their answers are not in yet, say), and has stopped.
    const asked: string[] = [];
    const runnerSentFor = ids.slice(0, 8).map(keyOf);
    const runner = createServer((req, res) => {
      asked.push(decodeURIComponent(req.url ?? ''));
      const askSentFor = req.url?.endsWith(`?${ASK_SENT_FOR}`);
      const reply: RunnerReply = { answers: {}, ...(askSentFor && { sentFor: runnerSentFor }) };
      res.writeHead(200).end(JSON.stringify(reply));
    });
    await new Promise<void>((resolve) => runner.listen(join(runDir, RUNNER_SOCKET), resolve));
    try {
      const sentItself = await workerRuns(setup, ids, { runnerSends: true, perSecond: 0 });
      // The first test learns that the runner stopped; the runner is asked about its own reads only.
      expect(asked).toEqual([`/${keyOf(1)}?${ASK_SENT_FOR}`, ...ids.slice(1, 8).map((id) => `/${keyOf(id)}`)]);
      // Reads 1 to 8 had no answer from the runner, so their tests sent them; reads 9 to 12 their worker sent ahead.
      expect(sentItself).toEqual(ids.slice(0, 8));
      expect(
        [...seen].sort((a, b) => a - b),
        'each read once',
      ).toEqual(ids);
    } finally {
      runner.close();
    }
  });
});

test('a worker that starts mid-file (the first ended) sends ahead from its test on, not what ran', async () => {
  // Under a rate cap each worker sends its files' requests; a worker replaced mid-file goes on from where it is.
  await withQuickReads('a worker replaced mid-file', async (setup) => {
    const { ids } = setup.reads;
    const sentItself = await workerRuns(setup, ids.slice(4), { runnerSends: false, perSecond: 2000 });
    expect(sentItself, 'every test took what its worker sent ahead').toEqual([]);
    expect([...setup.seen].sort((a, b) => a - b)).toEqual(ids.slice(4));
  });
});
