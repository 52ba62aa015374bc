// conformance.html: one standalone page, read at a glance. A banner that names what failed; a matrix of the 15
// operations against the kinds of check; the failures with their evidence open; then every requirement.
// Inline CSS and no script at all (the status filter is radio buttons and CSS :has()), and a Content-Security-Policy
// that forbids loading anything, so it works offline and cannot leak. Dark mode follows the system setting.
import { LEVELS, type Requirement, requirements, sectionLabel } from '../model/catalogue';
import { plural } from '../model/text';
import { CREDENTIAL_VARIANTS, MATRIX_COLUMNS } from './check-kinds';
import { baselineLines, evidenceText, runFacts } from './format';
import { type MatrixCell, type MatrixRow, buildMatrix } from './matrix';
import { STATUSES } from './model';
import type { ConformanceReport, EvidenceEntry, RequirementRow } from './model';
import { knownFailures, passHeadlineSaysNoMustFailed } from './verdict';

export function html(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** How a status looks. Keyed by string: a status the model adds later still renders, with the fallback look. */
interface StatusLook {
  symbol: string;
  label: string;
  meaning: string;
}

const LOOKS: Record<string, StatusLook> = {
  failed: { symbol: '✗', label: 'failed', meaning: 'a MUST requirement was broken' },
  inconclusive: {
    symbol: '~',
    label: 'inconclusive',
    meaning:
      "could not be judged: throttled, a gateway's error, no answer, too large, a firewall's page, out of time, " +
      'a setting that may be wrong',
  },
  warning: { symbol: '!', label: 'warning', meaning: 'a SHOULD or INFO requirement was not met' },
  'not run': {
    symbol: '·',
    label: 'not run',
    meaning: 'not run: the target had stopped answering, or refused the run',
  },
  waived: { symbol: '⊘', label: 'waived', meaning: 'failed, but waived by the waivers file' },
  passed: { symbol: '✓', label: 'passed', meaning: 'every check passed' },
  skipped: { symbol: '–', label: 'skipped', meaning: 'skipped, e.g. a write in read-only mode' },
  untested: { symbol: '?', label: 'untested', meaning: 'no test checked it here' },
  'not-observable': { symbol: '∅', label: 'not observable', meaning: 'no HTTP exchange can show it broken' },
};

function look(status: string): StatusLook {
  return LOOKS[status] ?? { symbol: '•', label: status, meaning: status };
}

/** A status as a CSS class and id fragment: `not run` → `not-run`. */
function slug(status: string): string {
  return status.replace(/[^A-Za-z0-9]+/g, '-');
}

/** Requirements shown first, full width, evidence open. */
const ATTENTION: ReadonlySet<string> = new Set(['failed', 'inconclusive']);
/** Evidence entries shown open per requirement; the rest wait behind a click. */
const OPEN_EVIDENCE = 3;
/** Requirements named in the banner before "and N more". */
const BANNER_ITEMS = 8;

// Tint (cell background) and ink (text on the tint) per status, light then dark; `solid` for badges (white text).
const PALETTE: Record<string, { solid: string; light: [string, string]; dark: [string, string] }> = {
  failed: { solid: '#b42318', light: ['#d92d20', '#ffffff'], dark: ['#d92d20', '#ffffff'] },
  inconclusive: { solid: '#0e7090', light: ['#cff9fe', '#0e4f62'], dark: ['#0b4a5c', '#a5f0fc'] },
  warning: { solid: '#b54708', light: ['#fef0c7', '#93370d'], dark: ['#4e1d09', '#fedf89'] },
  'not run': { solid: '#475467', light: ['#eaecf0', '#344054'], dark: ['#2b3140', '#d0d5dd'] },
  waived: { solid: '#6941c6', light: ['#f4ebff', '#53389e'], dark: ['#2c1c5f', '#d6bbfb'] },
  passed: { solid: '#067647', light: ['#dcfae6', '#085d3a'], dark: ['#053321', '#a6f4c5'] },
  skipped: { solid: '#475467', light: ['#f2f4f7', '#344054'], dark: ['#1f242f', '#cecfd2'] },
  untested: { solid: '#667085', light: ['transparent', '#475467'], dark: ['transparent', '#94969c'] },
  'not-observable': { solid: '#667085', light: ['transparent', '#475467'], dark: ['transparent', '#94969c'] },
};

function statusRules(theme: 'light' | 'dark'): string {
  return Object.entries(PALETTE)
    .map(([status, p]) => `.st-${slug(status)} { --tint: ${p[theme][0]}; --ink: ${p[theme][1]}; --solid: ${p.solid}; }`)
    .join('\n');
}

const CSS = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #101828; --muted: #475467; --line: #d0d5dd; --soft: #f2f4f7; --code: #f9fafb; --link: #175cd3;
  font: 15px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; color: var(--fg); background: var(--bg);
}
${statusRules('light')}
@media screen and (prefers-color-scheme: dark) {
  :root { --bg: #0c111d; --fg: #f5f5f6; --muted: #a4a7ae; --line: #373a41; --soft: #161b26; --code: #13161b;
    --link: #84adff; }
${statusRules('dark')}
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1240px; padding: 0 1rem 3rem; overflow-wrap: break-word; }
a { color: var(--link); }
h2 { font-size: 1.25rem; margin: 2rem 0 .6rem; }
code, pre { font: 13px/1.45 ui-monospace, 'DejaVu Sans Mono', monospace; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--code); border: 1px solid var(--line);
  border-radius: 6px; padding: .6rem .75rem; margin: .5rem 0; }
