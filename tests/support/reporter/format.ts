// Plain-text pieces shared by the Markdown, HTML and JUnit renderers and the verdict line.
import { sectionLabel } from '../catalogue';
import type { ConformanceReport, EvidenceEntry, Summary } from './model';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The one line printed at the end of the run, e.g. `Conformance: FAIL — MUST 2 failed / 65; ...`. */
export function verdictLine(summary: Summary, htmlPath: string): string {
  const { MUST, SHOULD, INFO } = summary.counts;
  const total = (k: 'waived' | 'skipped' | 'untested') => MUST[k] + SHOULD[k] + INFO[k];
  const parts = [
    `MUST ${MUST.failed} failed / ${MUST.total}`,
    `SHOULD ${plural(SHOULD.warning, 'warning')} / ${SHOULD.total}`,
    `INFO ${plural(INFO.warning, 'deviation')} / ${INFO.total}`,
    `waived ${total('waived')}`,
    `skipped ${total('skipped')}`,
    `untested ${total('untested')}`,
  ];
  if (summary.errors.length > 0) parts.push(plural(summary.errors.length, 'error'));
  return `Conformance: ${summary.verdict} — ${parts.join('; ')} (${htmlPath})`;
}

/** The run facts shown at the top of every format, in order. */
export function runFacts(summary: Summary): [string, string][] {
  return [
    ...(summary.project !== undefined ? [['Project', summary.project] as [string, string]] : []),
    ['Target', summary.target],
    ['Date', summary.date],
    ['Suite version', summary.suiteVersion],
    ['Safety mode', summary.safetyMode],
    ['Profile', summary.profile],
    ['Seed', summary.seed],
    ['Strict', summary.strict ? 'yes (SHOULD warnings fail the run)' : 'no'],
    ['Requests sent', summary.requestsSent === null ? 'unknown' : String(summary.requestsSent)],
    ['Tests', `${summary.tests.total} (${summary.tests.passed} passed, ${summary.tests.failed} failed, ${summary.tests.flaky} flaky, ${summary.tests.skipped} skipped, ${summary.tests.notRun} not run)`],
  ];
}

export function requirementHeading(r: ConformanceReport['requirements'][number]): string {
  return `${r.id} (${r.level}, ${sectionLabel(r.section)})`;
}

/** An evidence entry as readable text: used in Markdown code blocks, JUnit bodies and the HTML <pre>. */
export function evidenceText(e: EvidenceEntry): string {
  const lines = [`Test: ${e.test} (${e.location}${e.project ? `, project ${e.project}` : ''})`, `Message: ${e.message}`];
  const ev = e.evidence;
  if (ev) {
    if (ev.operation) lines.push(`Operation: ${ev.operation}`);
    if (ev.schemaErrors?.length) lines.push('Schema errors:', ...ev.schemaErrors.map((s) => `  - ${s}`));
    (ev.exchanges ?? []).forEach((x, i) => {
      lines.push(`Exchange ${i + 1}:`, `  ${x.request.method} ${x.request.url}`);
      for (const [k, v] of Object.entries(x.request.headers ?? {})) lines.push(`  ${k}: ${v}`);
      if (x.request.body !== undefined) lines.push(`  request body: ${x.request.body}`);
      if (x.response) lines.push(`  → ${x.response.status} ${x.response.contentType}`, `  response excerpt: ${x.response.bodyExcerpt}`);
      if (x.curl) lines.push(`  replay with: ${x.curl}`);
    });
    if (ev.seed) lines.push(`Seed: ${ev.seed}`);
    if (ev.replay) lines.push(`Replay: ${ev.replay}`);
  }
  return lines.join('\n');
}
