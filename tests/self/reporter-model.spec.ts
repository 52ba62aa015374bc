// The status rules, the exit policy and the renderers of the conformance reporter, on plain data (no child process).
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Requirement, requirements } from '../../src/model/catalogue';
import {
  CHECK_ANNOTATION,
  type Evidence,
  INTERRUPTED_ANNOTATION,
  slowDownDescription,
  slowDownOf,
} from '../../src/checks/check-protocol';
import { crashedUnjudged, runStatusOf, timedOutUnjudged } from '../../src/playwright/collect';
import { expect, test } from '../../src/playwright/fixtures';
import { type Baseline, loadBaseline } from '../../src/report/baseline';
import ConformanceReporter, {
  projectDirName,
  projectDirs,
  removeEarlierReports,
} from '../../src/playwright/conformance-reporter';
import { evidenceText, runFacts, verdictLine } from '../../src/report/format';
import { buildReport } from '../../src/report/model';
import type { ReportInput, RequirementRow, Status, TestRecord } from '../../src/report/model';
import { renderHtml } from '../../src/report/render-html';
import { REPORTS_LOCK } from '../../src/report/reports-dir';
import { renderJunit } from '../../src/report/render-junit';
import { MARKDOWN_LIMIT, renderMarkdown } from '../../src/report/render-markdown';
import { oneSentence } from '../../src/report/verdict';
import { loadWaivers } from '../../src/report/waivers';
import { scratchDir } from './support/scratch';

const req = (id: string, level: Requirement['level'], extra: Partial<Requirement> = {}): Requirement => ({
  id,
  section: '4.4',
  level,
  operations: [4],
  text: `text of ${id}`,
  ...extra,
});
const CATALOGUE = [
  req('A-MUST', 'MUST'),
  req('B-MUST', 'MUST'),
  req('C-SHOULD', 'SHOULD'),
  req('D-INFO', 'INFO'),
  req('E-HIDDEN', 'MUST', { observable: false, notObservableBecause: 'client side' }),
];

const t = (tags: string[], over: Partial<TestRecord> = {}): TestRecord => ({
  title: `test of ${tags.join(' ')}`,
  file: 'tests/conformance/x.spec.ts',
  line: 1,
  project: '',
  tags,
  status: 'passed',
  flaky: false,
  durationMs: 5,
  checks: [],
  evidence: [],
  errors: [],
  ...over,
});
const failedCheck = (id: string): Partial<TestRecord> => ({ status: 'failed', checks: [{ id, outcome: 'failed' }] });
const STOPPED = 'the target stopped answering at 2030-01-02T03:04:05.000Z (last request: GET /v1/prices)';
const notRun = (tags: string[]): TestRecord =>
  t(tags, { status: 'skipped', unjudged: { kind: 'not run', reason: STOPPED } });

function build(tests: TestRecord[], over: Partial<ReportInput> = {}) {
  const input: ReportInput = {
    catalogue: CATALOGUE,
    tests,
    metadata: {},
    waivers: [],
    errors: [],
    startTime: new Date('2030-01-02T00:00:00Z'),
    durationMs: 1,
    ...over,
  };
  const report = buildReport(input);
  const row = (id: string): RequirementRow => {
    const found = report.requirements.find((r) => r.id === id);
    if (!found) throw new Error(`no row ${id}`);
    return found;
  };
  return { report, row, status: (id: string): Status => row(id).status };
}

function baselineOf(statuses: Record<string, string>): Baseline {
  const entries = Object.entries(statuses).map(([id, status]): [string, { level: string; status: string }] => [
    id,
    { level: 'MUST', status },
  ]);
  return {
    file: '/ci/baseline/conformance.json',
    date: '2030-01-01',
    target: 'x',
    suiteVersion: '1',
    verdict: 'PASS',
    requirements: new Map(entries),
  };
}

test('a failed check fails a MUST and warns a SHOULD or INFO; the verdict follows the MUST', () => {
  const { report, status, row } = build([
    t(['A-MUST'], { status: 'failed', errors: ['expected 4xx'], checks: [{ id: 'A-MUST', outcome: 'failed' }] }),
    t(['C-SHOULD', 'D-INFO'], {
      checks: [
        { id: 'C-SHOULD', outcome: 'failed' },
        { id: 'D-INFO', outcome: 'failed' },
      ],
    }),
  ]);
  expect([status('A-MUST'), status('C-SHOULD'), status('D-INFO')]).toEqual(['failed', 'warning', 'warning']);
  expect(report.summary).toMatchObject({ verdict: 'FAIL', exitCode: 1, headline: '1 MUST requirement failed' });
  // Without an evidence attachment, the test's error stands in; a soft check has none.
  expect(row('A-MUST').evidence[0]).toMatchObject({ kind: 'check', message: 'expected 4xx' });
  expect(row('C-SHOULD').evidence[0]).toMatchObject({ message: 'check failed; no evidence was attached' });
});

