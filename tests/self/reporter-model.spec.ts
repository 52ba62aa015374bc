// The status rules and helpers of the conformance reporter, on plain data (no child process).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Requirement } from '../support/catalogue';
import { expect, test } from '../support/fixtures';
import { projectDirName, projectDirs } from '../support/reporter/conformance-reporter';
import { renderHtml } from '../support/reporter/render-html';
import { renderJunit } from '../support/reporter/render-junit';
import { renderMarkdown } from '../support/reporter/render-markdown';
import { buildReport } from '../support/reporter/model';
import type { ReportInput, TestRecord } from '../support/reporter/model';
import { loadWaivers } from '../support/reporter/waivers';

const req = (id: string, level: Requirement['level'], extra: Partial<Requirement> = {}): Requirement => ({ id, section: '4.4', level, operations: [4], text: `text of ${id}`, ...extra });
const CATALOGUE = [req('A-MUST', 'MUST'), req('B-MUST', 'MUST'), req('C-SHOULD', 'SHOULD'), req('D-INFO', 'INFO'), req('E-HIDDEN', 'MUST', { observable: false, notObservableBecause: 'client side' })];

const t = (tags: string[], over: Partial<TestRecord> = {}): TestRecord => ({
  title: `test of ${tags.join(' ')}`, file: 'tests/conformance/x.spec.ts', line: 1, project: '', tags, status: 'passed', flaky: false, durationMs: 5, checks: [], evidence: [], errors: [], ...over,
});

function build(tests: TestRecord[], over: Partial<ReportInput> = {}) {
  const report = buildReport({ catalogue: CATALOGUE, tests, metadata: {}, strict: false, waivers: [], errors: [], startTime: new Date(0), durationMs: 1, ...over });
  return { report, status: (id: string) => report.requirements.find((r) => r.id === id)?.status };
}

test('a failed check fails a MUST and warns a SHOULD or INFO; the verdict follows the MUST', () => {
  const { report, status } = build([
    t(['A-MUST'], { status: 'failed', errors: ['expected 4xx'], checks: [{ id: 'A-MUST', outcome: 'failed' }] }),
    t(['C-SHOULD', 'D-INFO'], { checks: [{ id: 'C-SHOULD', outcome: 'failed' }, { id: 'D-INFO', outcome: 'failed' }] }),
  ]);
  expect([status('A-MUST'), status('C-SHOULD'), status('D-INFO')]).toEqual(['failed', 'warning', 'warning']);
  expect(report.summary.verdict).toBe('FAIL');
  // Without an evidence attachment, the test's error stands in; a soft check has none.
  expect(report.requirements.find((r) => r.id === 'A-MUST')?.evidence[0]).toMatchObject({ kind: 'check', message: 'expected 4xx' });
  expect(report.requirements.find((r) => r.id === 'C-SHOULD')?.evidence[0]).toMatchObject({ kind: 'check', message: 'check failed; no evidence was attached' });
});

test('strict turns a SHOULD warning into FAIL, never an INFO deviation', () => {
  const should = [t(['C-SHOULD'], { checks: [{ id: 'C-SHOULD', outcome: 'failed' }] })];
  const info = [t(['D-INFO'], { checks: [{ id: 'D-INFO', outcome: 'failed' }] })];
  expect(build(should).report.summary.verdict).toBe('PASS');
  expect(build(should, { strict: true }).report.summary.verdict).toBe('FAIL');
  expect(build(info, { strict: true }).report.summary.verdict).toBe('PASS');
});

test('interrupted, not-run and skipped tests leave a requirement untested or skipped, never passed', () => {
  const { report, status } = build([
    t(['A-MUST'], { status: 'interrupted' }),
    t(['B-MUST'], { status: 'skipped', skipReason: 'writes are off' }),
    t(['C-SHOULD'], { status: 'not run' }),
  ]);
  expect([status('A-MUST'), status('B-MUST'), status('C-SHOULD')]).toEqual(['untested', 'skipped', 'untested']);
  expect(report.requirements.find((r) => r.id === 'B-MUST')?.reason).toBe('writes are off');
  expect(report.requirements.find((r) => r.id === 'A-MUST')?.reason).toContain('was interrupted');
  expect(status('E-HIDDEN')).toBe('not-observable');
  expect(report.summary.tests.notRun).toBe(2);
});

