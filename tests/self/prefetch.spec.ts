// Prefetch (src/playwright/prefetch.ts): a worker sends a spec file's declared requests as the file starts. It must
// change when requests leave, and nothing else: the same requests, each once, only for the tests the run runs, and
// the same verdict.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '../../src/playwright/fixtures';
import { FIRST_WINDOW, MAX_WINDOW, concurrencyWindow } from '../../src/http/limiter';
import { readReport, runPlaywright } from './support/child-run';
import { referenceForThisFile } from './support/file-reference';
import { startHostileTarget } from './support/hostile-server';

const { secrets, server: reference } = referenceForThisFile();

/**
 * A target in front of the reference that answers `latencyMs` late and records each request, and the most writes in
 * flight at once (the preflight reads side by side; the writes are the tests').
 */
async function recordingTarget(latencyMs: number) {
  const seen: string[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const target = await startHostileTarget({
    upstream: reference().url,
    latencyMs,
    misbehave: (req, res) => {
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
  return { target, seen, mostInFlight: () => mostInFlight };
}

/** The suite, read-only, in one worker, against a target 60 ms away; `withPlan` false leaves out the plan reporter. */
async function runAgainst(withPlan: boolean, args: string[]) {
  const { target, seen, mostInFlight } = await recordingTarget(60);
  const out = mkdtempSync(join(tmpdir(), 'rsf-prefetch-'));
  writeFileSync(join(out, 'no-waivers.json'), '[]');
  const reporters = withPlan ? [] : ['--reporter', './src/playwright/conformance-reporter.ts'];
  try {
    const run = await runPlaywright(
      ['test', '--output', join(out, 'results'), '--workers=1', ...reporters, ...args],
      {
        RSF_TARGET_URL: target.url,
        RSF_REPORTS_DIR: join(out, 'reports'),
        RSF_WAIVERS_FILE: join(out, 'no-waivers.json'),
        RSF_BEARER_TOKEN: secrets.bearer,
        RSF_CHANNEL_TOKEN: secrets.channel,
        RSF_MAX_REQUESTS_PER_SECOND: '0',
        // The same sampled inputs in both runs, so that the properties send the same requests.
        RSF_FC_SEED: '4242',
      },
      100_000,
    );
    const report = readReport(join(out, 'reports'));
    return { run, seen: [...seen].sort(), mostInFlight: mostInFlight(), report };
  } finally {
    await target.close();
  }
}

const statuses = (report: ReturnType<typeof readReport>): Record<string, string> =>
  Object.fromEntries(report.requirements.map((r) => [r.id, r.status]));

test.describe('a spec file sent ahead as it starts, compared with each test sending its own', () => {
  test.describe.configure({ mode: 'default', timeout: 120_000 });

  test('probes: the same requests, each once, only for the tests run, and the same verdict', async () => {
    // Reads and refusals; the credential probes without a header are left out.
    const args = ['cart', 'categories', 'prices', '--grep-invert', 'without an Authorization header'];
    const [ahead, own] = [await runAgainst(true, args), await runAgainst(false, args)];
    expect(own.run.code, own.run.stdout.slice(-2000)).toBe(0);
    expect(ahead.run.code, ahead.run.stdout.slice(-2000)).toBe(0);
    expect(ahead.seen).toEqual(own.seen);
    expect(ahead.seen.join('\n')).not.toContain('auth= '); // the probes left out sent nothing
    expect(statuses(ahead.report)).toEqual(statuses(own.report));
    // One worker, one test at a time: only requests sent ahead are out side by side.
    expect(own.mostInFlight, 'each test sends its own write, one at a time').toBe(1);
    expect(ahead.mostInFlight, "a file's writes are sent side by side").toBeGreaterThan(FIRST_WINDOW);
  });

  test('properties: their inputs are sent ahead, the same ones, and the verdict is the same', async () => {
    const args = ['properties', '--grep', 'utility'];
    const [ahead, own] = [await runAgainst(true, args), await runAgainst(false, args)];
    expect(ahead.run.code, ahead.run.stdout.slice(-2000)).toBe(0);
    expect(ahead.seen).toEqual(own.seen);
    expect(statuses(ahead.report)).toEqual(statuses(own.report));
  });
});

test('the window follows the measured latency, not the host name', () => {
  expect(concurrencyWindow([], undefined)).toBe(FIRST_WINDOW);
  expect(concurrencyWindow([], 10)).toBe(1);
  expect(concurrencyWindow([2, 3, 1], undefined), 'quick answers: nothing to overlap').toBe(0);
  expect(concurrencyWindow([150, 140, 160], undefined)).toBe(MAX_WINDOW);
  expect(concurrencyWindow([150, 150, 150], 20), "Little's law: 20 per second × 0.15 s").toBe(3);
});

test("no conformance spec runs a describe in mode 'parallel': each worker would send its file's requests", () => {
  // Playwright's public API does not say which describes are parallel, so the plan cannot leave them out.
  const dir = join(__dirname, '../conformance');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.spec.ts'))) {
    expect(readFileSync(join(dir, file), 'utf8'), file).not.toMatch(/mode:\s*'parallel'/);
  }
});