test('strict (RSF_FAIL_ON=strict or RSF_STRICT) turns a SHOULD warning into FAIL, never an INFO deviation', () => {
  const should = [t(['C-SHOULD'], { checks: [{ id: 'C-SHOULD', outcome: 'failed' }] })];
  const info = [t(['D-INFO'], { checks: [{ id: 'D-INFO', outcome: 'failed' }] })];
  expect(build(should).report.summary.verdict).toBe('PASS');
  expect(build(should, { strict: true }).report.summary).toMatchObject({ verdict: 'FAIL', failOn: 'strict' });
  expect(build(should, { failOn: 'strict' }).report.summary).toMatchObject({ verdict: 'FAIL', strict: true });
  expect(build(info, { failOn: 'strict' }).report.summary.verdict).toBe('PASS');
});

test('interrupted, not-run and skipped tests leave a requirement untested or skipped, never passed', () => {
  const { report, status, row } = build([
    t(['A-MUST'], { status: 'interrupted' }),
    t(['B-MUST'], { status: 'skipped', skipReason: 'writes are off' }),
    t(['C-SHOULD'], { status: 'not run' }),
  ]);
  expect([status('A-MUST'), status('B-MUST'), status('C-SHOULD')]).toEqual(['untested', 'skipped', 'untested']);
  expect(row('B-MUST').reason).toBe('writes are off');
  expect(row('A-MUST').reason).toContain('was interrupted');
  expect(status('E-HIDDEN')).toBe('not-observable');
  expect(report.summary.tests.notRun).toBe(2);
});

test('a test that broke outside any check judges none of its tags: ERROR, not FAIL; a pass vouches for its own', () => {
  // Before, it failed every requirement it is tagged with: a TypeError of the suite's, or Playwright's "Test not found
  // in the worker process" for a checkout changed under a running suite, read as the target's non-conformance.
  const errors = [{ message: "TypeError: Cannot read properties of undefined (reading 'id')\n    at …" }];
  const unjudged = crashedUnjudged({ status: 'failed', annotations: [], errors });
  expect(unjudged).toEqual({
    kind: 'inconclusive',
    reason:
      "the test broke outside any check (TypeError: Cannot read properties of undefined (reading 'id')): that is " +
      "the suite's failure or Playwright's, not the target's: report it with this run's reports/ folder",
  });
  // A SHOULD check that failed only warned: the test did not fail for it.
  const warned = { type: CHECK_ANNOTATION, description: 'HTTP-AUTH-401 failed' };
  expect(crashedUnjudged({ status: 'failed', annotations: [warned], errors })).toEqual(unjudged);
  const failedMust = { type: CHECK_ANNOTATION, description: 'OP1-SUCCESS-SHAPE failed' };
  expect(crashedUnjudged({ status: 'failed', annotations: [failedMust], errors })).toBeUndefined();
  expect(crashedUnjudged({ status: 'timedOut', annotations: [], errors })).toBeUndefined();
  const crashed = t(['A-MUST'], { status: 'failed', errors: errors.map((e) => e.message), unjudged });
  const { status, report } = build([t(['A-MUST']), crashed, t(['B-MUST'])]);
  expect([status('A-MUST'), status('B-MUST')]).toEqual(['inconclusive', 'passed']);
  expect(report.summary.tests).toMatchObject({ failed: 0, inconclusive: 1 });
  expect(report.summary.verdict).toBe('ERROR');
});

test('a test its worker cut short as the run was interrupted is interrupted, not skipped, and names no outage', () => {
  const cutShort = { type: INTERRUPTED_ANNOTATION, description: 'operation 1 (GET /v1/prices, §4.1): interrupted' };
  expect(runStatusOf({ status: 'skipped', annotations: [cutShort] })).toBe('interrupted');
  expect(runStatusOf({ status: 'skipped', annotations: [] })).toBe('skipped');
  expect(runStatusOf(undefined)).toBe('not run');
  const { status, report } = build([t(['A-MUST'], { status: 'interrupted' }), t(['B-MUST'])]);
  // As a test Playwright interrupted itself: nothing was learnt of its requirements, and it is unfinished.
  expect([status('A-MUST'), status('B-MUST')]).toEqual(['untested', 'passed']);
  expect(report.summary.tests).toMatchObject({ notRun: 1, skipped: 0 });
  // Not the breaker's sentence: the target did not stop answering.
  expect(report.summary.stoppedAnswering).toBeUndefined();
});

test('a test that ran out of time before a check failed is not judged; one whose check had failed still fails', () => {
  const errors = [{ message: 'Test timeout of 5ms exceeded while setting up "api".' }];
  const unjudged = timedOutUnjudged({ status: 'timedOut', annotations: [], errors });
  expect(unjudged).toEqual({
    kind: 'inconclusive',
    reason: expect.stringMatching(
      /^Test timeout of 5ms exceeded while setting up "api": the spec shows no time-outs \(§8\)/,
    ),
  });
  const failedCheck = { type: CHECK_ANNOTATION, description: 'OP1-SUCCESS-SHAPE failed' };
  expect(timedOutUnjudged({ status: 'timedOut', annotations: [failedCheck], errors })).toBeUndefined();
  // A SHOULD check only warned: the time-out still stopped the test before its MUST checks.
  const warned = { type: CHECK_ANNOTATION, description: 'HTTP-AUTH-401 failed' };
  expect(timedOutUnjudged({ status: 'timedOut', annotations: [warned], errors })).toEqual(unjudged);
  expect(timedOutUnjudged({ status: 'failed', annotations: [], errors })).toBeUndefined();
  const { status, report } = build([t(['A-MUST'], { status: 'timedOut', unjudged }), t(['B-MUST'])]);
  expect([status('A-MUST'), status('B-MUST')]).toEqual(['inconclusive', 'passed']);
  expect(report.summary.tests).toMatchObject({ failed: 0, inconclusive: 1 });
});

