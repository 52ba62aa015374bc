// conformance.md: summary, counts, one table row per requirement, then the evidence of failures and warnings.
import { LEVELS } from '../catalogue';
import { evidenceText, requirementHeading, runFacts } from './format';
import { STATUSES } from './model';
import type { ConformanceReport, RequirementRow } from './model';

/** A table cell: no line breaks, no pipes, no raw HTML. */
function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r?\n/g, ' ');
}

/** A fenced block whose fence is longer than any backtick run inside. */
function codeBlock(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((s) => s.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text}\n${fence}`;
}

function testsCell(r: RequirementRow): string {
  if (r.tests.length === 0) return '';
  return r.tests.map((t) => `${t.title} (${t.file}:${t.line}${t.project ? `, ${t.project}` : ''}): ${t.outcome}`).map(cell).join('<br>');
}

export function renderMarkdown(report: ConformanceReport): string {
  const s = report.summary;
  const out: string[] = [`# ${s.title}: ${s.verdict}`, ''];
  if (s.verdictReasons.length > 0) out.push(...s.verdictReasons.map((r) => `- **${cell(r)}**`), '');
  out.push('| | |', '|---|---|', ...runFacts(s).map(([k, v]) => `| ${k} | ${cell(v)} |`), '');

  out.push('## Counts', '', `| Level | ${STATUSES.join(' | ')} | total |`, `|---|${STATUSES.map(() => '---:').join('|')}|---:|`);
  for (const level of LEVELS) out.push(`| ${level} | ${STATUSES.map((st) => s.counts[level][st]).join(' | ')} | ${s.counts[level].total} |`);
  out.push('');

  if (s.errors.length > 0) out.push('## Errors', '', ...s.errors.map((e) => codeBlock(e)), '');
  if (s.unknownTags.length > 0) out.push('## Tags not in the catalogue', '', s.unknownTags.map((t) => `\`@${t}\``).join(', '), '');
  if (s.waivers.length > 0) {
    out.push('## Waivers', '', '| ID | reason | used |', '|---|---|---|', ...s.waivers.map((w) => `| ${cell(w.id)} | ${cell(w.reason)} | ${w.used ? 'yes' : 'no: the requirement did not fail'} |`), '');
  }

  out.push('## Requirements', '', '| ID | Level | § | Status | Requirement | Tests |', '|---|---|---|---|---|---|');
  for (const r of report.requirements) {
    const status = r.reason ? `${r.status}: ${r.reason}` : r.status;
    out.push(`| ${cell(r.id)} | ${r.level} | ${cell(r.section)} | ${cell(status)} | ${cell(r.text)} | ${testsCell(r)} |`);
  }
  out.push('');

  const withEvidence = report.requirements.filter((r) => r.evidence.length > 0);
  if (withEvidence.length > 0) {
    out.push('## Evidence', '');
    for (const r of withEvidence) {
      out.push(`### ${cell(requirementHeading(r))}: ${r.status}${r.waivedStatus ? ` (was ${r.waivedStatus})` : ''}`, '', cell(r.text), '');
      for (const e of r.evidence) out.push(codeBlock(evidenceText(e)), '');
    }
  }
  return out.join('\n');
}
