// junit.xml for CI: one <testsuite> per level, one <testcase> per requirement.
// Failed MUST → <failure>; SHOULD warning → <failure> with strict, else <system-out>; INFO deviation → <system-out>;
// waived, skipped, untested, not-observable → <skipped message="…">. Run errors → a fourth suite "run errors".
import { LEVELS } from '../catalogue';
import { evidenceText, runFacts } from './format';
import type { ConformanceReport, RequirementRow } from './model';

// Characters XML 1.0 does not allow, even escaped.
// eslint-disable-next-line no-control-regex
const INVALID_XML = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function xml(text: string): string {
  return text.replace(INVALID_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function body(r: RequirementRow): string {
  return r.evidence.map(evidenceText).join('\n\n');
}

function testcase(r: RequirementRow, strict: boolean): string {
  const time = seconds(r.tests.reduce((sum, t) => sum + t.durationMs, 0));
  const open = `    <testcase classname="${xml(r.section)}" name="${xml(`${r.id} ${r.text}`)}" time="${time}">`;
  const firstMessage = r.evidence[0]?.message ?? r.status;
  let inner: string;
  if (r.status === 'failed' || (r.status === 'warning' && r.level === 'SHOULD' && strict)) {
    inner = `      <failure message="${xml(firstMessage)}" type="${r.level}">${xml(body(r))}</failure>`;
  } else if (r.status === 'warning') {
    inner = `      <system-out>${xml(`${r.level} ${r.level === 'INFO' ? 'deviation' : 'warning'}\n${body(r)}`)}</system-out>`;
  } else if (r.status === 'passed') {
    return open.replace(/>$/, ' />');
  } else {
    const message = r.status === 'waived' ? `waived (was ${r.waivedStatus}): ${r.reason}` : `${r.status}: ${r.reason ?? ''}`;
    inner = `      <skipped message="${xml(message)}" />`;
    if (r.evidence.length > 0) inner += `\n      <system-out>${xml(body(r))}</system-out>`;
  }
  return `${open}\n${inner}\n    </testcase>`;
}

function isFailure(r: RequirementRow, strict: boolean): boolean {
  return r.status === 'failed' || (strict && r.status === 'warning' && r.level === 'SHOULD');
}

const SKIPPED = new Set(['waived', 'skipped', 'untested', 'not-observable']);

export function renderJunit(report: ConformanceReport): string {
  const s = report.summary;
  const properties = runFacts(s).map(([k, v]) => `      <property name="${xml(k)}" value="${xml(v)}" />`).join('\n');
  const suites = LEVELS.map((level) => {
    const rows = report.requirements.filter((r) => r.level === level);
    const failures = rows.filter((r) => isFailure(r, s.strict)).length;
    const skipped = rows.filter((r) => SKIPPED.has(r.status)).length;
    const time = seconds(rows.flatMap((r) => r.tests).reduce((sum, t) => sum + t.durationMs, 0));
    return [
      `  <testsuite name="${level}" tests="${rows.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${time}" timestamp="${xml(s.date)}">`,
      `    <properties>\n${properties}\n    </properties>`,
      ...rows.map((r) => testcase(r, s.strict)),
      '  </testsuite>',
    ].join('\n');
  });
  // Errors outside any requirement (global errors, bad waivers) get a suite of their own, so CI shows them.
  if (s.errors.length > 0) {
    suites.push([
      `  <testsuite name="run errors" tests="${s.errors.length}" failures="0" errors="${s.errors.length}" skipped="0" time="0">`,
      ...s.errors.map((e, i) => `    <testcase classname="run" name="error ${i + 1}" time="0">\n      <error message="${xml(e.split('\n')[0] ?? '')}">${xml(e)}</error>\n    </testcase>`),
      '  </testsuite>',
    ].join('\n'));
  }
  const all = report.requirements;
  const failures = all.filter((r) => isFailure(r, s.strict)).length;
  const skipped = all.filter((r) => SKIPPED.has(r.status)).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(`${s.title}: ${s.verdict}`)}" tests="${all.length}" failures="${failures}" errors="${s.errors.length}" skipped="${skipped}" time="${seconds(s.durationMs)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
