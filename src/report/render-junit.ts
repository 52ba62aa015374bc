// junit.xml for CI: one <testsuite> per level, one <testcase> per requirement.
// A failure the exit policy enforces → <failure> (a failed MUST; a SHOULD warning under strict; under regression
// only a MUST the baseline did not fail); a known failure under regression → <skipped> with its evidence;
// could not judge (inconclusive, not run) → <error>; other warnings → <system-out>; waived, skipped, untested,
// not-observable → <skipped message="…">. Configuration and run errors → a fourth suite, "run errors".
// With a baseline, the comparison comes first, as properties of every suite.
import { LEVELS } from '../model/catalogue';
import { baselineOneLine, evidenceText, runFacts } from './format';
import type { ConformanceReport, RequirementRow } from './model';
import { UNJUDGED_STATUSES } from './model';
import { enforcedFailures } from './verdict';
import { firstLines } from '../model/text';

// Characters XML 1.0 does not allow, even escaped.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it removes
const INVALID_XML = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function xml(text: string): string {
  return text
    .replace(INVALID_XML, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function body(r: RequirementRow): string {
  return r.evidence.map(evidenceText).join('\n\n');
}

const SKIPPED = new Set(['waived', 'skipped', 'untested', 'not-observable']);

function testcase(r: RequirementRow, enforced: ReadonlySet<string>): string {
  const time = seconds(r.tests.reduce((sum, t) => sum + t.durationMs, 0));
  const open = `    <testcase classname="${xml(r.section)}" name="${xml(`${r.id} ${r.text}`)}" time="${time}">`;
  const firstMessage = r.evidence[0]?.message ?? r.status;
  const evidence = r.evidence.length > 0 ? `\n      <system-out>${xml(body(r))}</system-out>` : '';
  let inner: string;
  if (enforced.has(r.id)) {
    const regressed = r.change === 'regressed' ? ` (regressed: ${r.baselineStatus} in the baseline)` : '';
    inner = `      <failure message="${xml(firstMessage + regressed)}" type="${r.level}">${xml(body(r))}</failure>`;
  } else if (UNJUDGED_STATUSES.has(r.status)) {
    // The answers that could not be judged, where answers were the cause, to send again by hand.
    const answers = (r.unjudgedEvidence ?? []).map(evidenceText).join('\n\n');
    const shown = answers ? `\n      <system-out>${xml(answers)}</system-out>` : evidence;
    inner = `      <error message="${xml(`${r.status}: ${r.reason ?? ''}`)}" type="${xml(r.status)}" />${shown}`;
  } else if (r.status === 'failed') {
    // Not enforced: a MUST failure the baseline already had, under the regression policy.
    const known = `known failure, in the baseline (${r.baselineStatus}): ${firstMessage}`;
    inner = `      <skipped message="${xml(known)}" />${evidence}`;
  } else if (r.status === 'warning') {
    const kind = r.level === 'INFO' ? 'deviation' : 'warning';
    inner = `      <system-out>${xml(`${r.level} ${kind}\n${body(r)}`)}</system-out>`;
  } else if (r.status === 'passed') {
    return open.replace(/>$/, ' />');
  } else {
    const message =
      r.status === 'waived' ? `waived (was ${r.waivedStatus}): ${r.reason}` : `${r.status}: ${r.reason ?? ''}`;
    inner = `      <skipped message="${xml(message)}" />${evidence}`;
  }
  return `${open}\n${inner}\n    </testcase>`;
}

function isSkipped(r: RequirementRow, enforced: ReadonlySet<string>): boolean {
  return SKIPPED.has(r.status) || (r.status === 'failed' && !enforced.has(r.id));
}

export function renderJunit(report: ConformanceReport): string {
  const s = report.summary;
  const enforced = new Set(enforcedFailures(s.failOn, report.requirements).map((r) => r.id));
  const facts: [string, string][] = [
    ['Verdict', `${s.verdict}: ${s.headline}`],
    ...(s.baseline ? [['Compared with the baseline', baselineOneLine(s.baseline)] as [string, string]] : []),
    ...runFacts(s),
  ];
  const properties = facts.map(([k, v]) => `      <property name="${xml(k)}" value="${xml(v)}" />`).join('\n');
  const counts = (rows: RequirementRow[]) => ({
    failures: rows.filter((r) => enforced.has(r.id)).length,
    errors: rows.filter((r) => UNJUDGED_STATUSES.has(r.status)).length,
    skipped: rows.filter((r) => isSkipped(r, enforced)).length,
  });
  const suites = LEVELS.map((level) => {
    const rows = report.requirements.filter((r) => r.level === level);
    const c = counts(rows);
    const time = seconds(rows.flatMap((r) => r.tests).reduce((sum, t) => sum + t.durationMs, 0));
    const attributes =
      `tests="${rows.length}" failures="${c.failures}" errors="${c.errors}" skipped="${c.skipped}" ` +
      `time="${time}" timestamp="${xml(s.date)}"`;
    return [
      `  <testsuite name="${level}" ${attributes}>`,
      `    <properties>\n${properties}\n    </properties>`,
      ...rows.map((r) => testcase(r, enforced)),
      '  </testsuite>',
    ].join('\n');
  });
  // Errors outside any requirement (configuration, global errors) get a suite of their own, so CI shows them.
  const runErrors = [...s.configErrors, ...s.errors];
  const n = runErrors.length;
  if (n > 0) {
    const testcases = runErrors.map((e, i) => {
      const error = `<error message="${xml(firstLines(e))}">${xml(e)}</error>`;
      return `    <testcase classname="run" name="error ${i + 1}" time="0">\n      ${error}\n    </testcase>`;
    });
    suites.push(
      [
        `  <testsuite name="run errors" tests="${n}" failures="0" errors="${n}" skipped="0" time="0">`,
        ...testcases,
        '  </testsuite>',
      ].join('\n'),
    );
  }
  const all = counts(report.requirements);
  const attributes =
    `tests="${report.requirements.length + runErrors.length}" failures="${all.failures}" ` +
    `errors="${all.errors + runErrors.length}" skipped="${all.skipped}" time="${seconds(s.durationMs)}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(`${s.title}: ${s.verdict}`)}" ${attributes}>`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
