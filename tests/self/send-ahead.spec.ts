// Send-ahead (src/playwright/send-ahead.ts): against a distant target the probes' requests leave before their tests
// run, from the runner without a rate cap, from the worker under one. It must change when requests leave, and
// nothing else: the same requests, each once, only for the tests the run runs, no write while writes are off, and
// the same verdict.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config';
import { targetIsFar } from '../../src/config/target';
import { expect, test } from '../../src/playwright/fixtures';
import {
  type Delivery,
  FIRST_SEND_AHEAD,
  MAX_SEND_AHEAD,
  type OutgoingRequest,
  Transport,
  requestFingerprint,
  sendAheadWindow,
} from '../../src/http/http';
import type { WireResponse } from '../../src/http/wire';
import { recorded, recordsDir, sentByRunner, writeRunnerRecord } from '../../src/playwright/send-ahead-runner';
import { RunState } from '../../src/http/run-state';
import { lastLine, readReport, runPlaywright } from './support/child-run';
import { referenceForThisFile } from './support/file-reference';
import { startHostileTarget } from './support/hostile-server';

/** What a target saw of one request; the body by its length (a link's message is random, its length is not). */
interface Seen {
  method: string;
  path: string;
  authorization: string;
  bodyLength: string;
  status: number;
  /** The requests in flight as it arrived, itself not included: "GET /path". */
  alongside: string[];
}

const { secrets, server: reference } = referenceForThisFile();

/** How a target turns away a request that finds `above` requests in flight: a 429, or a reset connection. */
interface TurnAway {
  above: number;
  by: 'throttling' | 'resetting';
}

/**
 * A target in front of the reference that answers `latencyMs` late and records each request and the most in flight;
 * with `turnAway`, it refuses a request that finds that many in flight, among the first 60: the runner's opening
 * burst, not the tests that follow (which would be paced down for a while, and make this test slow).
 */
async function recordingTarget(latencyMs: number, turnAway?: TurnAway) {
  const seen: Seen[] = [];
  let inFlight = 0;
  /** The requests in flight: "GET /path". */
  const out: string[] = [];
  let mostInFlight = 0;
  let turnedAway = 0;
  const target = await startHostileTarget({
    upstream: reference().url,
    latencyMs,
    misbehave: (req, res, count) => {
      if (turnAway && inFlight >= turnAway.above && count <= 60) {
        turnedAway++;
        if (turnAway.by === 'resetting') req.socket.destroy();
        else res.writeHead(429, { 'Retry-After': '0' }).end();
        return true;
      }
      const line = `${req.method} ${req.url}`;
      const alongside = [...out];
      out.push(line);
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      res.on('close', () => {
        inFlight--;
        out.splice(out.indexOf(line), 1);
        seen.push({
          method: req.method ?? '',
          path: req.url ?? '',
          authorization: String(req.headers.authorization ?? ''),
          bodyLength: String(req.headers['content-length'] ?? ''),
          status: res.statusCode,
          alongside,
        });
      });
      return false;
    },
  });
  return { target, seen, mostInFlight: () => mostInFlight, turnedAway: () => turnedAway };
}

interface Distance {
  latencyMs: number;
  /** RSF_MAX_REQUESTS_PER_SECOND; 0, no cap: the runner sends ahead. Under a cap, the worker does. */
  maxRequestsPerSecond?: number;
  turnAway?: TurnAway;
  /** RSF_ALLOW_WRITES: the links write. */
  allowWrites?: boolean;
}

/** The suite, read-only, in one worker, against a target `latencyMs` away (near for 0). */
async function runAgainst(
  { latencyMs, maxRequestsPerSecond = 0, turnAway, allowWrites = false }: Distance,
  args: string[],
) {
  const { target, seen, mostInFlight, turnedAway } = await recordingTarget(latencyMs, turnAway);
  const out = mkdtempSync(join(tmpdir(), 'rsf-send-ahead-'));
  writeFileSync(join(out, 'no-waivers.json'), '[]');
  try {
    const run = await runPlaywright(
      ['test', '--output', join(out, 'results'), '--workers=1', ...args],
      {
        RSF_TARGET_URL: target.url,
        RSF_REPORTS_DIR: join(out, 'reports'),
        RSF_WAIVERS_FILE: join(out, 'no-waivers.json'),
        RSF_BEARER_TOKEN: secrets.bearer,
        RSF_CHANNEL_TOKEN: secrets.channel,
        RSF_MAX_REQUESTS_PER_SECOND: String(maxRequestsPerSecond),
        RSF_ALLOW_WRITES: String(allowWrites),
        // The same sampled inputs in every run, so that the properties send the same requests.
        RSF_FC_SEED: '4242',
        // On 127.0.0.1, which auto takes for near: the distance is said, as for a target behind a local tunnel.
        RSF_TARGET_DISTANCE: latencyMs > 0 ? 'far' : 'near',
      },
      100_000,
    );
    const report = readReport(join(out, 'reports'));
    return { run, seen, mostInFlight: mostInFlight(), turnedAway: turnedAway(), report };
  } finally {
    await target.close();
  }
}