test('untested checks vouch for nothing: the requirement is untested with their reason, even in a passing test', () => {
  const noSample = 'no product carried the logged-in stock fields';
  const { status, row } = build([
    t(['A-MUST', 'B-MUST'], { checks: [{ id: 'A-MUST', outcome: 'untested', reason: noSample }] }),
    t(['C-SHOULD'], {
      checks: [
        { id: 'C-SHOULD', outcome: 'untested', reason: 'no 2xx body reached a schema check' },
        { id: 'C-SHOULD', outcome: 'passed' },
      ],
    }),
  ]);
  expect(row('A-MUST')).toMatchObject({ status: 'untested', reason: noSample });
  expect(row('A-MUST').tests[0]?.checks).toEqual({ passed: 0, failed: 0, untested: 1 });
  // Today's rule is kept where the test said nothing about the requirement: a passing test vouches for its tags.
  expect(status('B-MUST')).toBe('passed');
  // One applicable sample is enough.
  expect(status('C-SHOULD')).toBe('passed');
});

test('a test stopped as inconclusive or not run: what it had judged counts, the rest is not judged, ERROR', () => {
  const throttled = t(['A-MUST', 'B-MUST'], {
    status: 'skipped',
    checks: [{ id: 'A-MUST', outcome: 'passed' }],
    unjudged: { kind: 'inconclusive', reason: 'every attempt was throttled (HTTP 429)' },
    retries: 5,
  });
  const { report, row } = build([throttled, notRun(['C-SHOULD']), notRun(['D-INFO'])]);
  expect(row('A-MUST').status).toBe('passed');
  expect(row('B-MUST')).toMatchObject({ status: 'inconclusive', reason: 'every attempt was throttled (HTTP 429)' });
  expect(row('B-MUST').tests[0]).toMatchObject({ outcome: 'inconclusive', retries: 5 });
  expect(row('C-SHOULD')).toMatchObject({ status: 'not run', reason: STOPPED });
  const s = report.summary;
  expect(s).toMatchObject({ verdict: 'ERROR', exitCode: 2, requestsRetried: 5, stoppedAnswering: STOPPED });
  expect(s.headline).toBe(`${STOPPED}; 2 tests not run`);
  expect(s.verdictReasons).toEqual([
    `${STOPPED}; 2 tests not run`,
    expect.stringContaining('1 MUST requirement inconclusive (B-MUST)'),
  ]);
  expect(s.tests).toMatchObject({ skipped: 0, inconclusive: 1, notRun: 2 });
  expect(s.counts.MUST).toMatchObject({ inconclusive: 1, passed: 1 });
  expect(verdictLine(s, 'r.html')).toMatch(
    new RegExp(
      '^Conformance: ERROR — the target stopped answering at .*; 2 tests not run — MUST 0 failed / 3;' +
        '.* inconclusive 1; not run 2; 5 throttled answers retried \\(r\\.html\\)$',
    ),
  );
});

test('valid inputs refused for a reason the spec allows are counted by operation, with an example of each', () => {
  const refused = (count: number, example: string) => ({ allowedRefusals: { count, example } });
  const { report } = build([
    t(['A-MUST'], refused(2, 'operation 5: [{"amount":4294967296}] answered HTTP 422 "could not be updated"')),
    t(['B-MUST'], refused(1, 'operation 1: {"clientPostalCode":0} answered HTTP 422 {"status":"error"}')),
    t(['C-MUST'], refused(4, 'operation 5: [{"amount":9007199254740991}] answered HTTP 422 "could not be updated"')),
    t(['D-SHOULD']),
  ]);
  expect(report.summary).toMatchObject({
    verdict: 'PASS',
    allowedRefusals: { count: 7, byOperation: { '1': 1, '5': 6 } },
  });
  const [, line] = runFacts(report.summary).find(([name]) => name === 'Valid input refused') ?? [];
  expect(line).toContain('7 valid inputs (operation 1: 1, operation 5: 6) refused for a reason the spec lists');
  expect(line, 'the first example of each operation').toContain('4294967296');
  expect(line).not.toContain('9007199254740991');
  expect(runFacts(build([t(['A-MUST'])]).report.summary).map(([name]) => name)).not.toContain('Valid input refused');
});

test('requests refused for their size are counted in the facts: their valid input was not judged', () => {
  const { report } = build([t(['A-MUST'], { sizeRefused: 2 }), t(['B-MUST'], { sizeRefused: 1 }), t(['C-SHOULD'])]);
  expect(report.summary).toMatchObject({ verdict: 'PASS', sizeRefused: 3 });
  expect(runFacts(report.summary)).toContainEqual([
    'Refused for their size',
    '3 requests (HTTP 413, 414 or 431, or refused though carried out with its long texts cut to the configured ' +
      "values' size): the valid input they carried was not judged, a limit §8 leaves open (the API, or a web server " +
      'in front of it, may set one)',
  ]);
  expect(renderMarkdown(report)).toContain('Refused for their size');
  // None refused: no such fact.
  expect(runFacts(build([t(['A-MUST'])]).report.summary).map(([name]) => name)).not.toContain('Refused for their size');
});

