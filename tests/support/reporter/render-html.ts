// conformance.html: one standalone page. Inline CSS, no script at all (the status filter is radio buttons and
// CSS :has()), and a Content-Security-Policy that forbids loading anything, so it works offline and cannot leak.
import { LEVELS, sectionLabel } from '../catalogue';
import { evidenceText, runFacts } from './format';
import { STATUSES } from './model';
import type { ConformanceReport, RequirementRow, Status } from './model';

export function html(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const COLOURS: Record<Status, string> = {
  failed: '#b42318',
  warning: '#b54708',
  waived: '#6941c6',
  skipped: '#475467',
  untested: '#667085',
  'not-observable': '#667085',
  passed: '#067647',
};

const CSS = `
:root { font: 15px/1.45 system-ui, sans-serif; color: #101828; background: #fff; }
body { margin: 0 auto; max-width: 1200px; padding: 0 1rem 3rem; }
.banner { margin: 1rem 0; padding: 1rem 1.25rem; border-radius: 8px; color: #fff; }
.banner h1 { margin: 0; font-size: 1.6rem; }
.banner ul { margin: .5rem 0 0; }
.verdict-PASS { background: #067647; }
.verdict-FAIL { background: #b42318; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0 1.5rem; }
th, td { border: 1px solid #d0d5dd; padding: .3rem .5rem; text-align: left; vertical-align: top; }
th { background: #f2f4f7; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
table.facts { width: auto; }
code, pre { font: 13px/1.4 ui-monospace, monospace; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f9fafb; border: 1px solid #eaecf0; padding: .5rem; margin: .4rem 0; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 4px; color: #fff; font-size: .85rem; white-space: nowrap; }
.reason { color: #475467; margin: .25rem 0 0; }
ul.tests { margin: 0; padding-left: 1rem; font-size: .9rem; }
details { margin-top: .4rem; }
summary { cursor: pointer; font-weight: 600; }
fieldset.filters { border: 0; padding: 0; margin: 0 0 .5rem; }
fieldset.filters label { margin-right: .9rem; white-space: nowrap; }
${STATUSES.map((s) => `.st-${s} { background: ${COLOURS[s]}; }`).join('\n')}
${STATUSES.map((s) => `#requirements:has(#show-${s}:checked) tr.req:not([data-status="${s}"]) { display: none; }`).join('\n')}
`;

function badge(status: Status): string {
  return `<span class="badge st-${status}">${html(status)}</span>`;
}

function evidenceBlock(r: RequirementRow): string {
  if (r.evidence.length === 0) return '';
  const open = r.status === 'failed' ? ' open' : '';
  const items = r.evidence.map((e) => `<pre class="evidence">${html(evidenceText(e))}</pre>`).join('\n');
  return `<details class="evidence"${open}><summary>Evidence (${r.evidence.length})</summary>\n${items}\n</details>`;
}

function row(r: RequirementRow): string {
  const reason = r.reason ? `<p class="reason">${html(r.waivedStatus ? `waived (was ${r.waivedStatus}): ${r.reason}` : r.reason)}</p>` : '';
  const tests = r.tests.length === 0
    ? ''
    : `<ul class="tests">${r.tests.map((t) => `<li>${html(t.title)} <code>${html(`${t.file}:${t.line}`)}</code>${t.project ? ` [${html(t.project)}]` : ''}: ${html(t.outcome)}${t.seed ? ` (seed ${html(t.seed)})` : ''}</li>`).join('')}</ul>`;
  return `<tr class="req" id="req-${html(r.id)}" data-status="${r.status}">
<td><code>${html(r.id)}</code></td><td>${r.level}</td><td>${html(sectionLabel(r.section))}</td><td>${badge(r.status)}</td>
<td>${html(r.text)}${reason}${evidenceBlock(r)}</td><td>${tests}</td></tr>`;
}

function filters(report: ConformanceReport): string {
  const count = (s: Status) => report.requirements.filter((r) => r.status === s).length;
  const radio = (id: string, label: string, checked = false) =>
    `<label><input type="radio" name="status" id="${id}"${checked ? ' checked' : ''}> ${html(label)}</label>`;
  return `<fieldset class="filters"><legend>Show</legend>${radio('show-all', `all (${report.requirements.length})`, true)}${STATUSES.map((s) => radio(`show-${s}`, `${s} (${count(s)})`)).join('')}</fieldset>`;
}

export function renderHtml(report: ConformanceReport): string {
  const s = report.summary;
  const facts = runFacts(s).map(([k, v]) => `<tr><th scope="row">${html(k)}</th><td>${html(v)}</td></tr>`).join('\n');
  const counts = LEVELS.map((l) => `<tr><th scope="row">${l}</th>${STATUSES.map((st) => `<td class="n">${s.counts[l][st]}</td>`).join('')}<td class="n">${s.counts[l].total}</td></tr>`).join('\n');
  const errors = s.errors.length === 0 ? '' : `<section id="errors"><h2>Errors</h2>${s.errors.map((e) => `<pre>${html(e)}</pre>`).join('\n')}</section>`;
  const unknown = s.unknownTags.length === 0 ? '' : `<section><h2>Tags not in the catalogue</h2><p>${s.unknownTags.map((t) => `<code>@${html(t)}</code>`).join(', ')}</p></section>`;
  const waivers = s.waivers.length === 0
    ? ''
    : `<section id="waivers"><h2>Waivers</h2><table><thead><tr><th>ID</th><th>Reason</th><th>Used</th></tr></thead><tbody>${s.waivers.map((w) => `<tr><td><code>${html(w.id)}</code></td><td>${html(w.reason)}</td><td>${w.used ? 'yes' : 'no: the requirement did not fail'}</td></tr>`).join('')}</tbody></table></section>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html(`${s.title}: ${s.verdict}`)}</title>
<style>${CSS}</style>
</head>
<body>
<header id="verdict" class="banner verdict-${s.verdict}">
<h1>Conformance: ${s.verdict}</h1>
<p>${html(s.title)}${s.project !== undefined ? ` · project ${html(s.project)}` : ''}</p>
${s.verdictReasons.length > 0 ? `<ul>${s.verdictReasons.map((r) => `<li>${html(r)}</li>`).join('')}</ul>` : ''}
</header>
<section id="run"><h2>Run</h2><table class="facts"><tbody>
${facts}
</tbody></table></section>
<section id="counts"><h2>Counts</h2>
<table aria-label="Requirements per level and status"><thead><tr><th>Level</th>${STATUSES.map((st) => `<th>${html(st)}</th>`).join('')}<th>total</th></tr></thead><tbody>
${counts}
</tbody></table></section>
${errors}
${unknown}
${waivers}
<section id="requirements"><h2>Requirements</h2>
${filters(report)}
<table aria-label="Requirements"><thead><tr><th>ID</th><th>Level</th><th>Section</th><th>Status</th><th>Requirement</th><th>Tests</th></tr></thead><tbody>
${report.requirements.map(row).join('\n')}
</tbody></table></section>
</body>
</html>
`;
}
