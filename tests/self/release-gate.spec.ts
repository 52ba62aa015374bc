// Issue #13's "Done when", end to end: the real suite in child runs against the embedded reference with a fault
// (only the tests of the faulty requirement, to keep each run to seconds), and against a target that refuses every
// request.
import { readFileSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { join } from 'node:path';
import { expect, test } from '../../src/playwright/fixtures';
import { MARKDOWN_LIMIT } from '../../src/report/render-markdown';
import { type ChildRun, lastLine, readReport, runPlaywright } from './support/child-run';
import { loopbackUrl } from './support/listening';

test.describe.configure({ mode: 'parallel', timeout: 120_000 });

const FAULT = 'op4-utility-unbounded';
const BROKEN = 'OP4-UTILITY-MAX';
const ONLY_BROKEN = ['--grep', `@${BROKEN}(\\s|$)`];
const RUN_TIMEOUT_MS = 90_000;

interface SuiteRun extends ChildRun {
  reportsDir: string;
  md: () => string;
}

async function suite(dir: string, env: Record<string, string>, args = ONLY_BROKEN): Promise<SuiteRun> {
  const reportsDir = join(dir, 'reports');
  const run = await runPlaywright(
    ['test', '--output', join(dir, 'results'), ...args],
    // One seed for every run, so that the property tests send the same requests to the clean and the faulty target.
    { RSF_REPORTS_DIR: reportsDir, RSF_WAIVERS_FILE: join(dir, 'no-waivers.json'), RSF_FC_SEED: '20240601', ...env },
    RUN_TIMEOUT_MS,
  );
  return { ...run, reportsDir, md: () => readFileSync(join(reportsDir, 'conformance.md'), 'utf8') };
}

const output = (run: ChildRun) => `${run.stdout}\n${run.stderr}`;

test('baseline: a regression fails, named; against the faulty run it passes, a known failure', async ({}, testInfo) => {
  const clean = await suite(testInfo.outputPath('clean'), {});
  expect(clean.code, output(clean)).toBe(0);

  const cleanBaseline = join(clean.reportsDir, 'conformance.json');
  const faulty = await suite(testInfo.outputPath('faulty'), {
    RSF_REFERENCE_FAULT: FAULT,
    RSF_FAIL_ON: 'regression',
    RSF_BASELINE: cleanBaseline,
  });
  expect(faulty.code, output(faulty)).toBe(1);
  expect(lastLine(faulty.stdout)).toMatch(
    new RegExp(`^Conformance: FAIL — 1 MUST regression against the baseline: ${BROKEN} — MUST 1 failed / \\d+;`),
  );
  const regressed = readReport(faulty.reportsDir).summary;
  expect(regressed).toMatchObject({ verdict: 'FAIL', failOn: 'regression', baseline: { verdict: 'PASS' } });
  expect(regressed.baseline?.regressed).toEqual([{ id: BROKEN, level: 'MUST', before: 'passed', now: 'failed' }]);
  // The comparison comes first, right after the verdict and the counts.
  const md = faulty.md();
  expect(md).toContain(`- **Regressed (1)**: ${BROKEN} (MUST, passed → failed)`);
  expect(md.indexOf('## Compared with the baseline')).toBeLessThan(md.indexOf('## Failing requirements'));

  const known = await suite(testInfo.outputPath('known'), {
    RSF_REFERENCE_FAULT: FAULT,
    RSF_FAIL_ON: 'regression',
    RSF_BASELINE: join(faulty.reportsDir, 'conformance.json'),
  });
  expect(known.code, output(known)).toBe(0);
  expect(lastLine(known.stdout)).toMatch(
    new RegExp(
      `^Conformance: PASS — no MUST requirement regressed against the baseline \\(1 known failure: ${BROKEN}\\)`,
    ),
  );
  expect(known.md()).toContain(`Known failures (in the baseline, so they do not fail this run): ${BROKEN}.`);
  expect(readReport(known.reportsDir).summary.baseline?.stillFailing.map((c) => c.id)).toEqual([BROKEN]);
});

test('an expired waiver no longer waives: the failure counts again, and the report says why', async ({}, testInfo) => {
  const waivers = testInfo.outputPath('waivers.json');
  const expired = { id: BROKEN, reason: 'rounding, fix in release 7', owner: 'team-pricing', expires: '2020-01-31' };
  writeFileSync(waivers, JSON.stringify([expired]));
  const run = await suite(testInfo.outputPath('run'), { RSF_REFERENCE_FAULT: FAULT, RSF_WAIVERS_FILE: waivers });
  expect(run.code, output(run)).toBe(1);
  const report = readReport(run.reportsDir);
  const row = report.requirements.find((r) => r.id === BROKEN);
  expect(row).toMatchObject({ status: 'failed', expiredWaiver: expired });
  expect(row?.reason).toBe('waiver expired on 2020-01-31 (owner team-pricing): rounding, fix in release 7');
  expect(report.summary.waivers).toMatchObject([{ id: BROKEN, state: 'expired' }]);
  expect(report.summary.waiverCounts).toEqual({ open: 0, waiving: 0, stale: 0, expired: 1 });
  expect(run.md()).toContain('0 open waivers (0 waiving a failure, 0 stale), 1 expired.');
});

/** A target that refuses every request with HTTP 403 and an error body; it closes itself after `lifeMs`. */
async function refusingTarget(lifeMs: number): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    res.writeHead(403, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error_message: 'refused' }));
  });
  const url = await loopbackUrl(server);
  const stopper = setTimeout(() => server.close(), lifeMs);
  const close = () =>
    new Promise<void>((resolve) => {
      clearTimeout(stopper);
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return { url, close };
}

test('a target refusing every request: ERROR, exit 2, a short summary, in the job summary', async ({}, testInfo) => {
  const target = await refusingTarget(RUN_TIMEOUT_MS);
  try {
    const summary = testInfo.outputPath('step-summary.md');
    const run = await suite(
      testInfo.outputPath('run'),
      { RSF_TARGET_URL: target.url, GITHUB_STEP_SUMMARY: summary },
      [],
    );
    expect(run.code, output(run)).toBe(2);
    // One sentence that says what the target answered.
    expect(lastLine(run.stdout)).toMatch(/^Conformance: ERROR — [^—]*\b403\b[^—]* — MUST 0 failed/);
    const md = run.md();
    expect(md.length).toBeLessThan(MARKDOWN_LIMIT);
    expect(md).toContain('**Conformance: ERROR** (exit code 2)');
    expect(readFileSync(summary, 'utf8')).toBe(`${md}\n`);
  } finally {
    await target.close();
  }
});