test('a run that paused for an outage and went on says so: each outage once, whichever tests carry it', () => {
  // Two workers' tests carry the same pause (each worker's next test takes what its requests rode out).
  const first = '2030-01-02T03:04:05.000Z';
  const later = '2030-01-02T03:05:00.000Z';
  const { report } = build([t(['A-MUST'], { pauses: [first] }), t(['B-MUST'], { pauses: [first, later] })]);
  expect(report.summary).toMatchObject({ verdict: 'PASS', paused: { times: 2, firstSince: first } });
  expect(runFacts(report.summary)).toContainEqual([
    'Run paused',
    `2 times, the first from ${first} on: requests in a row got no usable answer, the run paused 5 s and asked for ` +
      'the price list again, which answered; the requests that got none are inconclusive',
  ]);
  expect(verdictLine(report.summary, 'r.html')).toMatch(/; run paused 2 times \(r\.html\)$/);
  expect(runFacts(build([t(['A-MUST'])]).report.summary).map(([name]) => name)).not.toContain('Run paused');
});

test('a run the target slowed down says how often, why, how slow, and the setting; the verdict is unchanged', () => {
  const throttledTest = t(['A-MUST'], { slowDowns: [{ status: 429, ratePerSecond: 6.5 }], retries: 3 });
  const overloadedTest = t(['B-MUST'], { slowDowns: [{ status: 503, ratePerSecond: 3.25 }] });
  const runnerSlowDowns = [{ status: 429, ratePerSecond: 13 }];
  const { report } = build([throttledTest, overloadedTest, t(['C-SHOULD'])], { runnerSlowDowns });
  const s = report.summary;
  expect(s).toMatchObject({
    verdict: 'PASS',
    slowedDown: { times: 3, statuses: [429, 503], slowestRatePerSecond: 3.25 },
  });
  expect(verdictLine(s, 'r.html')).toMatch(/; 3 throttled answers retried; run slowed down 3 times \(r\.html\)$/);
  const fact =
    '3 times (HTTP 429: the target throttled it; HTTP 503 without Retry-After: the target was overloaded, or a rate ' +
    'limiter refused requests), down to 3.25 requests a second over the run; RSF_MAX_REQUESTS_PER_SECOND=3 starts a ' +
    'run at such a pace';
  expect(renderMarkdown(report)).toContain(`| Run slowed down | ${fact} |`);
  expect(renderHtml(report)).toContain('Run slowed down');
  expect(renderJunit(report)).toContain('Run slowed down');

  const unthrottled = build([t(['A-MUST'])]).report.summary;
  expect(unthrottled.slowedDown).toBeUndefined();
  expect(verdictLine(unthrottled, 'r.html')).not.toContain('slowed down');
  expect(renderMarkdown(build([t(['A-MUST'])]).report)).not.toContain('Run slowed down');
});

test('a slow-down to the floor of 1 request a second reads so, and its annotation reads back', () => {
  // A target that throttles the preflight's reads side by side halves a pace it barely knows: down to the floor.
  for (const ratePerSecond of [1, 2.5]) {
    const description = slowDownDescription({ status: 429, ratePerSecond });
    expect(slowDownOf(description), description).toEqual({ status: 429, ratePerSecond });
  }
  expect(slowDownDescription({ status: 429, ratePerSecond: 1 })).toBe('HTTP 429: 1 request a second over the run');
  const { report } = build([t(['A-MUST'], { slowDowns: [{ status: 429, ratePerSecond: 1 }] })]);
  expect(renderMarkdown(report)).toContain('down to 1 request a second over the run');
});

test('the answer that stopped a test unjudged is the evidence of the requirements it left inconclusive', () => {
  const answer = {
    request: { method: 'GET', url: 'https://staging.example/v1/prices', headers: {} },
    response: { status: 403, contentType: 'text/html', bodyExcerpt: '<h1>Request blocked</h1>' },
    curl: 'curl -sS "https://staging.example/v1/prices"',
  };
  const reason = 'operation 9 (GET /v1/prices, §4.9) answered HTTP 403 with a web page (text/html), not JSON: …';
  const blocked = t(['A-MUST', 'B-MUST'], {
    status: 'skipped',
    checks: [{ id: 'A-MUST', outcome: 'passed' }],
    unjudged: { kind: 'inconclusive', reason, answer },
  });
  const { row, report } = build([blocked, notRun(['C-SHOULD'])]);
  expect(row('B-MUST').unjudgedEvidence).toEqual([
    expect.objectContaining({
      kind: 'unjudged',
      message: reason,
      evidence: expect.objectContaining({ exchanges: [answer] }),
    }),
  ]);
  expect(row('B-MUST').evidence, 'no failure evidence: nothing failed').toEqual([]);
  // Judged before the stop, or stopped without an answer: none.
  expect(row('A-MUST').unjudgedEvidence).toBeUndefined();
  expect(row('C-SHOULD').unjudgedEvidence).toBeUndefined();
  // junit.xml's <error> of the requirement carries it; conformance.md gives it once, to send again by hand.
  const junit = renderJunit(report);
  const error = /name="B-MUST [^"]*" time="[\d.]+">\n\s*<error message="inconclusive: [^"]*" type="inconclusive" \/>/;
  expect(junit).toMatch(error);
  expect(junit).toContain('replay with: curl -sS &quot;https://staging.example/v1/prices&quot;');
  const md = renderMarkdown(report);
  expect(md).toContain(`Answers not judged (1; 1 shown), to send again:\n\n\`\`\`text\n${answer.curl}\n\`\`\``);
});

