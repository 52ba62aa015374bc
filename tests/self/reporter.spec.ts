// The conformance reporter, end to end: run the fake suite in a child process and read what the reporter wrote.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '../../src/playwright/fixtures';
import { requirements } from '../../src/model/catalogue';
import {
  FAKE_RUN_TIMEOUT_MS,
  FAKE_SUITE_CONFIG,
  fakeSuiteCounts,
  lastLine,
  readReport,
  runFakeSuite,
  runPlaywright,
} from './support/child-run';
import { fullFakeRun } from './support/full-fake-run';

const COUNTS = fakeSuiteCounts();
const UNTESTED = COUNTS.MUST.untested + COUNTS.SHOULD.untested + COUNTS.INFO.untested;
/** The fake suite's test that throws outside any check: not judged (collect.ts, crashedUnjudged). */
const CRASH =
  '1 MUST requirement inconclusive (OP8-SUCCESS-SHAPE): the test broke outside any check (TypeError: socket hang ' +
  "up (Authorization: Bearer [REDACTED])): that is the suite's failure or Playwright's, not the target's: report it " +
  "with this run's reports/ folder";
import type { ConformanceReport, RequirementRow, Status } from '../../src/report/model';

test.describe.configure({ mode: 'parallel', timeout: 150_000 });

const SUITE_DIR = join(__dirname, 'fixtures/reporter-suite');
/** The fake suite without its MUST failures, and without the retried test, which would cost a second worker. */
const ONLY_SOFT = ['--grep-invert', '@breaks-must|@retried'];

function row(report: ConformanceReport, id: string): RequirementRow {
  const found = report.requirements.find((r) => r.id === id);
  if (!found) throw new Error(`no row for ${id}`);
  return found;
}

function statuses(report: ConformanceReport, ids: string[]): Record<string, Status> {
  return Object.fromEntries(ids.map((id) => [id, row(report, id).status]));
}

/** Tags balance and every attribute is quoted: enough to catch broken escaping without an XML parser. */
function expectWellFormedXml(xml: string): void {
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
  const stack: string[] = [];
  for (const [tag] of xml.replace(/^<\?xml[^>]*\?>/, '').matchAll(/<[^>]*>/g)) {
    expect(tag, 'attributes are quoted').toMatch(/^<\/?[A-Za-z-]+(\s+[A-Za-z-]+="[^"<]*")*\s*\/?>$/);
    if (tag.startsWith('</')) expect(stack.pop(), `closing ${tag}`).toBe(tag.slice(2, -1));
    else if (!tag.endsWith('/>')) stack.push(tag.slice(1).split(/[\s>]/)[0] ?? '');
  }
  expect(stack).toEqual([]);
  expect(xml.replace(/<[^>]*>/g, ''), 'no stray < in text').not.toContain('<');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name));
}