/** Each request as a line, sorted; the unknown token is drawn anew by each run (RSF_INVALID_BEARER_TOKEN). */
const asLines = (seen: Seen[]): string[] =>
  seen
    .map((s) => `${s.method} ${s.path} auth=${s.authorization.replace(/invalid-\w+/, '<unknown>')} ${s.bodyLength}`)
    .sort();

// Probes and properties (the links write, and writes are off), but the credential probes without a header.
const SOME_TESTS = ['--grep-invert', 'without an Authorization header'];

/** Without a cap the runner sends ahead; under one (120 requests per 60 ms answer, at most 100), the worker does. */
const SENDERS: [string, Distance][] = [
  ['the runner, without a rate cap', { latencyMs: 60 }],
  ['the worker, under a rate cap', { latencyMs: 60, maxRequestsPerSecond: 2000 }],
];

const SAME_REQUESTS =
  'a distant target gets the same requests, each once, only for the tests run, and the same verdict';

test.describe('against a distant target, compared with the same target near', () => {
  // In one worker, in order, so that the near run is made once for the three (a child run costs seconds of CPU).
  test.describe.configure({ mode: 'default', timeout: 120_000 });
  let nearRun: ReturnType<typeof runAgainst> | undefined;
  const near = () => {
    nearRun ??= runAgainst({ latencyMs: 0 }, SOME_TESTS);
    return nearRun;
  };

  for (const [sender, distance] of SENDERS) {
    test(`${SAME_REQUESTS}: ${sender}`, async () => {
      const [nearby, distant] = [await near(), await runAgainst(distance, SOME_TESTS)];
      for (const { run } of [nearby, distant])
        expect(lastLine(run.stdout), run.stdout.slice(-2000)).toMatch(/^Conformance: PASS/);
      // One worker: what it has out at once against a near target is what its tests send side by side, and the
      // preflight.
      expect(distant.mostInFlight, 'requests of later probes sent while a test ran').toBeGreaterThan(
        nearby.mostInFlight + 3,
      );
      expect(asLines(distant.seen)).toEqual(asLines(nearby.seen));
      const carriedOut = distant.seen.filter((s) => s.method !== 'GET' && s.status >= 200 && s.status < 300);
      expect(carriedOut, 'writes carried out while writes are off').toEqual([]);
      expect(distant.report.summary.tests).toEqual(nearby.report.summary.tests);
      expect(distant.report.requirements.map((r) => [r.id, r.status])).toEqual(
        nearby.report.requirements.map((r) => [r.id, r.status]),
      );
    });
  }

  test("a link's chain is sent ahead whole: its read leaves as soon as its write is answered", async () => {
    const links = ['--grep', 'links between operations'];
    const [nearby, distant] = [
      await runAgainst({ latencyMs: 0, allowWrites: true }, links),
      await runAgainst({ latencyMs: 300, allowWrites: true }, links),
    ];
    for (const { run } of [nearby, distant])
      expect(lastLine(run.stdout), run.stdout.slice(-2000)).toMatch(/^Conformance: PASS/);
    // The post-sale request a link creates has a new id in each run (the reference is shared by this file).
    const { postSaleId } = loadConfig();
    const createdId = (lines: string[]) =>
      lines.map((line) =>
        line.replace(/(?<=\/postventa\/)\d+(?=\/)/, (id) => (id === String(postSaleId) ? id : '<created>')),
      );
    expect(createdId(asLines(distant.seen)), 'the same requests, each once').toEqual(createdId(asLines(nearby.seen)));
    expect(distant.report.requirements.map((r) => [r.id, r.status])).toEqual(
      nearby.report.requirements.map((r) => [r.id, r.status]),
    );
    // Two links read a channel once their write is answered. One worker runs one test at a time, so two such reads
    // out together were sent by the runner, each on the answer to its chain's first step.
    const isChannelRead = (line: string) => /^GET \/v1\/postventa\/\d+\/messageChannel$/.test(line);
    const reads = distant.seen.filter((s) => isChannelRead(`${s.method} ${s.path}`));
    const asSeen = reads.map((read) => `${read.path} [${read.alongside}]`).join('; ');
    expect(
      reads.some((read) => read.alongside.some(isChannelRead)),
      `channel reads, each with what was out as it arrived: ${asSeen}`,
    ).toBe(true);
  });

  // A server or proxy may turn away a burst it would serve at a slower pace: with a 429, or by resetting connections.
  const TURNING_AWAY: [string, TurnAway][] = [
    ['throttles', { above: 16, by: 'throttling' }],
    ['resets the connections of', { above: 16, by: 'resetting' }],
  ];
  for (const [how, turnAway] of TURNING_AWAY) {
    const title = `a distant target that ${how} the runner's burst: the tests send their own, and the verdict stands`;
    test(title, async () => {
      const [nearby, distant] = [await near(), await runAgainst({ latencyMs: 60, turnAway }, SOME_TESTS)];
      expect(distant.turnedAway, 'the runner met the limit').toBeGreaterThan(0);
      expect(lastLine(distant.run.stdout), distant.run.stdout.slice(-2000)).toMatch(/^Conformance: PASS/);
      expect(distant.report.requirements.map((r) => [r.id, r.status])).toEqual(
        nearby.report.requirements.map((r) => [r.id, r.status]),
      );
      // Each request the runner gave up on was sent again by its test: what reached the reference (the target records
      // no request it turned away) is what the near run sent.
      expect(asLines(distant.seen)).toEqual(asLines(nearby.seen));
    });
  }
});