test('an unjudged requirement beats a passing test of it, and only MUST (strict: SHOULD too) makes an ERROR', () => {
  const inconclusive = (tags: string[]) =>
    t(tags, { status: 'skipped', unjudged: { kind: 'inconclusive', reason: 'no answer within 2000 ms' } });
  expect(build([t(['A-MUST']), inconclusive(['A-MUST'])]).status('A-MUST')).toBe('inconclusive');
  expect(build([inconclusive(['C-SHOULD'])]).report.summary.verdict).toBe('PASS');
  const strict = build([inconclusive(['C-SHOULD'])], { failOn: 'strict' }).report.summary;
  expect(strict).toMatchObject({
    verdict: 'ERROR',
    headline: expect.stringContaining('1 MUST or SHOULD requirement inconclusive'),
  });
});

test('precedence: a MUST failure is FAIL and says what could not be judged; a configuration error is ERROR', () => {
  const tests = [t(['A-MUST'], failedCheck('A-MUST')), notRun(['B-MUST'])];
  const fail = build(tests).report.summary;
  expect(fail).toMatchObject({ verdict: 'FAIL', exitCode: 1 });
  expect(fail.headline).toBe(`1 MUST requirement failed; could not judge: ${STOPPED}; 1 test not run`);
  expect(verdictLine(fail, 'r.html')).toMatch(
    /^Conformance: FAIL — 1 MUST requirement failed; could not judge: the target/,
  );
  const error = build(tests, { configErrors: ['RSF_BASELINE: /x.json cannot be read as JSON: Unexpected token'] });
  expect(error.report.summary).toMatchObject({ verdict: 'ERROR', exitCode: 2 });
  expect(error.report.summary.headline).toBe(
    'the configuration is invalid: RSF_BASELINE: /x.json cannot be read as JSON: Unexpected token',
  );
});

test('run errors and failed untagged tests are ERROR; unknown ID-like tags are listed', () => {
  const crashed = t(['smoke', 'Z-UNKNOWN'], { status: 'failed', errors: ['boom'] });
  const { report } = build([crashed], { errors: ['worker crashed'] });
  expect(report.summary).toMatchObject({ verdict: 'ERROR', headline: 'worker crashed (and 1 more error)' });
  expect(report.summary.errors).toEqual([
    'worker crashed',
    expect.stringContaining('carries no requirement tag: boom'),
  ]);
  expect(report.summary.unknownTags).toEqual(['Z-UNKNOWN']);
});

test('a failed global setup is one sentence that names the setting', () => {
  const setup =
    'Error: Invalid configuration (see README, "Configuration"):\n  - RSF_ORDER_ALB_NUMBER: no order 1/9\n  - RSF_X: y';
  const { report } = build([], { errors: [setup] });
  expect(report.summary.headline).toBe(
    'Invalid configuration (see README, "Configuration"): RSF_ORDER_ALB_NUMBER: no order 1/9; RSF_X: y',
  );
  const preflight =
    'PreflightError: Preflight failed, so no test was run.\n  GET http://t/v1/prices\n  HTTP 403: refused.';
  expect(oneSentence(preflight)).toBe(
    'Preflight failed, so no test was run: GET http://t/v1/prices; HTTP 403: refused',
  );
  expect(oneSentence('Error: boom\n    at run (/x.ts:1:2)\n    at main (/y.ts:3:4)')).toBe('boom');
  expect(oneSentence('y'.repeat(1000))).toHaveLength(300);
});

test('waivers hide failures; expired ones stop waiving and say so; stale ones are reported; open ones counted', () => {
  const tests = [t(['A-MUST'], failedCheck('A-MUST')), t(['B-MUST'], failedCheck('B-MUST')), t(['C-SHOULD'])];
  const waivers = [
    { id: 'A-MUST', reason: 'known', owner: 'team-a', expires: '2030-01-02' },
    { id: 'B-MUST', reason: 'was known', owner: 'team-b', expires: '2030-01-01' },
    { id: 'C-SHOULD', reason: 'stale' },
  ];
  const { report, row } = build(tests, { waivers });
  expect(row('A-MUST')).toMatchObject({ status: 'waived', waivedStatus: 'failed', reason: 'known' });
  expect(row('B-MUST')).toMatchObject({ status: 'failed', expiredWaiver: waivers[1] });
  expect(row('B-MUST').reason).toBe('waiver expired on 2030-01-01 (owner team-b): was known');
  expect(report.summary.verdict).toBe('FAIL');
  expect(report.summary.waivers.map((w) => [w.id, w.state, w.used, w.note])).toEqual([
    ['A-MUST', 'waiving', true, 'waives a failure'],
    ['B-MUST', 'expired', false, 'expired on 2030-01-01: B-MUST counts again (failed)'],
    ['C-SHOULD', 'stale', false, 'matches no failure: the requirement is passed'],
  ]);
  expect(report.summary.waiverCounts).toEqual({ open: 2, waiving: 1, stale: 1, expired: 1 });
});