test('a full run: statuses, counts, evidence, verdict and exit code 1 for a failed MUST', async () => {
  const run = await fullFakeRun();
  const { secrets } = run;
  expect(run.code, run.stdout + run.stderr).toBe(1);
  const report = run.report();

  expect(
    statuses(report, [
      'OP9-SUCCESS-SHAPE',
      'HTTP-AUTH-401',
      'OP4-SUCCESS-SHAPE',
      'OP4-UTILITY-MAX',
      'OP4-UNKNOWN-CATEGORY',
      'HTTP-INVALID-INPUT-4XX',
      'OP9-FINAL-PRICE',
      'OP12-DELETE-SUCCEEDS',
      'OP8-SUCCESS-SHAPE',
      'OP8-LOGGED-IN-FIELDS',
      'OP7-SUCCESS-SHAPE',
      'OP1-SUCCESS-SHAPE',
      'OP15-SUCCESS-SHAPE',
      'GEN-V1-PREFIX',
      'GEN-REQUEST-CONTENT-TYPE',
      'OP2-ADDRESS-ID-RETURNED',
    ]),
  ).toEqual({
    'OP9-SUCCESS-SHAPE': 'passed',
    'HTTP-AUTH-401': 'passed',
    'OP4-SUCCESS-SHAPE': 'passed', // its check passed before another check failed the test
    'OP4-UTILITY-MAX': 'failed',
    'OP4-UNKNOWN-CATEGORY': 'untested', // the test stopped before checking it
    'HTTP-INVALID-INPUT-4XX': 'warning',
    'OP9-FINAL-PRICE': 'warning',
    'OP12-DELETE-SUCCEEDS': 'skipped',
    'OP8-SUCCESS-SHAPE': 'inconclusive', // broke outside any check: not judged
    'OP8-LOGGED-IN-FIELDS': 'inconclusive', // …nor its SHOULD tag
    'OP7-SUCCESS-SHAPE': 'failed', // a check failed, then the test timed out
    'OP1-SUCCESS-SHAPE': 'passed',
    'OP15-SUCCESS-SHAPE': 'passed', // the last result counts: it passed on the retry
    'GEN-V1-PREFIX': 'untested',
    'GEN-REQUEST-CONTENT-TYPE': 'not-observable',
    'OP2-ADDRESS-ID-RETURNED': 'untested',
  });
  expect(report.requirements).toHaveLength(requirements().length);
  expect(row(report, 'OP12-DELETE-SUCCEEDS').reason).toContain('read-only mode: deleting a product is a write');
  expect(row(report, 'OP4-UNKNOWN-CATEGORY').reason).toContain('stopped at an earlier failed check');
  expect(row(report, 'GEN-V1-PREFIX').reason).toBe('no test carries @GEN-V1-PREFIX');
  expect(row(report, 'GEN-REQUEST-CONTENT-TYPE').reason).toContain('obligation of the client');
  expect(row(report, 'OP15-SUCCESS-SHAPE').tests.map((t) => t.outcome)).toEqual(['flaky']);

  const s = report.summary;
  expect(s).toMatchObject({
    verdict: 'FAIL',
    exitCode: 1,
    failOn: 'must',
    headline: `2 MUST requirements failed; could not judge: ${CRASH}`,
    verdictReasons: ['2 MUST requirements failed', CRASH],
    target: 'https://fake-target.example.test',
    suiteVersion: '0.0.0-fake',
    safetyMode: 'read-only',
    profile: 'fake profile',
    seed: '4242',
    strict: false,
    requestsSent: 25 + 3, // the property's 25 and the retried test's 3, in the reference project only
    tests: { total: 10, passed: 4, failed: 3, flaky: 1, skipped: 1, inconclusive: 1, notRun: 0 },
    requestsRetried: null,
    configErrors: [],
    errors: [],
    unknownTags: ['OP99-NOT-IN-CATALOGUE'],
  });
  expect(s.counts.MUST).toEqual({
    failed: 2,
    warning: 0,
    inconclusive: 1,
    'not run': 0,
    waived: 0,
    skipped: 1,
    untested: COUNTS.MUST.untested,
    'not-observable': 2,
    passed: 4,
    total: COUNTS.MUST.total,
  });
  expect(s.counts.SHOULD).toMatchObject({
    warning: 1,
    inconclusive: 1,
    passed: 1,
    untested: COUNTS.SHOULD.untested,
    total: COUNTS.SHOULD.total,
  });
  expect(s.counts.INFO).toMatchObject({ warning: 1, untested: COUNTS.INFO.untested, total: COUNTS.INFO.total });

  // Evidence: the check's attachment, and the error message of a crash; secrets redacted in both.
  const utility = row(report, 'OP4-UTILITY-MAX');
  expect(utility.evidence).toHaveLength(2);
  expect(utility.evidence[0]).toMatchObject({
    kind: 'check',
    message: 'utility 100.5 was accepted',
    location: 'tests/self/fixtures/reporter-suite/checks.spec.ts:14',
  });
  expect(utility.evidence[0]?.evidence?.exchanges[0]?.request.headers.authorization).toBe('Bearer [REDACTED]');
  expect(utility.evidence[0]?.evidence?.replay).toContain('RSF_FC_SEED=4242');
  expect(row(report, 'OP8-SUCCESS-SHAPE').unjudgedEvidence?.[0]).toMatchObject({
    kind: 'error',
    message: expect.stringContaining('socket hang up (Authorization: Bearer [REDACTED])'),
  });
  expect(row(report, 'OP7-SUCCESS-SHAPE').evidence[0]?.message).toContain('the quote was not an object');
  expect(row(report, 'OP1-SUCCESS-SHAPE').tests[0]).toMatchObject({ seed: 'seed=4242 path=0:1', requestsSent: 25 });

  // The other formats.
  const md = run.file('conformance.md');
  expect(md).toContain('# Reseller Storefront API conformance: FAIL');
  expect(md).toContain('**Conformance: FAIL** (exit code 1) — 2 MUST requirements failed; could not judge: 1 MUST');
  expect(md).toContain(`| MUST | 2 | 0 | 1 | 0 | 0 | 1 | ${COUNTS.MUST.untested} | 2 | 4 | ${COUNTS.MUST.total} |`);
  expect(md).toContain('| GEN-V1-PREFIX | MUST | untested: no test carries @GEN-V1-PREFIX |');
  expect(md).toContain('### OP4-UTILITY-MAX (MUST, §8): failed');
  expect(md).toContain(
    '<details><summary>utility 100.5 was accepted (tests/self/fixtures/reporter-suite/checks.spec.ts:14)</summary>',
  );
  expect(md.indexOf('## Failing requirements (6)')).toBeLessThan(md.indexOf('## By operation'));

  const junit = run.file('junit.xml');
  expectWellFormedXml(junit);
  expect([...junit.matchAll(/<testsuite name="([^"]+)"/g)].map((m) => m[1])).toEqual(['MUST', 'SHOULD', 'INFO']);
  expect(junit.match(/<testcase /g)).toHaveLength(requirements().length);
  expect(junit).toContain('<testcase classname="8" name="OP4-UTILITY-MAX utility is at most 100');
  expect(junit.match(/<failure /g)).toHaveLength(2);
  expect(junit).toMatch(/name="HTTP-INVALID-INPUT-4XX [^"]*" time="[\d.]+">\n\s*<system-out>SHOULD warning/);
  expect(junit).toMatch(
    /name="OP12-DELETE-SUCCEEDS [^"]*" time="[\d.]+">\n\s*<skipped message="skipped: read-only mode/,
  );
  expect(junit).toMatch(/name="GEN-V1-PREFIX [^"]*" time="[\d.]+">\n\s*<skipped message="untested: no test carries/);

  expect(lastLine(run.stdout)).toMatch(
    new RegExp(
      '^Conformance: FAIL — 2 MUST requirements failed; could not judge: 1 MUST requirement inconclusive .* — ' +
        `MUST 2 failed / ${COUNTS.MUST.total}; SHOULD 1 warning / ${COUNTS.SHOULD.total}; ` +
        `INFO 1 deviation / ${COUNTS.INFO.total}; waived 0; skipped 1; ` +
        `untested ${UNTESTED}; inconclusive 2 \\(.*conformance\\.html\\)$`,
    ),
  );

  // One report per project, in sanitised directories listed by index.json.
  const projects = join(run.reportsDir, 'projects');
  const index = JSON.parse(readFileSync(join(projects, 'index.json'), 'utf8')) as Record<string, string>;
  expect(index).toEqual({ 'fault:op4/utility max': 'fault_op4_utility_max', reference: 'reference' });
  for (const [name, dir] of Object.entries(index)) {
    const own = readReport(join(projects, dir));
    const total = name === 'reference' ? 9 : 1;
    expect(own.summary).toMatchObject({ project: name, verdict: 'FAIL', tests: { total } });
    expect(new Set(own.requirements.flatMap((r) => r.tests.map((t) => t.project)))).toEqual(new Set([name]));
  }

  // Defence in depth: the fake checks attach secrets unredacted; no file the reporter wrote contains them.
  const forms = [secrets.bearer, secrets.channel, encodeURIComponent(secrets.channel)];
  for (const file of filesUnder(run.reportsDir)) {
    const content = readFileSync(file, 'utf8');
    for (const secret of forms) expect(content, file).not.toContain(secret);
  }
  expect(run.file('conformance.json')).toContain('[REDACTED]');
});

