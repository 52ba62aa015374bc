// conformance.md: a summary sized for where CI shows it (a pull-request comment, a job summary), always shorter than
// MARKDOWN_LIMIT characters, however much failed. In order:
//   1. the verdict, its reasons and the counts;
//   2. the comparison with the baseline (RSF_BASELINE);
//   3. errors, and the waivers;
//   4. the failing requirements, each with a short evidence excerpt in a <details> block;
//   5. what could not be judged, and the first answers that could not be, as curl lines;
//   6. a compact table per operation: each requirement's status, not its tests.
// What does not fit is counted and left to conformance.html and conformance.json, which hold everything.
import { LEVELS, requirements as catalogue, sectionLabel } from '../model/catalogue';
import { OPERATIONS, type Operation } from '../model/operations';
import { printable } from '../model/printable';
import { baselineLines, evidenceText, requirementHeading, runFacts } from './format';
import { plural } from '../model/text';
import type { ConformanceReport, RequirementRow } from './model';
import { STATUSES, UNJUDGED_STATUSES } from './model';
import { enforcedFailures, knownFailures } from './verdict';

/** GitHub refuses comments over 65,536 characters; job summaries are capped too. */
export const MARKDOWN_LIMIT = 60_000;
/** Kept free for the closing note, and for redaction, which may lengthen a short secret to "[REDACTED]". */
const RESERVE_CHARS = 1_500;
/** Characters of one evidence excerpt; the full text is in the other reports. */
const EXCERPT_CHARS = 1_200;
/** Evidence entries shown per failing requirement. */
const ENTRIES_PER_REQUIREMENT = 2;
const ERRORS_SHOWN = 5;
const ERROR_CHARS = 600;
const WAIVERS_SHOWN = 30;
const UNJUDGED_SHOWN = 30;
/** Answers not judged shown as curl lines, the first ones: they are most often of one cause. */
const UNJUDGED_ANSWERS_SHOWN = 3;
/** The failing section's heading and its line naming what did not fit. */
const FAILING_FRAME_CHARS = 1_200;
const NAMED_IDS_CHARS = 1_000;
/** Characters of a status reason in a table cell. */
const REASON_CHARS = 90;

/** A table cell: no line breaks, no pipes, no raw HTML. */
function cell(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r?\n/g, ' ');
}

/** Text inside an HTML element (a <summary>): escaped, on one line. */
function inline(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\s+/g, ' ');
}

/** At most max characters, then an ellipsis; with `tell`, also how long the whole text is. */
function cut(text: string, max: number, tell = true): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}…${tell ? ` (cut: ${text.length.toLocaleString('en')} characters in all)` : ''}`;
}

/** What an evidence entry says, in a line: its message without the requirement's own heading line. */
function gist(r: RequirementRow, message: string): string {
  const lines = message
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const said = lines[0]?.startsWith(`${r.level} ${r.id} `) && lines.length > 1 ? lines[1] : lines[0];
  return cut(said ?? '', 160, false);
}

/** A fenced block whose fence is longer than any backtick run inside. */
function codeBlock(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((s) => s.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text}\n${fence}`;
}

function statusText(r: RequirementRow): string {
  const base = r.waivedStatus ? `waived (was ${r.waivedStatus})` : r.status;
  const change = r.change ? ` (${r.change})` : '';
  return `${base}${change}`;
}

function head(report: ConformanceReport): string[] {
  const s = report.summary;
  const out = [
    `# ${s.title}: ${s.verdict}`,
    '',
    `**Conformance: ${s.verdict}** (exit code ${s.exitCode}) — ${cell(s.headline)}`,
    '',
  ];
  if (s.verdictReasons.length > 1) out.push(...s.verdictReasons.map((r) => `- ${cell(r)}`), '');
  out.push(`| Level | ${STATUSES.join(' | ')} | total |`, `|---|${STATUSES.map(() => '---:').join('|')}|---:|`);
  for (const level of LEVELS) {
    out.push(`| ${level} | ${STATUSES.map((st) => s.counts[level][st]).join(' | ')} | ${s.counts[level].total} |`);
  }
  out.push('', '| | |', '|---|---|', ...runFacts(s).map(([k, v]) => `| ${k} | ${cell(v)} |`), '');
  return out;
}

function baselineSection(report: ConformanceReport): string[] {
  const b = report.summary.baseline;
  if (!b) return [];
  const out = [
    '## Compared with the baseline',
    '',
    `${cell(b.file)}: ${cell(b.verdict)}, ${cell(b.date)}, target ${cell(b.target)}, suite ${cell(b.suiteVersion)}.`,
    '',
  ];
  for (const { label, items } of baselineLines(b))
    out.push(`- **${label}**${items.length > 0 ? `: ${items.map(cell).join(', ')}` : ''}`);
  const known = knownFailures(report.summary.failOn, report.requirements);
  if (known.length > 0)
    out.push(
      '',
      `Known failures (in the baseline, so they do not fail this run): ${known.map((r) => r.id).join(', ')}.`,
    );
  out.push('');
  return out;
}