test('regression policy: a MUST that passed (or was not judged, or is new) and fails now fails the run', () => {
  const tests = [t(['A-MUST'], failedCheck('A-MUST')), t(['B-MUST'], failedCheck('B-MUST')), t(['C-SHOULD'])];
  const baseline = baselineOf({ 'A-MUST': 'passed', 'B-MUST': 'failed', 'C-SHOULD': 'warning', 'Z-GONE': 'passed' });
  const { report, row } = build(tests, { failOn: 'regression', baseline });
  expect(row('A-MUST')).toMatchObject({ status: 'failed', change: 'regressed', baselineStatus: 'passed' });
  expect(row('B-MUST')).toMatchObject({ change: 'still failing' });
  expect(row('C-SHOULD')).toMatchObject({ status: 'passed', change: 'fixed' });
  expect(row('D-INFO').change).toBe('new');
  const s = report.summary;
  expect(s).toMatchObject({ verdict: 'FAIL', headline: '1 MUST regression against the baseline: A-MUST' });
  expect(s.baseline?.regressed.map((c) => c.id)).toEqual(['A-MUST']);
  expect(s.baseline?.stillFailing.map((c) => c.id)).toEqual(['B-MUST']);
  expect(s.baseline?.fixed.map((c) => c.id)).toEqual(['C-SHOULD']);
  expect(s.baseline?.new.map((c) => c.id)).toEqual(['D-INFO', 'E-HIDDEN']);
  expect(s.baseline?.gone).toEqual([{ id: 'Z-GONE', level: 'MUST', before: 'passed' }]);
  expect(verdictLine(s, 'r.html')).toMatch(
    /^Conformance: FAIL — 1 MUST regression against the baseline: A-MUST — MUST 2 failed/,
  );
  // The known failure alone: PASS, and listed.
  const known = build([tests[1] as TestRecord], { failOn: 'regression', baseline }).report.summary;
  expect(known).toMatchObject({
    verdict: 'PASS',
    headline: 'no MUST requirement regressed against the baseline (1 known failure: B-MUST)',
  });
  // A new MUST that fails is a finding the baseline did not have.
  const fresh = build([t(['A-MUST'], failedCheck('A-MUST'))], { failOn: 'regression', baseline: baselineOf({}) });
  expect(fresh.report.summary.verdict).toBe('FAIL');
  // A waiver that expired is enforced even when the baseline knew the failure.
  const waivers = [{ id: 'B-MUST', reason: 'until January', expires: '2030-01-01' }];
  const expired = build([tests[1] as TestRecord], { failOn: 'regression', baseline, waivers }).report.summary;
  expect(expired).toMatchObject({ verdict: 'FAIL', headline: '1 MUST failure whose waiver expired: B-MUST' });
  // Without the regression policy, the comparison is shown and the known failure fails the run.
  expect(build([tests[1] as TestRecord], { baseline }).report.summary.verdict).toBe('FAIL');
});

test('baseline file: any conformance.json, compared by ID; anything else is an error that names the file', () => {
  const dir = scratchDir('baseline');
  const file = (name: string, content: string) => {
    writeFileSync(join(dir, name), content);
    return join(dir, name);
  };
  const older = {
    format: 'rsf-conformance/1',
    summary: { date: 'd', verdict: 'FAIL' },
    requirements: [{ id: 'X-1', level: 'MUST', status: 'failed' }],
  };
  expect(loadBaseline(file('ok.json', JSON.stringify(older))).requirements.get('X-1')).toEqual({
    level: 'MUST',
    status: 'failed',
  });
  // As a Windows editor saves it, a byte order mark first: JSON.parse refused it, for an invisible character.
  expect(loadBaseline(file('bom.json', `\ufeff${JSON.stringify(older)}`)).requirements.get('X-1')?.status).toBe(
    'failed',
  );
  expect(() => loadBaseline(join(dir, 'absent.json'))).toThrow(/absent\.json cannot be read as JSON/);
  expect(() => loadBaseline(file('bad.json', '{'))).toThrow(/cannot be read as JSON/);
  expect(() => loadBaseline(file('other.json', '{"format":"junit"}'))).toThrow(/is not a conformance\.json/);
  expect(() => loadBaseline(file('rows.json', '{"format":"rsf-conformance/1","requirements":[{}]}'))).toThrow(
    /without a string "id"/,
  );
});