test('only SHOULD and INFO deviations: PASS, exit code 0, warnings not failures in junit', async ({}, testInfo) => {
  const run = await runFakeSuite(testInfo.outputPath('run'), { args: ONLY_SOFT });
  expect(run.code, run.stdout + run.stderr).toBe(0);
  const report = run.report();
  expect(report.summary.verdict).toBe('PASS');
  expect(report.summary.counts.MUST.failed).toBe(0);
  expect(report.summary.counts.SHOULD.warning).toBe(1);
  expect(report.summary.counts.INFO.warning).toBe(1);
  expect(run.file('junit.xml')).not.toContain('<failure ');
  expect(lastLine(run.stdout)).toMatch(
    new RegExp(
      `^Conformance: PASS — MUST 0 failed / ${COUNTS.MUST.total}; SHOULD 1 warning / ${COUNTS.SHOULD.total}; ` +
        `INFO 1 deviation / ${COUNTS.INFO.total};`,
    ),
  );
});

test('strict mode: a SHOULD warning fails the run, an INFO deviation still does not', async ({}, testInfo) => {
  const run = await runFakeSuite(testInfo.outputPath('run'), { args: ONLY_SOFT, env: { RSF_STRICT: 'true' } });
  expect(run.code, run.stdout + run.stderr).toBe(1);
  const report = run.report();
  expect(report.summary).toMatchObject({
    verdict: 'FAIL',
    strict: true,
    failOn: 'strict',
    verdictReasons: ['1 SHOULD warning (strict mode)'],
  });
  const junit = run.file('junit.xml');
  expect(junit.match(/<failure /g)).toHaveLength(1);
  expect(junit).toMatch(
    new RegExp(
      /name="HTTP-INVALID-INPUT-4XX [^"]*" time="[\d.]+">\n\s*/.source +
        /<failure message="an invalid body was refused with HTTP 200, not a 4xx" type="SHOULD">/.source,
    ),
  );
  expect(junit).toMatch(/name="OP9-FINAL-PRICE [^"]*" time="[\d.]+">\n\s*<system-out>INFO deviation/);
});