function errorsSection(report: ConformanceReport): string[] {
  const all = [...report.summary.configErrors, ...report.summary.errors];
  if (all.length === 0) return [];
  const out = ['## Errors', ''];
  for (const e of all.slice(0, ERRORS_SHOWN)) out.push(codeBlock(cut(e, ERROR_CHARS)), '');
  if (all.length > ERRORS_SHOWN)
    out.push(`…and ${plural(all.length - ERRORS_SHOWN, 'more error')}: see conformance.json.`, '');
  return out;
}

function waiversSection(report: ConformanceReport): string[] {
  const s = report.summary;
  if (s.waivers.length === 0) return [];
  const w = s.waiverCounts;
  const out = [
    '## Waivers',
    '',
    `${plural(w.open, 'open waiver')} (${w.waiving} waiving a failure, ${w.stale} stale), ${w.expired} expired.`,
    '',
    '| ID | state | owner | expires | reason |',
    '|---|---|---|---|---|',
  ];
  for (const waiver of s.waivers.slice(0, WAIVERS_SHOWN)) {
    const state = `${waiver.state}: ${waiver.note}`;
    out.push(
      `| ${cell(waiver.id)} | ${cell(state)} | ${cell(waiver.owner ?? '')} | ${cell(waiver.expires ?? '')} | ` +
        `${cell(cut(waiver.reason, 200))} |`,
    );
  }
  if (s.waivers.length > WAIVERS_SHOWN)
    out.push('', `…and ${s.waivers.length - WAIVERS_SHOWN} more: see conformance.json.`);
  out.push('');
  return out;
}

/** Failing requirements in the order a reader acts on them: what fails the run (regressions first), then the rest. */
function failingRows(report: ConformanceReport): RequirementRow[] {
  const enforced = new Set(enforcedFailures(report.summary.failOn, report.requirements).map((r) => r.id));
  const rank = (r: RequirementRow) =>
    (enforced.has(r.id) ? 0 : 4) +
    (r.change === 'regressed' || r.change === 'new' ? 0 : 1) +
    (r.status === 'failed' ? 0 : 2);
  return report.requirements
    .filter((r) => r.status === 'failed' || r.status === 'warning')
    .map((r, i) => ({ r, i }))
    .sort((a, b) => rank(a.r) - rank(b.r) || a.i - b.i)
    .map(({ r }) => r);
}

function failingItem(r: RequirementRow): string {
  const out = [`### ${cell(requirementHeading(r))}: ${statusText(r)}`, '', cell(r.text), ''];
  if (r.expiredWaiver) out.push(`*${cell(r.reason ?? '')}*`, '');
  for (const e of r.evidence.slice(0, ENTRIES_PER_REQUIREMENT)) {
    const summary = inline(gist(r, e.message));
    out.push(
      `<details><summary>${summary} (${inline(e.location)})</summary>`,
      '',
      codeBlock(cut(evidenceText(e), EXCERPT_CHARS)),
      '',
      '</details>',
      '',
    );
  }
  if (r.evidence.length > ENTRIES_PER_REQUIREMENT) {
    out.push(
      `…and ${plural(r.evidence.length - ENTRIES_PER_REQUIREMENT, 'more piece')} of evidence in conformance.html.`,
      '',
    );
  }
  return out.join('\n');
}

function unjudgedSection(report: ConformanceReport): string[] {
  const rows = report.requirements.filter((r) => UNJUDGED_STATUSES.has(r.status));
  if (rows.length === 0) return [];
  const out = [`## Could not judge (${rows.length})`, ''];
  for (const r of rows.slice(0, UNJUDGED_SHOWN))
    out.push(`- ${cell(r.id)} (${r.level}): ${r.status}: ${cell(cut(r.reason ?? '', 200))}`);
  if (rows.length > UNJUDGED_SHOWN) out.push(`- …and ${rows.length - UNJUDGED_SHOWN} more: see conformance.json.`);
  out.push('');
  // The answers that could not be judged (a firewall's page, a proxy's 407…), each once: to send again by hand.
  const curls = new Set(
    rows.flatMap((r) => r.unjudgedEvidence ?? []).flatMap((e) => e.evidence?.exchanges.map((x) => x.curl) ?? []),
  );
  const shown = [...curls].slice(0, UNJUDGED_ANSWERS_SHOWN);
  if (shown.length > 0) {
    out.push(`Answers not judged (${curls.size}; ${shown.length} shown), to send again:`, '');
    for (const curl of shown) out.push(codeBlock(cut(curl, EXCERPT_CHARS)), '');
  }
  return out;
}