test('junit: could-not-judge is an <error>, an enforced failure a <failure>, a known failure <skipped>', () => {
  const tests = [t(['A-MUST'], failedCheck('A-MUST')), t(['B-MUST'], failedCheck('B-MUST')), notRun(['C-SHOULD'])];
  const baseline = baselineOf({ 'A-MUST': 'passed', 'B-MUST': 'failed' });
  const junit = renderJunit(build(tests, { failOn: 'regression', baseline }).report);
  expect(junit).toMatch(
    /name="A-MUST [^"]*" time="[\d.]+">\n\s*<failure message="[^"]*\(regressed: passed in the baseline\)"/,
  );
  expect(junit).toMatch(
    /name="B-MUST [^"]*" time="[\d.]+">\n\s*<skipped message="known failure, in the baseline \(failed\)/,
  );
  expect(junit).toMatch(/name="C-SHOULD [^"]*" time="[\d.]+">\n\s*<error message="not run: the target stopped/);
  expect(junit).toMatch(/<testsuites name="[^"]*: FAIL" tests="5" failures="1" errors="1" skipped="3"/);
  expect(junit).toContain(
    '<property name="Compared with the baseline" value="regressed 1 (A-MUST); fixed 0; still failing 1 (B-MUST)',
  );
});

test('renderers escape what they show; Markdown keeps raw text in code blocks only', () => {
  const nasty = '<img src=x onerror=alert(1)> | "quoted" & \u0001';
  const { report } = build([
    t(['A-MUST'], { title: nasty, ...failedCheck('A-MUST'), evidence: [{ id: 'A-MUST', raw: nasty }] }),
  ]);
  const page = renderHtml(report);
  expect(page).not.toContain('<img');
  expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
  expect(page).not.toMatch(/<script/i);
  const junit = renderJunit(report);
  expect(junit).not.toContain('<img');
  expect(junit).not.toContain('\u0001');
  const md = renderMarkdown(report);
  // A target's control bytes never reach a page or a terminal, not even inside a code block.
  expect(md).not.toContain('\u0001');
  expect(md).toContain('& \\u{1}');
  const outsideCode = md.replace(/^(`{3,})text\n[\s\S]*?\n\1$/gm, '');
  expect(outsideCode).not.toContain('<img');
  expect(outsideCode).toContain('<summary>&lt;img src=x onerror=alert(1)&gt; | "quoted" &amp;');
});

/** Evidence as a hostile target makes it: long bodies full of markup, backticks and table pipes. */
function bigEvidence(id: string): Evidence {
  const junk = `${'`'.repeat(7)} | <details> ## heading\n${'x'.repeat(200)}\n`.repeat(60);
  const exchange = {
    request: { method: 'GET', url: `https://t.example/v1/${id}`, headers: { accept: 'application/json' } },
    response: { status: 403, contentType: 'application/json', bodyExcerpt: junk },
    curl: 'curl …',
  };
  return {
    requirement: id,
    level: 'MUST',
    section: '4',
    operation: 'op',
    message: `MUST ${id}: refused\n${junk}`,
    schemaErrors: [junk],
    exchanges: [exchange, exchange],
  };
}

test("a property's seed and replay command are shown once: its message names them, other evidence does not", () => {
  const replay = "RSF_FC_SEED=7 RSF_FC_PATH=0 npx playwright test tests/conformance/properties.spec.ts -g 'x'";
  const evidence = (message: string): Evidence => ({
    requirement: 'OP4-UTILITY-MAX',
    level: 'MUST',
    section: '8',
    operation: 'operation 4',
    message,
    schemaErrors: [],
    exchanges: [],
    seed: '7',
    replay,
  });
  const text = (message: string) =>
    evidenceText({
      kind: 'check',
      test: 't',
      location: 'x.spec.ts:1',
      project: '',
      message,
      evidence: evidence(message),
    });
  const property = `MUST OP4-UTILITY-MAX: …\nProperty falsified\nSeed: 7  Path: 0\nReplay: ${replay}`;
  expect(text(property).match(/Seed: 7/g)).toHaveLength(1);
  expect(text(property).match(/Replay: /g)).toHaveLength(1);
  // Evidence whose message does not name them gets them at its end.
  expect(text('MUST OP4-UTILITY-MAX: refused').split('\n').slice(-2)).toEqual(['Seed: 7', `Replay: ${replay}`]);
});

test('conformance.md stays under 60,000 characters when everything fails, in the order the issue asks', () => {
  const all = requirements();
  const tests = all.map((r) =>
    t([r.id], {
      title: `${r.id} ${'long title '.repeat(30)}`,
      status: 'failed',
      checks: [{ id: r.id, outcome: 'failed' }],
      evidence: [1, 2, 3].map(() => ({ id: r.id, evidence: bigEvidence(r.id) })),
    }),
  );
  const baseline = baselineOf(Object.fromEntries(all.map((r) => [r.id, 'passed'])));
  const errors = Array.from({ length: 40 }, (_, i) => `error ${i} ${'e'.repeat(3000)}`);
  const waivers = all
    .slice(0, 60)
    .map((r) => ({ id: r.id, reason: 'r'.repeat(500), owner: 'o', expires: '2020-01-01' }));
  const report = buildReport({
    catalogue: all,
    tests,
    metadata: {},
    waivers,
    errors,
    failOn: 'regression',
    baseline,
    startTime: new Date(),
    durationMs: 1,
  });
  const md = renderMarkdown(report);
  expect(md.length).toBeLessThan(MARKDOWN_LIMIT);
  const order = [
    '# Reseller Storefront API conformance: FAIL',
    '| MUST |',
    '## Compared with the baseline',
    '## Failing requirements',
    '<details>',
    '## By operation',
  ];
  const at = order.map((marker) => md.indexOf(marker));
  expect(
    at.every((i) => i >= 0),
    JSON.stringify(at),
  ).toBe(true);
  expect(at).toEqual([...at].sort((a, b) => a - b));
  expect(md).toMatch(/more, with evidence in conformance\.html: /);
  // Every fence that opens closes: an excerpt cut short never leaves the rest of the page inside a code block.
  const outsideCode = md.replace(/^(`{3,})text\n[\s\S]*?\n\1$/gm, '');
  expect(outsideCode).not.toMatch(/^`{3,}/m);
  expect(outsideCode.match(/<details>/g)?.length).toBe(outsideCode.match(/<\/details>/g)?.length);
  // The compact tables name every requirement once, with its status.
  const status = (level: string) => (level === 'MUST' ? 'failed' : 'warning');
  for (const r of all) expect(md).toContain(`| ${r.id} | ${r.level} | ${status(r.level)} (regressed)`);
});

test('project names become safe, distinct directory names', () => {
  expect(projectDirName('fault:op4/utility max')).toBe('fault_op4_utility_max');
  expect(projectDirName('../etc')).toBe('__etc');
  expect(projectDirName('')).toBe('_default');
  expect(Object.fromEntries(projectDirs(['a:b', 'a/b', 'a_b']))).toEqual({
    'a/b': 'a_b',
    'a:b': 'a_b~2',
    a_b: 'a_b~3',
  });
});

test('waivers file: owner and expires are optional; bad JSON, unknown IDs, bad dates and duplicates are errors', () => {
  const dir = scratchDir('waivers');
  const known = new Set(['A-MUST', 'B-MUST']);
  const file = (name: string, content: unknown) => {
    writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
    return join(dir, name);
  };
  expect(loadWaivers(join(dir, 'absent.json'), known)).toMatchObject({ waivers: [], problems: [] });
  expect(loadWaivers(file('bad.json', '{'), known).problems[0]).toContain('is not valid JSON');
  const bom = loadWaivers(file('bom.json', `\ufeff${JSON.stringify([{ id: 'A-MUST', reason: 'r' }])}`), known);
  expect(bom).toMatchObject({ waivers: [{ id: 'A-MUST', reason: 'r' }], problems: [] });
  expect(loadWaivers(file('object.json', '{}'), known).problems[0]).toContain('must hold a JSON array');
  const mixed = loadWaivers(
    file('mixed.json', [
      { id: 'A-MUST', reason: 'ok' },
      { id: 'NOPE', reason: 'x' },
      { id: 'B-MUST', reason: ' ' },
      { id: 'A-MUST', reason: 'again' },
      { id: 'B-MUST', reason: 'r', expires: '2030-02-30' },
      { id: 'B-MUST', reason: 'r', owner: 7 },
    ]),
    known,
  );
  expect(mixed.waivers).toEqual([]);
  expect(mixed.problems).toEqual([
    expect.stringContaining('entry 2: unknown requirement ID "NOPE"'),
    expect.stringContaining('entry 3 (B-MUST): a reason is required'),
    expect.stringContaining('entry 4: A-MUST is waived twice'),
    expect.stringContaining('entry 5 (B-MUST): expires must be a date, YYYY-MM-DD, got "2030-02-30"'),
    expect.stringContaining('entry 6 (B-MUST): owner must be a string'),
  ]);
  const good = loadWaivers(
    file('good.json', [{ id: 'B-MUST', reason: ' known ', owner: ' me ', expires: '2030-12-31' }]),
    known,
  );
  expect(good.waivers).toEqual([{ id: 'B-MUST', reason: 'known', owner: 'me', expires: '2030-12-31' }]);
});

test('a run starts by removing the reports of an earlier run, but for the files it reads and what runs keep', () => {
  const dir = scratchDir('earlier-reports');
  const REPORTS = ['conformance.json', 'conformance.md', 'conformance.html', 'junit.xml', 'exchanges.har'];
  const seed = (names: string[]) => {
    mkdirSync(dir, { recursive: true });
    for (const name of names) writeFileSync(join(dir, name), 'from an earlier run');
  };
  const KEPT = ['.rsf-consumed.json', 'notes.txt', 'last-green.json'];
  seed([...REPORTS, ...KEPT]);
  // A run killed before its end (SIGKILL) writes no report: the earlier PASS must not read as its own.
  // It takes the folder's lock as well, released once its reports are written (reports-lock.spec.ts).
  new ConformanceReporter({ outputDir: dir });
  expect(readdirSync(dir).sort()).toEqual([...KEPT, REPORTS_LOCK].sort());

  // Its baseline, its waivers and the recording it replays are read by the run: they stay, wherever they are.
  seed(REPORTS);
  removeEarlierReports(dir, {
    RSF_BASELINE: join(dir, 'conformance.json'),
    RSF_WAIVERS_FILE: join(dir, 'junit.xml'),
    RSF_TARGET_URL: `har:${join(dir, 'exchanges.har')}`,
  });
  expect(REPORTS.filter((name) => existsSync(join(dir, name)))).toEqual([
    'conformance.json',
    'junit.xml',
    'exchanges.har',
  ]);
  // No folder yet: nothing to remove.
  removeEarlierReports(join(dir, 'absent'), {});
});