test('waivers: waived with reason and owner, the run passes, open and stale waivers counted', async ({}, testInfo) => {
  // Waivers are per requirement: the reference project has every failure to waive; the fault project adds a worker.
  const run = await runFakeSuite(testInfo.outputPath('run'), {
    env: { RSF_WAIVERS_FILE: join(SUITE_DIR, 'waivers.json') },
    // A waiver covers a failure; a test that broke outside any check judged nothing (the run would be ERROR).
    args: ['--project', 'reference', '--grep-invert', 'crashes without a check'],
  });
  expect(run.code, run.stdout + run.stderr).toBe(0);
  const report = run.report();
  expect(report.summary.verdict).toBe('PASS');
  expect(row(report, 'OP4-UTILITY-MAX')).toMatchObject({
    status: 'waived',
    waivedStatus: 'failed',
    reason: 'target rounds utility; fix planned for release 7',
  });
  expect(row(report, 'HTTP-INVALID-INPUT-4XX')).toMatchObject({ status: 'waived', waivedStatus: 'warning' });
  expect(row(report, 'OP4-UTILITY-MAX').evidence.length).toBeGreaterThan(0);
  expect(row(report, 'OP9-SUCCESS-SHAPE').status).toBe('passed');
  expect(report.summary.waivers.find((w) => w.id === 'OP9-SUCCESS-SHAPE')).toMatchObject({
    used: false,
    state: 'stale',
  });
  expect(report.summary.waivers.find((w) => w.id === 'OP4-UTILITY-MAX')).toMatchObject({
    owner: 'team-pricing',
    state: 'waiving',
  });
  expect(report.summary.waiverCounts).toEqual({ open: 5, waiving: 3, stale: 2, expired: 0 });
  expect(run.file('conformance.md')).toContain('5 open waivers (3 waiving a failure, 2 stale), 0 expired.');
  expect(report.summary.counts.MUST).toMatchObject({ failed: 0, waived: 2 });
  expect(run.file('junit.xml')).toContain(
    '<skipped message="waived (was failed): target rounds utility; fix planned for release 7" />',
  );
  expect(lastLine(run.stdout)).toMatch(
    new RegExp(`^Conformance: PASS — MUST 0 failed / ${COUNTS.MUST.total}; .*; waived 3;`),
  );
});

