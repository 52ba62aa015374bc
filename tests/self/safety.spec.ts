// Safe against real systems: against an external target the suite carries out no write unless told to, and it
// keeps to the configured request rate. The "external target" here is the reference behind a recording proxy.
import { type IncomingMessage, type Server, type ServerResponse, createServer, request } from 'node:http';
import { join } from 'node:path';
import { startReferenceServer, type ReferenceServer } from '../../reference/server';
import { expect, test } from '../../src/playwright/fixtures';
import { readReport, runPlaywright, workersUsed } from './support/child-run';
import { scratchDir } from './support/scratch';
import { escapeRegex } from '../../src/model/text';
import { listenOnLoopback } from './support/listening';

interface Seen {
  method: string;
  path: string;
  status: number;
}

/** Forwards to `target` and notes every request with the status the target gave. */
async function recordingProxy(target: string): Promise<{ url: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const upstream = request(`${target}${req.url ?? ''}`, { method: req.method, headers: req.headers }, (answer) => {
      seen.push({ method: req.method ?? '', path: req.url ?? '', status: answer.statusCode ?? 0 });
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const isWrite = (s: Seen): boolean => s.method !== 'GET';
const carriedOut = (s: Seen): boolean => isWrite(s) && s.status >= 200 && s.status < 300;

// Started by a beforeEach, not a beforeAll, which would tie the file's tests to fixed workers (file-reference.ts).
let reference: ReferenceServer | undefined;
test.beforeEach(async () => {
  reference ??= await startReferenceServer();
});

test.describe.configure({ mode: 'parallel' });

/**
 * A run that must pass against the reference as an external target, through the recording proxy. Both answer from
 * this worker, which a machine busy with another npm test once stalled: three requests got no answer within the
 * default 10 s (one sent with them took 8.3 s), the breaker opened, ERROR. No loaded machine comes near 60 s.
 */
async function runThroughProxy(env: Record<string, string>, args: string[] = []) {
  if (!reference) throw new Error('the reference server starts in beforeEach');
  const proxy = await recordingProxy(reference.url);
  const out = scratchDir('safety');
  const run = await runPlaywright(
    ['test', '--output', join(out, 'results'), ...args],
    {
      RSF_REPORTS_DIR: join(out, 'reports'),
      RSF_REQUEST_TIMEOUT_MS: '60000',
      ...env,
      RSF_TARGET_URL: env.RSF_TARGET_URL?.replace('{proxy}', proxy.url) ?? proxy.url,
    },
    170_000,
  );
  await proxy.close();
  expect(run.code, run.stdout.slice(-2000)).toBe(0);
  const workers = workersUsed(run.stdout);
  return { seen: proxy.seen, report: readReport(join(out, 'reports')), workers, stdout: run.stdout, proxy: proxy.url };
}

test('against an external target, writes are skipped with the reason, and none is carried out', async () => {
  test.setTimeout(180_000);
  const rate = 20;
  const { seen, report, workers, stdout, proxy } = await runThroughProxy({
    RSF_TARGET_URL: '{proxy}/v1/',
    RSF_MAX_REQUESTS_PER_SECOND: String(rate),
    RSF_FC_NUM_RUNS: '5',
  });
  expect(report.summary.safetyMode).toBe('read-only');
  expect(stdout, 'said before any result').toMatch(new RegExp(`^Target: ${escapeRegex(proxy)}, read-only$`, 'm'));
  expect(report.summary.tests.skipped, 'the writes a conforming target would carry out').toBeGreaterThan(10);
  const skippedRows = report.requirements.filter((r) => r.status === 'skipped');
  expect(skippedRows.map((r) => r.id)).toEqual(
    expect.arrayContaining(['OP1-SUCCESS-SHAPE', 'OP12-DELETE-SUCCEEDS', 'OP15-SUCCESS-SHAPE']),
  );
  for (const row of skippedRows) expect(row.reason, row.id).toContain('RSF_ALLOW_WRITES=true');
  expect(seen.filter(isWrite).length, 'refusals are still probed').toBeGreaterThan(50);
  expect(
    seen.filter(carriedOut).map((s) => `${s.method} ${s.path} → ${s.status}`),
    'writes the target carried out',
  ).toEqual([]);

  // The pace, from the run's own report: each worker sends its share of the rate, one request per 1 / (rate /
  // workers) seconds after its first, so the run's requests take at least that long, however busy the machine (a
  // slower machine only takes longer). No clock of this process is read: a proxy reads requests late and bunched.
  const { requestsSent, durationMs } = report.summary;
  expect(requestsSent, 'requests the tests sent').toBeGreaterThan(2 * rate);
  expect(
    requestsSent,
    `requests of a ${durationMs} ms run, at RSF_MAX_REQUESTS_PER_SECOND=${rate} over ${workers} workers`,
  ).toBeLessThanOrEqual(workers + Math.floor((rate * durationMs) / 1000));
});

test('with RSF_ALLOW_WRITES=true the writes run, and succeed against a conforming target', async () => {
  test.setTimeout(180_000);
  const { seen, report } = await runThroughProxy({ RSF_ALLOW_WRITES: 'true', RSF_MAX_REQUESTS_PER_SECOND: '0' }, [
    '--grep-invert',
    '@property',
  ]);
  expect(report.summary.safetyMode).toBe('writes enabled');
  expect(report.summary.tests.skipped).toBe(0);
  const writes = new Set(seen.filter(carriedOut).map((s) => `${s.method} ${s.path.replace(/\/\d[^/]*/g, '/{id}')}`));
  expect(writes.size, [...writes].join('\n')).toBeGreaterThanOrEqual(9);
});