function operationTitle(o: Operation): string {
  return `Operation ${o.number}: ${o.method} /v1${o.path} (${sectionLabel(o.section)})`;
}

function table(rows: RequirementRow[], reasonChars: number): string[] {
  const out = ['| ID | Level | Status |', '|---|---|---|'];
  for (const r of rows) {
    const why = reasonChars > 0 && r.reason && r.status !== 'passed' ? `: ${cut(r.reason, reasonChars, false)}` : '';
    out.push(`| ${cell(r.id)} | ${r.level} | ${cell(statusText(r) + why)} |`);
  }
  return out;
}

/**
 * One compact table per operation (requirements of a single operation), then one for the requirements that span
 * operations and one for any the catalogue does not place. With reasonChars 0, statuses only.
 */
function operationTables(report: ConformanceReport, reasonChars: number): string[] {
  const operationsOf = new Map(catalogue().map((r) => [r.id, r.operations]));
  const placed = new Set<string>();
  const out = ['## By operation', ''];
  for (const operation of Object.values(OPERATIONS).sort((a, b) => a.number - b.number)) {
    const rows = report.requirements.filter((r) => {
      const ops = operationsOf.get(r.id) ?? [];
      return ops.length === 1 && ops[0] === operation.number;
    });
    for (const r of rows) placed.add(r.id);
    if (rows.length > 0) out.push(`### ${cell(operationTitle(operation))}`, '', ...table(rows, reasonChars), '');
  }
  const spanning = report.requirements.filter((r) => !placed.has(r.id) && (operationsOf.get(r.id)?.length ?? 0) > 1);
  for (const r of spanning) placed.add(r.id);
  if (spanning.length > 0) out.push('### Across operations', '', ...table(spanning, reasonChars), '');
  const rest = report.requirements.filter((r) => !placed.has(r.id));
  if (rest.length > 0) out.push('### Not tied to an operation', '', ...table(rest, reasonChars), '');
  return out;
}

const size = (lines: string[]) => lines.reduce((n, l) => n + l.length + 1, 0);

/**
 * Every string of the report as printable text (control and invisible characters escaped, line breaks kept), before
 * anything is measured: a target's bytes reach the report through messages, and must not reach a terminal or a page.
 */
function printableReport(report: ConformanceReport): ConformanceReport {
  const all = { keepLineBreaks: true, maxChars: Number.MAX_SAFE_INTEGER };
  return JSON.parse(JSON.stringify(report), (_key, value: unknown) =>
    typeof value === 'string' ? printable(value, all) : value,
  ) as ConformanceReport;
}

export function renderMarkdown(input: ConformanceReport): string {
  const report = printableReport(input);
  const budget = MARKDOWN_LIMIT - RESERVE_CHARS;
  const first = [...head(report), ...baselineSection(report), ...errorsSection(report), ...waiversSection(report)];
  let byOperation = operationTables(report, REASON_CHARS);
  if (size(first) + size(byOperation) > budget) byOperation = operationTables(report, 0);
  if (size(first) + size(byOperation) > budget)
    byOperation = ['## By operation', '', 'Too long for this summary: see conformance.html.', ''];
  const unjudged = unjudgedSection(report);

  // The failing requirements take what is left, in order; the ones that do not fit are named, then counted.
  const failing = failingRows(report);
  const render = (withEvidence: boolean) => {
    let left = budget - size(first) - size(byOperation) - size(unjudged) - FAILING_FRAME_CHARS;
    const items: string[] = [];
    for (const r of withEvidence ? failing : []) {
      const item = failingItem(r);
      if (item.length + 1 > left) break;
      items.push(item);
      left -= item.length + 1;
    }
    const section: string[] = [];
    if (failing.length > 0) {
      section.push(`## Failing requirements (${failing.length})`, '', ...items);
      if (items.length < failing.length) {
        const rest = failing.slice(items.length).map((r) => r.id);
        const named = cut(rest.join(', '), NAMED_IDS_CHARS);
        section.push(
          `${plural(rest.length, 'failing requirement')} more, with evidence in conformance.html: ${named}.`,
          '',
        );
      }
    }
    return [...first, ...section, ...unjudged, ...byOperation].join('\n');
  };
  const text = render(true);
  return text.length <= budget ? text : fitted(render(false));
}

/** The last guard, should the sections above have miscounted: never longer than the limit. */
function fitted(text: string): string {
  const room = MARKDOWN_LIMIT - RESERVE_CHARS;
  if (text.length <= room) return text;
  return `${text.slice(0, room)}\n\n…cut here: the rest is in conformance.html and conformance.json.\n`;
}