test('listing the tests sends nothing, even with a run directory set and a far target without a rate cap', async () => {
  const { target, seen } = await recordingTarget(60);
  const dir = mkdtempSync(join(tmpdir(), 'rsf-list-'));
  try {
    const run = await runPlaywright(
      ['test', '--list'],
      {
        RSF_TARGET_URL: target.url,
        RSF_BEARER_TOKEN: secrets.bearer,
        RSF_CHANNEL_TOKEN: secrets.channel,
        RSF_MAX_REQUESTS_PER_SECOND: '0',
        RSF_TARGET_DISTANCE: 'far',
        RSF_RUN_STATE_DIR: dir,
      },
      60_000,
    );
    expect(run.stdout).toMatch(/Total: \d+ tests/);
    await new Promise((resolve) => setTimeout(resolve, 200)); // a request sent as the listing ended would be seen
    expect(seen).toEqual([]);
    expect(readdirSync(dir), 'no plan written').toEqual([]);
  } finally {
    await target.close();
  }
});

/** A breaker and throttle of their own, so that no other test's requests count. */
const freshRunState = (): RunState => new RunState(mkdtempSync(join(tmpdir(), 'rsf-window-')));

test.describe('the window: how many requests a worker has out ahead of its tests', () => {
  test('none against a near target, whatever its answers take', () => {
    const config = loadConfig({ RSF_TARGET_URL: 'http://127.0.0.1:9', RSF_BEARER_TOKEN: secrets.bearer });
    expect(config.targetDistance).toBe('auto');
    expect(targetIsFar(config), 'a host on this machine is near').toBe(false);
    expect(targetIsFar(loadConfig({}))).toBe(false);
    expect(targetIsFar(loadConfig({ RSF_REFERENCE_LATENCY_MS: '150' })), 'the reference made far').toBe(true);
    expect(targetIsFar({ ...config, targetDistance: 'far' }), 'RSF_TARGET_DISTANCE=far').toBe(true);
    const transport = new Transport(config, 'http://127.0.0.1:9/v1', 2, freshRunState());
    expect(transport.sendAheadWindow()).toBe(0);
  });

  test('a few before the first answer (one under a rate), none while answers take under 20 ms', () => {
    expect(sendAheadWindow([], undefined)).toBe(FIRST_SEND_AHEAD);
    expect(sendAheadWindow([], 5)).toBe(1);
    expect(sendAheadWindow([3, 150, 4, 5, 150], undefined), 'the median answer').toBe(0);
    expect(sendAheadWindow([19], undefined)).toBe(0);
  });

  test('the most without a rate, and rate × latency under one', () => {
    expect(sendAheadWindow([20], undefined)).toBe(MAX_SEND_AHEAD);
    expect(sendAheadWindow([150, 160, 140], undefined)).toBe(MAX_SEND_AHEAD);
    // 5 requests a second for this worker, 150 ms each: 0.75, so 1 out at once; 40 a second, 150 ms: 6.
    expect(sendAheadWindow([150], 5)).toBe(1);
    expect(sendAheadWindow([150], 40)).toBe(6);
    expect(sendAheadWindow([10_000], 10_000)).toBe(MAX_SEND_AHEAD);
  });

  test('a far target: the transport measures its answers', async () => {
    const target = await startHostileTarget({ upstream: reference().url, latencyMs: 60, misbehave: () => false });
    try {
      const env = { RSF_TARGET_URL: target.url, RSF_TARGET_DISTANCE: 'far', RSF_MAX_REQUESTS_PER_SECOND: '0' };
      const config = loadConfig({ ...env, RSF_BEARER_TOKEN: secrets.bearer });
      const transport = new Transport(config, `${target.url}/v1`, 2, freshRunState());
      expect(transport.sendAheadWindow(), 'before an answer').toBe(FIRST_SEND_AHEAD);
      const headers = { Authorization: `Bearer ${secrets.bearer}`, Accept: 'application/json' };
      for (let i = 0; i < 3; i++) await transport.deliver({ method: 'GET', url: `${target.url}/v1/prices`, headers });
      expect(transport.sendAheadWindow()).toBe(MAX_SEND_AHEAD);
    } finally {
      await target.close();
    }
  });
});