test('one failing test among passing ones fails the requirement; a passing test alone vouches for its tags', () => {
  const { status } = build([t(['A-MUST']), t(['A-MUST'], { status: 'timedOut', errors: ['Test timeout of 5ms exceeded.'] }), t(['B-MUST'])]);
  expect([status('A-MUST'), status('B-MUST')]).toEqual(['failed', 'passed']);
});

test('waivers hide failures and warnings only, and report whether they were used', () => {
  const tests = [t(['A-MUST'], { status: 'failed', checks: [{ id: 'A-MUST', outcome: 'failed' }] }), t(['B-MUST'])];
  const { report, status } = build(tests, { waivers: [{ id: 'A-MUST', reason: 'known' }, { id: 'B-MUST', reason: 'stale' }] });
  expect([status('A-MUST'), status('B-MUST')]).toEqual(['waived', 'passed']);
  expect(report.summary.verdict).toBe('PASS');
  expect(report.summary.waivers).toEqual([{ id: 'A-MUST', reason: 'known', used: true }, { id: 'B-MUST', reason: 'stale', used: false }]);
});

test('run errors and failed untagged tests fail the run; unknown ID-like tags are listed', () => {
  const { report } = build([t(['smoke', 'Z-UNKNOWN'], { status: 'failed', errors: ['boom'] })], { errors: ['worker crashed'] });
  expect(report.summary.verdict).toBe('FAIL');
  expect(report.summary.errors).toEqual(['worker crashed', expect.stringContaining('carries no requirement tag: boom')]);
  expect(report.summary.unknownTags).toEqual(['Z-UNKNOWN']);
});

test('renderers escape what they show', () => {
  const nasty = '<img src=x onerror=alert(1)> | "quoted" & \u0001';
  const { report } = build([t(['A-MUST'], { title: nasty, status: 'failed', checks: [{ id: 'A-MUST', outcome: 'failed' }], evidence: [{ id: 'A-MUST', raw: nasty }] })]);
  const page = renderHtml(report);
  expect(page).not.toContain('<img');
  expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
  expect(page).not.toMatch(/<script/i);
  const junit = renderJunit(report);
  expect(junit).not.toContain('<img');
  expect(junit).not.toContain('\u0001');
  expect(renderMarkdown(report)).toContain('&lt;img src=x onerror=alert(1)&gt; \\| "quoted" &amp;');
});

test('project names become safe, distinct directory names', () => {
  expect(projectDirName('fault:op4/utility max')).toBe('fault_op4_utility_max');
  expect(projectDirName('../etc')).toBe('__etc');
  expect(projectDirName('')).toBe('_default');
  expect(Object.fromEntries(projectDirs(['a:b', 'a/b', 'a_b']))).toEqual({ 'a/b': 'a_b', 'a:b': 'a_b~2', a_b: 'a_b~3' });
});

test('waivers file: missing means none; bad JSON, a non-array, unknown IDs, missing reasons and duplicates are errors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rsf-waivers-'));
  const known = new Set(['A-MUST', 'B-MUST']);
  const file = (name: string, content: string) => {
    writeFileSync(join(dir, name), content);
    return join(dir, name);
  };
  expect(loadWaivers(join(dir, 'absent.json'), known)).toMatchObject({ waivers: [], problems: [] });
  expect(loadWaivers(file('bad.json', '{'), known).problems[0]).toContain('is not valid JSON');
  expect(loadWaivers(file('object.json', '{}'), known).problems[0]).toContain('must hold a JSON array');
  const mixed = loadWaivers(file('mixed.json', JSON.stringify([{ id: 'A-MUST', reason: 'ok' }, { id: 'NOPE', reason: 'x' }, { id: 'B-MUST', reason: ' ' }, { id: 'A-MUST', reason: 'again' }])), known);
  expect(mixed.waivers).toEqual([]);
  expect(mixed.problems).toEqual([
    expect.stringContaining('entry 2: unknown requirement ID "NOPE"'),
    expect.stringContaining('entry 3 (B-MUST): a reason is required'),
    expect.stringContaining('entry 4: A-MUST is waived twice'),
  ]);
  expect(loadWaivers(file('good.json', JSON.stringify([{ id: 'B-MUST', reason: ' known ' }])), known).waivers).toEqual([{ id: 'B-MUST', reason: 'known' }]);
});