test('an invalid waivers file is a configuration error, printed once: ERROR, exit code 2', async ({}, testInfo) => {
  const run = await runFakeSuite(testInfo.outputPath('run'), {
    args: ONLY_SOFT,
    env: { RSF_WAIVERS_FILE: join(SUITE_DIR, 'waivers-invalid.json') },
  });
  expect(run.code, run.stdout + run.stderr).toBe(2);
  // Each problem once on stderr; the verdict line names the first.
  expect(run.stderr.match(/unknown requirement ID "NOT-A-REQUIREMENT"/g)).toHaveLength(1);
  expect(run.stderr.match(/\(OP4-UTILITY-MAX\): a reason is required/g)).toHaveLength(1);
  const report = run.report();
  expect(report.summary.verdict).toBe('ERROR');
  expect(report.summary.configErrors).toHaveLength(2);
  expect(report.summary.waivers).toEqual([]);
  expect(lastLine(run.stdout)).toMatch(
    new RegExp(
      '^Conformance: ERROR — the configuration is invalid: waivers file .*' +
        'unknown requirement ID "NOT-A-REQUIREMENT" \\(and 1 more problem\\) — MUST .*; 2 errors \\(',
    ),
  );
});

test('a failed test without a requirement tag is a run error: ERROR, exit code 2', async ({}, testInfo) => {
  const run = await runFakeSuite(testInfo.outputPath('run'), { args: ONLY_SOFT, env: { FAKE_UNTAGGED: '1' } });
  expect(run.code, run.stdout + run.stderr).toBe(2);
  const report = run.report();
  expect(report.summary.verdict).toBe('ERROR');
  expect(report.summary.errors.join('\n')).toContain(
    'setup that fails without a requirement tag (tests/self/fixtures/reporter-suite/untagged.spec.ts:4) ' +
      'failed and carries no requirement tag: Error: could not reach the target',
  );
});

const STOPPED = 'the target stopped answering at 2030-01-02T03:04:05.000Z (last request: GET /v1/prices)';
const UNJUDGED = { env: { FAKE_UNJUDGED: '1' }, args: ['unjudged.spec.ts'] };

test('could not judge: ERROR, exit code 2, one sentence; junit errors; retries shown', async ({}, testInfo) => {
  const run = await runFakeSuite(testInfo.outputPath('run'), UNJUDGED);
  expect(run.code, run.stdout + run.stderr).toBe(2);
  expect(lastLine(run.stdout)).toMatch(
    new RegExp(
      `^Conformance: ERROR — ${STOPPED.replace(/[()]/g, '\\$&')}; 2 tests not run — MUST 0 failed / \\d+;` +
        '.*; inconclusive 1; not run 3; 7 throttled answers retried \\(',
    ),
  );
  const report = run.report();
  expect(report.summary).toMatchObject({
    verdict: 'ERROR',
    exitCode: 2,
    stoppedAnswering: STOPPED,
    requestsRetried: 7,
    tests: { total: 5, passed: 2, skipped: 0, inconclusive: 1, notRun: 2 },
  });
  expect(
    statuses(report, ['OP10-AUTH-REQUIRED', 'OP10-SUCCESS-SHAPE', 'OP11-SUCCESS-SHAPE', 'OP14-SUCCESS-SHAPE']),
  ).toEqual({
    'OP10-AUTH-REQUIRED': 'passed', // its check passed before the throttling
    'OP10-SUCCESS-SHAPE': 'inconclusive',
    'OP11-SUCCESS-SHAPE': 'not run',
    'OP14-SUCCESS-SHAPE': 'not run',
  });
  expect(row(report, 'OP10-SUCCESS-SHAPE').reason).toBe('every attempt was throttled (HTTP 429, 6 attempts)');
  // A passing test whose check saw no sample vouches for nothing.
  expect(row(report, 'OP8-STOCK-BOUNDS')).toMatchObject({
    status: 'untested',
    reason: 'no product carried the logged-in stock fields',
  });
  expect(row(report, 'OP8-SUCCESS-SHAPE').status).toBe('passed');
  expect(row(report, 'OP5-FIELD-TYPES').evidence[0]?.evidence?.exchanges[0]?.attempts).toEqual([
    { status: 429, retryAfter: '1', waitedMs: 1000 },
    { status: 503, retryAfter: '2', waitedMs: 2000 },
  ]);

  const junit = run.file('junit.xml');
  expectWellFormedXml(junit);
  expect(junit).toMatch(
    /name="OP10-SUCCESS-SHAPE [^"]*" time="[\d.]+">\n\s*<error message="inconclusive: every attempt was throttled/,
  );
  expect(junit).toMatch(
    /name="OP11-SUCCESS-SHAPE [^"]*" time="[\d.]+">\n\s*<error message="not run: the target stopped answering/,
  );
  expect(junit).not.toContain('<failure ');
  const md = run.file('conformance.md');
  expect(md).toContain(`**Conformance: ERROR** (exit code 2) — ${STOPPED}; 2 tests not run`);
  expect(md).toContain('## Could not judge (4)');
  expect(md).toContain('→ 429, Retry-After: 1: throttled, sent again after 1000 ms');
});