test.describe("a worker takes the runner's answers only for its own requests", () => {
  const config = loadConfig({ RSF_TARGET_URL: 'http://127.0.0.1:9', RSF_BEARER_TOKEN: secrets.bearer });
  const request = {
    method: 'GET',
    url: 'http://127.0.0.1:9/v1/prices',
    headers: { Accept: 'application/json', Authorization: `Bearer ${secrets.bearer}` },
  };
  const otherRequest = { ...request, url: 'http://127.0.0.1:9/v1/item/1001' };
  // Bytes that are not UTF-8: a record carries the body as it came.
  const response = {
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from([0x5b, 0xff, 0xfe, 0x5d]),
    sizeBytes: 4,
    truncated: false,
    durationMs: 150,
  };
  const runnerAnswer: Delivery = { kind: 'answer', response, attempts: [] };
  const own: Delivery = { kind: 'answer', response: { ...response, status: 418 }, attempts: [] };
  const sendItself = async (): Promise<Delivery> => own;
  /** A run directory with the folder for records, as the runner makes it before it sends. */
  const runDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsf-records-'));
    mkdirSync(recordsDir(dir));
    return dir;
  };
  const answers = (...pairs: [OutgoingRequest, WireResponse][]) => ({
    answers: Object.fromEntries(pairs.map(([req, res]) => [requestFingerprint(req), recorded(res)])),
  });
  const worker = (dir: string, waitMs = 5_000) =>
    sentByRunner(dir, 'test-1', waitMs, new Transport(config, 'http://127.0.0.1:9/v1', 1, freshRunState()));

  test('the same request: the runner answer, bytes and all, once, from a record that holds no token', async () => {
    const dir = runDir();
    writeRunnerRecord(dir, 'test-1', answers([request, response], [otherRequest, response]));
    const sent = worker(dir);
    expect(await sent.deliver(request, sendItself)).toEqual(runnerAnswer);
    expect(await sent.deliver(otherRequest, sendItself)).toEqual(runnerAnswer);
    expect(await sent.deliver(request, sendItself), 'the same request again is sent again').toBe(own);
    const written = readdirSync(recordsDir(dir)).map((f) => readFileSync(join(recordsDir(dir), f), 'utf8'));
    expect(written.join('\n')).not.toContain(secrets.bearer);
  });

  test('a record written while the test waits is taken', async () => {
    const dir = runDir();
    const delivery = worker(dir).deliver(request, sendItself);
    setTimeout(() => writeRunnerRecord(dir, 'test-1', answers([request, response])), 50);
    expect(await delivery).toEqual(runnerAnswer);
  });

  test('its own request when the runner did not answer it, or wrote nothing in time', async () => {
    const declined = runDir();
    writeRunnerRecord(declined, 'test-1', answers());
    expect(await worker(declined).deliver(request, sendItself)).toBe(own);
    const another = runDir();
    const withOtherToken = { ...request, headers: { ...request.headers, Authorization: 'Bearer another' } };
    writeRunnerRecord(another, 'test-1', answers([withOtherToken, response]));
    expect(await worker(another).deliver(request, sendItself)).toBe(own);
    expect(await worker(runDir(), 50).deliver(request, sendItself)).toBe(own);
  });
});