.muted { color: var(--muted); }
.narrow { display: none; }

.banner { margin: 1rem 0 1.25rem; padding: 1rem 1.25rem; border-radius: 10px; color: #fff; }
.banner h1 { margin: 0; font-size: 1.7rem; line-height: 1.2; }
.banner p { margin: .35rem 0 0; }
.banner a { color: inherit; }
.banner ul { margin: .6rem 0 0; padding-left: 1.2rem; }
.banner li { margin: .2rem 0; }
.banner li code { font-weight: 700; }
.banner .run { opacity: .9; font-size: .9rem; }
.verdict-PASS { background: #067647; }
.verdict-FAIL { background: #b42318; }
.verdict-ERROR { background: #93370d; }

table { border-collapse: collapse; width: 100%; margin: .5rem 0 1rem; }
th, td { border: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; }
thead th { background: var(--soft); }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
table.facts { width: auto; }
.scroll { overflow-x: auto; }
table.facts th { background: var(--soft); font-weight: 600; }

.badge { display: inline-block; padding: 0 .45rem; border-radius: 4px; color: #fff; background: var(--solid, #667085);
  font-size: .85rem; white-space: nowrap; }

#matrix table { table-layout: fixed; margin-bottom: .5rem; }
#matrix th, #matrix td { padding: 0; text-align: center; vertical-align: middle; }
#matrix thead th { font-size: .8rem; font-weight: 600; padding: .3rem .2rem; line-height: 1.2; }
#matrix thead th.op { width: 23%; text-align: left; padding-left: .5rem; }
#matrix thead th.group { border-bottom: 0; }
#matrix tbody th { text-align: left; font-weight: 400; padding: .25rem .5rem; font-size: .85rem; line-height: 1.25; }
#matrix tbody th .num { display: inline-block; min-width: 1.6em; font-weight: 700; }
#matrix tbody th .method { font-size: .75rem; font-weight: 600; color: var(--muted); }
#matrix tbody th .path { font: 12px/1.3 ui-monospace, 'DejaVu Sans Mono', monospace; }
td.cell { background: var(--tint, transparent); color: var(--ink, var(--muted)); height: 2.1rem; }
td.cell a { display: flex; align-items: center; justify-content: center; gap: .3rem; height: 100%; min-height: 2.1rem;
  color: inherit; text-decoration: none; padding: 0 .2rem; }
td.cell a:hover, td.cell a:focus-visible { outline: 2px solid var(--fg); outline-offset: -2px; }
td.cell .sym { font-weight: 700; font-size: 1rem; }
td.cell .word { font-size: .78rem; }
td.st-untested, td.st-not-observable { background-image: repeating-linear-gradient(135deg, transparent 0 6px,
  var(--soft) 6px 12px); }
td.cell.none { font-size: .7rem; color: var(--muted); line-height: 1.1; }
.legend { display: flex; flex-wrap: wrap; gap: .35rem 1rem; list-style: none; padding: 0; margin: .5rem 0 0;
  font-size: .82rem; color: var(--muted); }
.legend li { display: flex; align-items: flex-start; gap: .35rem; }
.swatch { display: inline-flex; align-items: center; justify-content: center; width: 1.6rem; height: 1.3rem;
  border: 1px solid var(--line); border-radius: 3px; background: var(--tint, transparent); color: var(--ink, inherit);
  font-weight: 700; font-size: .85rem; }
.legend b { color: var(--fg); font-weight: 600; }

.failure { border: 1px solid var(--line); border-left: 6px solid var(--solid); border-radius: 8px;
  padding: .75rem 1rem; margin: 0 0 1rem; }
.failure h3 { margin: 0; font-size: 1.05rem; display: flex; flex-wrap: wrap; gap: .4rem .6rem; align-items: baseline; }
.failure h3 code { font-size: 1rem; font-weight: 700; }
.failure .meta { margin: .2rem 0 0; font-size: .85rem; }
.failure .req-text { margin: .4rem 0; }
figure.entry { margin: .8rem 0 0; }
figure.entry figcaption { font-size: .85rem; color: var(--muted); }
figure.entry pre { margin-top: .2rem; }
.evidence-line { font-weight: 700; }

.reason { color: var(--muted); margin: .25rem 0 0; }
ul.tests { margin: .3rem 0 0; padding-left: 1rem; font-size: .85rem; }
details { margin-top: .3rem; }
summary { cursor: pointer; font-weight: 600; }
fieldset.filters { border: 0; padding: 0; margin: 0 0 .5rem; display: flex; flex-wrap: wrap; gap: .2rem .9rem; }
fieldset.filters legend { float: left; margin-right: .6rem; font-weight: 600; }
fieldset.filters label { white-space: nowrap; }
table.reqs td.id { white-space: nowrap; }
table.reqs td.tests { min-width: 7.5rem; }
table.reqs th.level { width: 4.5rem; }
table.reqs th.section { width: 6.5rem; }
table.reqs th.status { width: 7.5rem; }
table.reqs td.tests summary { white-space: nowrap; }
/* A path such as /carrito/calcularEnvioPara/{codigoPostalFavorito}/… is one word: break it rather than the page. */
table.reqs td.text { overflow-wrap: anywhere; }
${STATUSES.map(
  (s) => `#requirements:has(#show-${slug(s)}:checked) tr.req:not([data-status="${s}"]) { display: none; }`,
).join('\n')}

/* Just above the one-column layout: the column headers' longest word ("unknown") still fits its column whole. */
@media (max-width: 1200px) {
  #matrix thead th { font-size: .72rem; padding: .3rem .1rem; }
}

@media (max-width: 1000px), print {
  body { padding: 0 .6rem 2rem; }
  .banner h1 { font-size: 1.35rem; }
  .failure { padding: .6rem .7rem; }
  pre { padding: .5rem; font-size: 12px; }
  #matrix thead th.op { width: 4.2rem; }
  .wide { display: none; }
  .narrow { display: inline; }
  #matrix thead th.col { height: 7.5rem; vertical-align: bottom; padding: .3rem 0; }
  #matrix thead th.col span { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; }
  #matrix tbody th { padding: .2rem .3rem; }
  #matrix tbody th .path, td.cell .word { display: none; }
  #matrix tbody th .method { display: block; font-size: .65rem; }
  td.cell.none { font-size: .5rem; letter-spacing: -.02em; }
  table.reqs, table.reqs tbody, table.reqs tr, table.reqs td { display: block; border: 0; }
  table.reqs thead { display: none; }
  table.reqs tr { border: 1px solid var(--line); border-radius: 8px; margin: 0 0 .6rem; padding: .4rem .6rem; }
  table.reqs td { padding: .1rem 0; }
  table.reqs td.id, table.reqs td.level, table.reqs td.section, table.reqs td.status { display: inline-block;
    margin-right: .5rem; }
}
@page { size: A4; margin: 12mm; }
@media print {
  :root { font-size: 11px; }
  body { max-width: none; padding: 0; }
  .banner, td.cell, .badge, .swatch, .failure { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
  #matrix { break-inside: avoid; }
  fieldset.filters { display: none; }
  a { color: inherit; text-decoration: none; }
}
`;

/** By string, so that statuses the model adds later can be named before they exist. */
function hasStatus(r: RequirementRow, status: string): boolean {
  return r.status === status;
}

/** Failing now, passing in the baseline (RSF_BASELINE): a regression is a change, whatever the status now. */
function regressed(r: RequirementRow): boolean {
  return r.change === 'regressed';
}

function badge(status: string): string {
  return `<span class="badge st-${slug(status)}">${html(look(status).label)}</span>`;
}

/** The first clause of a requirement's text (up to a colon or the end of its first sentence), cut near 100 chars. */
export function shortText(text: string, max = 100): string {
  const clause = (text.split(/(?<=[.:;])\s/)[0] ?? text).replace(/[.:;]$/, '');
  if (clause.length <= max) return clause;
  const cut = clause.lastIndexOf(' ', max);
  return `${clause.slice(0, cut > 0 ? cut : max)}…`;
}

/** How an evidence entry's caption names the test it comes from, by the entry's kind. */
const CAPTION_OF: Record<EvidenceEntry['kind'], string> = {
  check: 'Seen by',
  error: 'Test failed without a check',
  unjudged: 'The answer not judged, in',
};

/** One evidence entry: which test saw it, then the shared plain text with its Message line set in bold. */
function evidencePre(e: EvidenceEntry): string {
  const lines = evidenceText(e).split('\n');
  // The caption says which test; the text's own "Test:" line would say it again. An answer not judged has its
  // reason above it, in the card.
  if (lines[0]?.startsWith('Test: ')) lines.shift();
  if (e.kind === 'unjudged' && lines[0]?.startsWith('Message: ')) lines.shift();
  const body = lines.map((line) =>
    line.startsWith('Message: ') ? `<span class="evidence-line">${html(line)}</span>` : html(line),
  );
  const project = e.project ? ` · project ${e.project}` : '';
  const caption = `${CAPTION_OF[e.kind]}: ${e.test} · ${e.location}${project}`;
  return `<figure class="entry"><figcaption>${html(caption)}</figcaption>
<pre class="evidence">${body.join('\n')}</pre></figure>`;
}

function operationsOf(r: RequirementRow, byId: ReadonlyMap<string, Requirement>): string {
  const ops = byId.get(r.id)?.operations ?? [];
  if (ops.length === 0 || ops.length === 15) return ops.length === 15 ? 'every operation' : '';
  return `operation${ops.length === 1 ? '' : 's'} ${ops.join(', ')}`;
}

function banner(report: ConformanceReport, byId: ReadonlyMap<string, Requirement>): string {
  const s = report.summary;
  // Regressions first: under RSF_FAIL_ON=regression they are what fails the run, and a known failure does not.
  const regressions = report.requirements.filter(regressed);
  const failed = report.requirements.filter((r) => r.level === 'MUST' && hasStatus(r, 'failed') && !regressed(r));
  const warnings = report.requirements.filter((r) => hasStatus(r, 'warning'));
  const named = [...regressions, ...failed];
  const shown = named.length > 0 ? named : warnings;
  const item = (r: RequirementRow) => {
    const target = ATTENTION.has(r.status) ? `fail-${r.id}` : `req-${r.id}`;
    const where = [sectionLabel(r.section), operationsOf(r, byId)].filter(Boolean).join(', ');
    const what = regressed(r)
      ? `regressed (${r.baselineStatus ?? 'passed'} → ${look(r.status).label}): `
      : r.status === 'failed'
        ? ''
        : `${look(r.status).label}: `;
    const link = `<a href="#${html(target)}"><code>${html(r.id)}</code></a>`;
    return `<li>${link} ${html(what + shortText(r.text))} <span class="run">(${html(where)})</span></li>`;
  };
  const list = shown.slice(0, BANNER_ITEMS).map(item);
  if (shown.length > BANNER_ITEMS) {
    const rest = shown.length - BANNER_ITEMS;
    list.push(`<li><a href="#${named.length > 0 ? 'attention' : 'requirements'}">and ${rest} more</a></li>`);
  }
  const noneFailed =
    s.verdict === 'PASS' && passHeadlineSaysNoMustFailed(s.failOn) ? '' : 'No MUST requirement failed. ';
  const lead =
    named.length > 0
      ? ''
      : warnings.length > 0
        ? `<p>${noneFailed}${plural(warnings.length, 'warning')}:</p>`
        : `<p>${noneFailed}Nothing to warn about.</p>`;
  const headline = `<p class="headline">${html(s.headline)}</p>`;
  const more = s.verdictReasons.filter((r) => r !== s.headline);
  const reasons = more.length > 0 ? `<p>${more.map(html).join(' · ')}</p>` : '';
  const run = `${s.title}${s.project !== undefined ? ` · project ${s.project}` : ''} · ${s.target} · ${s.date}`;
  return `<header id="verdict" class="banner verdict-${html(s.verdict)}">
<h1>Conformance: ${html(s.verdict)}</h1>
${headline}${reasons}${lead}
${list.length > 0 ? `<ul>${list.join('\n')}</ul>` : ''}
<p class="run">${html(run)}</p>
</header>`;
}

/** A path that may break after each slash, and nowhere else. */
function breakable(path: string): string {
  return html(path).replace(/\//g, '/<wbr>');
}

function matrixCell(cell: MatrixCell, row: MatrixRow): string {
  const where = `operation ${row.operation.number}, ${cell.column.label}`;
  const data = `data-column="${html(cell.column.key)}"`;
  if (cell.status === undefined) {
    return `<td class="cell none" ${data} data-status="none" title="${html(`${where}: no check`)}">no check</td>`;
  }
  const status = cell.status;
  const names = cell.entries.map((e) => `${e.row.id} (${e.row.level}): ${look(e.status).label}`);
  const worst = cell.entries[0]?.row.id ?? '';
  const target = ATTENTION.has(status) ? `fail-${worst}` : `req-${worst}`;
  const label = `${where}: ${look(status).label}. ${names.join('; ')}`;
  const link = `href="#${html(target)}" title="${html(names.join('\n'))}" aria-label="${html(label)}"`;
  const text = `<span class="sym" aria-hidden="true">${look(status).symbol}</span>\
<span class="word">${html(look(status).label)}</span>`;
  return `<td class="cell st-${slug(status)}" ${data} data-status="${html(status)}"><a ${link}>${text}</a></td>`;
}

function matrix(rows: MatrixRow[]): string {
  const single = MATRIX_COLUMNS.filter((c) => c.kind !== 'credentials');
  const headerCell = (label: string, meaning: string, span = '') =>
    `<th class="col" scope="col"${span} title="${html(meaning)}"><span>${html(label)}</span></th>`;
  const first = MATRIX_COLUMNS.map((c, i) => {
    if (c.kind !== 'credentials') return headerCell(c.label, c.meaning, ' rowspan="2"');
    return i === MATRIX_COLUMNS.findIndex((x) => x.kind === 'credentials')
      ? `<th class="group" scope="colgroup" colspan="${CREDENTIAL_VARIANTS.length}">Credentials</th>`
      : '';
  }).join('');
  const second = MATRIX_COLUMNS.filter((c) => c.kind === 'credentials')
    .map((c) => headerCell(c.label, `credentials ${c.meaning}`))
    .join('');
  const operationHeader =
    '<th class="op" scope="col" rowspan="2"><span class="wide">Operation</span><span class="narrow">Op.</span></th>';
  const body = rows
    .map((row) => {
      const o = row.operation;
      const title = html(`${o.method} /v1${o.path}, §${o.section}`);
      const name = `<span class="num">${o.number}</span><span class="method">${o.method}</span> \
<span class="path">${breakable(o.path)}</span>`;
      const head = `<th scope="row" title="${title}">${name}</th>`;
      return `<tr data-operation="${o.number}">${head}${row.cells.map((c) => matrixCell(c, row)).join('')}</tr>`;
    })
    .join('\n');
  // The statuses this report's model has, and any a cell shows: a colour no report can show needs no explaining.
  const shown = new Set<string>([...STATUSES, ...rows.flatMap((r) => r.cells.flatMap((c) => c.status ?? []))]);
  const legendItem = (swatch: string, label: string, meaning: string) =>
    `<li>${swatch}<span><b>${html(label)}</b> ${html(meaning)}</span></li>`;
  const known = Object.keys(LOOKS);
  const legendItems = [...known.filter((s) => shown.has(s)), ...[...shown].filter((s) => !known.includes(s))]
    .map((status) => {
      const l = look(status);
      return legendItem(
        `<span class="swatch st-${slug(status)}" aria-hidden="true">${l.symbol}</span>`,
        l.label,
        l.meaning,
      );
    })
    .join('');
  const noCheck = legendItem(
    '<span class="swatch" aria-hidden="true"></span>',
    'no check',
    'the spec asks nothing of this kind here',
  );
  return `<section id="matrix"><h2>The API at a glance</h2>
<p class="muted">One row per operation, one column per kind of check (${single.length + 1} kinds, credentials by
variant). A cell shows the worst status of the requirements behind it; hover a cell to name them, click it to go to the
worst one.</p>
<table aria-label="Operations and kinds of check">
<thead><tr>${operationHeader}${first}</tr><tr>${second}</tr></thead>
<tbody>
${body}
</tbody></table>
<ul class="legend" aria-label="Legend">${legendItems}${noCheck}</ul>
</section>`;
}

function evidenceList(entries: readonly EvidenceEntry[]): string {
  const open = entries.slice(0, OPEN_EVIDENCE).map(evidencePre).join('\n');
  const rest = entries.slice(OPEN_EVIDENCE);
  const more =
    rest.length === 0
      ? ''
      : `<details><summary>${rest.length} more evidence entr${rest.length === 1 ? 'y' : 'ies'}</summary>
${rest.map(evidencePre).join('\n')}</details>`;
  return `${open}${more}`;
}

function failureCard(r: RequirementRow, byId: ReadonlyMap<string, Requirement>): string {
  const where = [r.level, sectionLabel(r.section), operationsOf(r, byId)].filter(Boolean).join(' · ');
  const reason = r.reason ? `<p class="reason">${html(r.reason)}</p>` : '';
  const evidence =
    r.evidence.length > 0
      ? evidenceList(r.evidence)
      : r.unjudgedEvidence?.length
        ? evidenceList(r.unjudgedEvidence)
        : '<p class="muted">No evidence was attached.</p>';
  return `<article class="failure st-${slug(r.status)}" id="fail-${html(r.id)}" data-status="${html(r.status)}">
<h3>${badge(r.status)} <code>${html(r.id)}</code> <span>${html(shortText(r.text))}</span></h3>
<p class="meta muted">${html(where)}</p>
<p class="req-text">${html(r.text)}</p>${reason}
${evidence}
</article>`;
}

function attention(report: ConformanceReport, byId: ReadonlyMap<string, Requirement>): string {
  const rows = report.requirements.filter((r) => ATTENTION.has(r.status));
  const errors = report.summary.errors;
  if (rows.length === 0 && errors.length === 0) return '';
  const errorBlock =
    errors.length === 0
      ? ''
      : `<section id="errors"><h3>Errors in the run</h3>
${errors.map((e) => `<pre>${html(e)}</pre>`).join('\n')}</section>`;
  return `<section id="attention"><h2>Needs attention (${rows.length + errors.length})</h2>
${errorBlock}
${rows.map((r) => failureCard(r, byId)).join('\n')}
</section>`;
}

function testsCell(r: RequirementRow): string {
  if (r.tests.length === 0) return '<span class="muted">no test</span>';
  const items = r.tests.map((t) => {
    const project = t.project ? ` [${html(t.project)}]` : '';
    const seed = t.seed ? ` (seed ${html(t.seed)})` : '';
    return `<li>${html(t.title)} <code>${html(`${t.file}:${t.line}`)}</code>${project}: ${html(t.outcome)}${seed}</li>`;
  });
  return `<details class="tests"><summary>${r.tests.length} test${r.tests.length === 1 ? '' : 's'}</summary>
<ul class="tests">${items.join('')}</ul></details>`;
}

function requirementRow(r: RequirementRow): string {
  const reasonText = r.waivedStatus ? `waived (was ${r.waivedStatus}): ${r.reason ?? ''}` : r.reason;
  const reason = reasonText ? `<p class="reason">${html(reasonText)}</p>` : '';
  let evidence = '';
  if (ATTENTION.has(r.status)) evidence = `<p><a href="#fail-${html(r.id)}">Evidence above</a></p>`;
  else if (r.evidence.length > 0) {
    evidence = `<details class="evidence"><summary>Evidence (${r.evidence.length})</summary>
${r.evidence.map(evidencePre).join('\n')}</details>`;
  }
  return `<tr class="req" id="req-${html(r.id)}" data-status="${html(r.status)}">
<td class="id"><code>${html(r.id)}</code></td><td class="level">${r.level}</td>\
<td class="section">${html(sectionLabel(r.section))}</td><td class="status">${badge(r.status)}</td>
<td class="text">${html(r.text)}${reason}${evidence}</td><td class="tests">${testsCell(r)}</td></tr>`;
}

function filters(report: ConformanceReport): string {
  const count = (s: string) => report.requirements.filter((r) => r.status === s).length;
  const radio = (id: string, label: string, checked = false) =>
    `<label><input type="radio" name="status" id="${id}"${checked ? ' checked' : ''}> ${html(label)}</label>`;
  const all = radio('show-all', `all (${report.requirements.length})`, true);
  const each = STATUSES.map((s) => radio(`show-${slug(s)}`, `${look(s).label} (${count(s)})`)).join('');
  return `<fieldset class="filters"><legend>Show</legend>${all}${each}</fieldset>`;
}

/** The comparison with RSF_BASELINE, right under the banner (as in every report); empty without a baseline. */
function baselineSection(report: ConformanceReport): string {
  const b = report.summary.baseline;
  if (!b) return '';
  const lists = baselineLines(b)
    .map(
      ({ label, items }) =>
        `<li><strong>${html(label)}</strong>${items.length ? `: ${items.map(html).join(', ')}` : ''}</li>`,
    )
    .join('\n');
  const known = knownFailures(report.summary.failOn, report.requirements);
  const knownIds = known.map((r) => `<code>${html(r.id)}</code>`).join(', ');
  const knownLine =
    known.length === 0 ? '' : `<p>Known failures (in the baseline, so they do not fail this run): ${knownIds}.</p>`;
  return `<section id="baseline"><h2>Compared with the baseline</h2>
<p>${html(b.file)}: ${html(b.verdict)}, ${html(b.date)}, target ${html(b.target)}, suite ${html(b.suiteVersion)}.</p>
<ul>${lists}</ul>
${knownLine}
</section>`;
}

function runDetails(report: ConformanceReport): string {
  const s = report.summary;
  const facts = runFacts(s)
    .map(([k, v]) => `<tr><th scope="row">${html(k)}</th><td>${html(v)}</td></tr>`)
    .join('\n');
  const countCells = (level: (typeof LEVELS)[number]) =>
    STATUSES.map((st) => `<td class="n">${s.counts[level][st]}</td>`).join('');
  const counts = LEVELS.map(
    (l) => `<tr><th scope="row">${l}</th>${countCells(l)}<td class="n">${s.counts[l].total}</td></tr>`,
  ).join('\n');
  const unknown =
    s.unknownTags.length === 0
      ? ''
      : `<h3>Tags not in the catalogue</h3><p>${s.unknownTags.map((t) => `<code>@${html(t)}</code>`).join(', ')}</p>`;
  const waiverRow = (w: (typeof s.waivers)[number]) =>
    `<tr><td><code>${html(w.id)}</code></td><td>${html(w.state)}: ${html(w.note)}</td>\
<td>${html(w.owner ?? '')}</td><td>${html(w.expires ?? '')}</td><td>${html(w.reason)}</td></tr>`;
  const w = s.waiverCounts;
  const waivers =
    s.waivers.length === 0
      ? ''
      : `<section id="waivers"><h3>Waivers</h3>
<p>${w.open} open (${w.waiving} waiving a failure, ${w.stale} stale), ${w.expired} expired.</p>
<div class="scroll"><table><thead><tr><th>ID</th><th>State</th><th>Owner</th><th>Expires</th><th>Reason</th></tr>\
</thead><tbody>${s.waivers.map(waiverRow).join('')}</tbody></table></div></section>`;
  return `<section id="run"><h2>About this run</h2>
<table class="facts"><tbody>
${facts}
</tbody></table>
<section id="counts"><h3>Counts</h3>
<div class="scroll"><table aria-label="Requirements per level and status"><thead><tr><th>Level</th>\
${STATUSES.map((st) => `<th>${html(look(st).label)}</th>`).join('')}<th>total</th></tr></thead><tbody>
${counts}
</tbody></table></div></section>
${unknown}
${waivers}
</section>`;
}

export function renderHtml(report: ConformanceReport, catalogue: readonly Requirement[] = requirements()): string {
  const s = report.summary;
  const byId = new Map(catalogue.map((r) => [r.id, r]));
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${html(`${s.title}: ${s.verdict}`)}</title>
<style>${CSS}</style>
</head>
<body>
${banner(report, byId)}
${baselineSection(report)}
${matrix(buildMatrix(report, catalogue))}
${attention(report, byId)}
<section id="requirements"><h2>Requirements</h2>
${filters(report)}
<table class="reqs" aria-label="Requirements"><thead><tr><th>ID</th><th class="level">Level</th>\
<th class="section">Section</th><th class="status">Status</th><th>Requirement</th><th>Tests</th></tr></thead><tbody>
${report.requirements.map(requirementRow).join('\n')}
</tbody></table></section>
${runDetails(report)}
</body>
</html>
`;
}