test('a MUST failure and tests not run: FAIL, exit code 1, the line says what was not judged', async ({}, testInfo) => {
  const run = await runFakeSuite(testInfo.outputPath('run'), {
    env: { FAKE_UNJUDGED: '1' },
    // In the reference project only: the fault project's copy of the MUST failure would take a worker of its own.
    args: ['--project', 'reference', '--grep', 'fails a MUST check|not run: the breaker'],
  });
  expect(run.code, run.stdout + run.stderr).toBe(1);
  expect(lastLine(run.stdout)).toMatch(
    new RegExp(
      '^Conformance: FAIL — 1 MUST requirement failed; could not judge: ' +
        'the target stopped answering at .*; 1 test not run — MUST 1 failed',
    ),
  );
});

test('global setup throws (bad setting, preflight): ERROR, exit code 2, report, job summary', async ({}, testInfo) => {
  const summaryFile = testInfo.outputPath('step-summary.md');
  writeFileSync(summaryFile, 'an earlier step wrote this\n');
  const wrongOrder = 'RSF_ORDER_ALB_NUMBER: order 1/999 does not exist on the target (it answered HTTP 404)';
  const problem = `Invalid configuration (see README, "Configuration"):\n  - ${wrongOrder}`;
  const run = await runFakeSuite(testInfo.outputPath('run'), {
    env: { FAKE_SETUP_FAILS: problem, GITHUB_STEP_SUMMARY: summaryFile },
  });
  expect(run.code, run.stdout + run.stderr).toBe(2);
  const sentence = `Invalid configuration (see README, "Configuration"): ${wrongOrder}`;
  const observable = requirements().filter((r) => r.observable !== false).length;
  const counts =
    `MUST 0 failed / ${COUNTS.MUST.total}; SHOULD 0 warnings / ${COUNTS.SHOULD.total}; ` +
    `INFO 0 deviations / ${COUNTS.INFO.total}; waived 0; skipped 0; untested ${observable}; 1 error`;
  expect(lastLine(run.stdout).startsWith(`Conformance: ERROR — ${sentence} — ${counts} (`)).toBe(true);
  expect(run.report().summary).toMatchObject({ verdict: 'ERROR', headline: sentence, tests: { total: 0 } });
  expect(readFileSync(summaryFile, 'utf8')).toBe(`an earlier step wrote this\n${run.file('conformance.md')}\n`);
});

test('merge-reports exits with the verdict: 2 for ERROR, as the unsharded run', async ({}, testInfo) => {
  const blobs = testInfo.outputPath('blobs');
  const shard = (n: number) =>
    runPlaywright(
      ['test', '--config', FAKE_SUITE_CONFIG, `--shard=${n}/2`, '--reporter=blob', ...UNJUDGED.args],
      {
        ...UNJUDGED.env,
        FAKE_OUT_DIR: testInfo.outputPath(`shard-${n}`),
        PLAYWRIGHT_BLOB_OUTPUT_FILE: join(blobs, `shard-${n}.zip`),
      },
      FAKE_RUN_TIMEOUT_MS,
    );
  for (const run of await Promise.all([shard(1), shard(2)])) expect(run.code, run.stdout + run.stderr).toBe(0);
  const out = testInfo.outputPath('merged');
  const env = { FAKE_OUT_DIR: out, RSF_WAIVERS_FILE: join(out, 'no-waivers.json') };
  const merge = await runPlaywright(
    ['merge-reports', '--config', join(SUITE_DIR, 'merge.config.ts'), blobs],
    env,
    FAKE_RUN_TIMEOUT_MS,
  );
  expect(merge.code, merge.stdout + merge.stderr).toBe(2);
  expect(lastLine(merge.stdout)).toMatch(
    /^Conformance: ERROR — the target stopped answering at .*; 2 tests not run — /,
  );
  expect(readReport(join(out, 'reports')).summary).toMatchObject({ verdict: 'ERROR', exitCode: 2 });
});
