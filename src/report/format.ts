// Plain-text pieces shared by the Markdown, HTML and JUnit renderers and the verdict line.
import { sectionLabel } from '../model/catalogue';
import type { BaselineComparison, ChangedRequirement } from './baseline';
import type { ConformanceReport, EvidenceEntry, SlowedDown, Summary } from './model';
import { idList } from './verdict';
import { plural } from '../model/text';
import { RESUME_PAUSE_MS } from '../http/run-state';

const POLICY_MEANING = {
  must: 'must (a MUST failure fails the run)',
  regression: 'regression (only a MUST failure the baseline did not have fails the run)',
  strict: 'strict (MUST failures and SHOULD warnings fail the run)',
} as const;

/** The counts part of the verdict line: `MUST 2 failed / 73; SHOULD 1 warning / 12; …`. */
export function countsLine(summary: Summary): string {
  const { MUST, SHOULD, INFO } = summary.counts;
  const total = (k: 'waived' | 'skipped' | 'untested' | 'inconclusive' | 'not run') => MUST[k] + SHOULD[k] + INFO[k];
  const parts = [
    `MUST ${MUST.failed} failed / ${MUST.total}`,
    `SHOULD ${plural(SHOULD.warning, 'warning')} / ${SHOULD.total}`,
    `INFO ${plural(INFO.warning, 'deviation')} / ${INFO.total}`,
    `waived ${total('waived')}`,
    `skipped ${total('skipped')}`,
    `untested ${total('untested')}`,
  ];
  if (total('inconclusive') > 0) parts.push(`inconclusive ${total('inconclusive')}`);
  if (total('not run') > 0) parts.push(`not run ${total('not run')}`);
  if (summary.requestsRetried) parts.push(`${plural(summary.requestsRetried, 'throttled answer')} retried`);
  if (summary.transientRetried) parts.push(transientLine(summary.transientRetried));
  if (summary.slowedDown) parts.push(`run slowed down ${plural(summary.slowedDown.times, 'time')}`);
  if (summary.paused) parts.push(`run paused ${plural(summary.paused.times, 'time')}`);
  const problems = summary.errors.length + summary.configErrors.length;
  if (problems > 0) parts.push(plural(problems, 'error'));
  return parts.join('; ');
}

/**
 * The one line printed at the end of the run, e.g. `Conformance: FAIL — MUST 2 failed / 73; …`. The counts say
 * what a plain PASS or FAIL means; an ERROR, the regression policy, or a FAIL with something not judged put their
 * one sentence first.
 */
export function verdictLine(summary: Summary, htmlPath: string): string {
  const counts = countsLine(summary);
  const plain = summary.failOn !== 'regression' && summary.verdictReasons.length <= 1 && summary.verdict !== 'ERROR';
  const said = plain ? counts : `${summary.headline} — ${counts}`;
  return `Conformance: ${summary.verdict} — ${said} (${htmlPath})`;
}

/** "3 transient gateway errors retried": 502, 503, 504 or Cloudflare's 52x, sent again and not judged (retry.ts). */
/** The requests refused for their size, whose samples were not judged: §8 leaves payload limits open. */
export function sizeRefusedLine(count: number): string {
  return (
    `${plural(count, 'request')} (HTTP 413, 414 or 431, or refused though carried out with its long texts cut ` +
    "to the configured values' size): the valid input they carried was not judged, a limit §8 leaves open (the API, " +
    'or a web server in front of it, may set one)'
  );
}

/**
 * The valid inputs refused for a reason the spec allows (§4.5's "could not be updated"): not failed, and not judged,
 * shown so that a refusal of an ordinary value (an amount of 2^32, a 0) does not pass without a word (indep106).
 */
export function allowedRefusalsLine({ count, byOperation, examples }: NonNullable<Summary['allowedRefusals']>): string {
  const where = Object.entries(byOperation)
    .map(([operation, n]) => `operation ${operation}: ${n}`)
    .join(', ');
  return (
    `${plural(count, 'valid input')} (${where}) refused for a reason the spec lists for the operation, so not judged ` +
    `and not failed; check that your API means to refuse ${count === 1 ? 'it' : 'them'}. E.g. ${examples.join('; ')}`
  );
}

/** The outages the run rode out: the circuit breaker paused, asked for the price list again, and went on. */
export function pausedLine({ times, firstSince }: NonNullable<Summary['paused']>): string {
  return (
    `${plural(times, 'time')}, the first from ${firstSince} on: requests in a row got no usable answer, the run ` +
    `paused ${RESUME_PAUSE_MS / 1000} s and asked for the price list again, which answered; the requests that got ` +
    'none are inconclusive'
  );
}

export function transientLine(count: number): string {
  return `${count} transient gateway ${count === 1 ? 'error' : 'errors'} retried`;
}

/** Why the target slowed the run down, by the statuses of the answers that did. */
const SLOWED_BY: Record<number, string> = {
  429: 'HTTP 429: the target throttled it',
  503: 'HTTP 503 without Retry-After: the target was overloaded, or a rate limiter refused requests',
};

/**
 * "2 times (HTTP 429: the target throttled it), down to 2.5 requests a second over the run; …": how often the
 * run's pace was halved, why, and the setting that starts a run at such a pace.
 */
export function slowedDownLine({ times, statuses, slowestRatePerSecond }: SlowedDown): string {
  const why = statuses.map((s) => SLOWED_BY[s] ?? `HTTP ${s}`).join('; ');
  const pace = Math.max(1, Math.floor(slowestRatePerSecond));
  return (
    `${plural(times, 'time')} (${why}), down to ${plural(slowestRatePerSecond, 'request')} a second over the run; ` +
    `RSF_MAX_REQUESTS_PER_SECOND=${pace} starts a run at such a pace`
  );
}

/** The run facts shown at the top of every format, in order. */
export function runFacts(summary: Summary): [string, string][] {
  const t = summary.tests;
  const w = summary.waiverCounts;
  const facts: [string, string][] = [
    ...(summary.project !== undefined ? [['Project', summary.project] as [string, string]] : []),
    ['Target', summary.target],
    ['Date', summary.date],
    ['Suite version', summary.suiteVersion],
    ['Safety mode', summary.safetyMode],
    ['Profile', summary.profile],
    ['Seed', summary.seed],
    ['Fails on', POLICY_MEANING[summary.failOn]],
    ['Strict', summary.strict ? 'yes (SHOULD warnings fail the run)' : 'no'],
    ['Requests sent', summary.requestsSent === null ? 'unknown' : String(summary.requestsSent)],
    // Sent again after a throttled answer (429, or 503 with Retry-After); a gateway's blips are counted apart.
    ['Throttled answers retried', summary.requestsRetried === null ? 'unknown' : String(summary.requestsRetried)],
    ...(summary.transientRetried
      ? [['Transient answers retried', transientLine(summary.transientRetried)] as [string, string]]
      : []),
    ...(summary.slowedDown ? [['Run slowed down', slowedDownLine(summary.slowedDown)] as [string, string]] : []),
    ...(summary.paused ? [['Run paused', pausedLine(summary.paused)] as [string, string]] : []),
    ...(summary.sizeRefused
      ? [['Refused for their size', sizeRefusedLine(summary.sizeRefused)] as [string, string]]
      : []),
    ...(summary.allowedRefusals
      ? [['Valid input refused', allowedRefusalsLine(summary.allowedRefusals)] as [string, string]]
      : []),
    [
      'Tests',
      `${t.total} (${t.passed} passed, ${t.failed} failed, ${t.flaky} flaky, ${t.skipped} skipped, ` +
        `${t.inconclusive} inconclusive, ${t.notRun} not run)`,
    ],
    ['Waivers', `${w.open} open (${w.waiving} waiving a failure, ${w.stale} stale), ${w.expired} expired`],
  ];
  if (summary.stoppedAnswering) facts.push(['Stopped answering', summary.stoppedAnswering]);
  if (summary.baseline) facts.push(['Baseline', `${summary.baseline.file} (${summary.baseline.date})`]);
  return facts;
}

const changeItem = (c: ChangedRequirement) => `${c.id} (${c.level}, ${c.before ?? 'not in the baseline'} → ${c.now})`;

/**
 * The baseline comparison as labelled lines, each list cut to `maxItems` (the rest counted): the first thing every
 * report shows when RSF_BASELINE is set.
 */
export function baselineLines(comparison: BaselineComparison, maxItems = 40): { label: string; items: string[] }[] {
  const cut = (items: string[]) =>
    items.length > maxItems ? [...items.slice(0, maxItems), `and ${items.length - maxItems} more`] : items;
  return [
    { label: `Regressed (${comparison.regressed.length})`, items: cut(comparison.regressed.map(changeItem)) },
    { label: `Fixed (${comparison.fixed.length})`, items: cut(comparison.fixed.map(changeItem)) },
    { label: `Still failing (${comparison.stillFailing.length})`, items: cut(comparison.stillFailing.map(changeItem)) },
    { label: `New in the catalogue (${comparison.new.length})`, items: cut(comparison.new.map(changeItem)) },
    {
      label: `Gone from the catalogue (${comparison.gone.length})`,
      items: cut(comparison.gone.map((g) => `${g.id} (${g.level}, was ${g.before})`)),
    },
  ];
}

/** One line for a console or a property: `regressed 1 (OP4-UTILITY-MAX); fixed 0; …`. */
export function baselineOneLine(comparison: BaselineComparison): string {
  const part = (name: string, rows: readonly { id: string }[]) =>
    rows.length > 0 ? `${name} ${rows.length} (${idList(rows)})` : `${name} 0`;
  return [
    part('regressed', comparison.regressed),
    part('fixed', comparison.fixed),
    part('still failing', comparison.stillFailing),
    part('new', comparison.new),
    part('gone', comparison.gone),
  ].join('; ');
}

export function requirementHeading(r: ConformanceReport['requirements'][number]): string {
  return `${r.id} (${r.level}, ${sectionLabel(r.section)})`;
}

/** An evidence entry as readable text: used in Markdown code blocks, JUnit bodies and the HTML <pre>. */
export function evidenceText(e: EvidenceEntry): string {
  const message = e.evidence ? withoutDetail(e.message) : e.message;
  const lines = [`Test: ${e.test} (${e.location}${e.project ? `, project ${e.project}` : ''})`, `Message: ${message}`];
  const ev = e.evidence;
  if (ev) {
    if (ev.operation) lines.push(`Operation: ${ev.operation}`);
    if (ev.schemaErrors?.length) lines.push('Schema errors:', ...ev.schemaErrors.map((s) => `  - ${s}`));
    (ev.exchanges ?? []).forEach((x, i) => {
      lines.push(`Exchange ${i + 1}:`, `  ${x.request.method} ${x.request.url}`);
      for (const [k, v] of Object.entries(x.request.headers ?? {})) lines.push(`  ${k}: ${v}`);
      if (x.request.body !== undefined) lines.push(`  request body: ${x.request.body}`);
      for (const a of x.attempts ?? []) {
        const after = a.retryAfter !== undefined ? `, Retry-After: ${a.retryAfter}` : '';
        lines.push(`  → ${a.status}${after}: throttled, sent again after ${a.waitedMs} ms`);
      }
      if (x.response) {
        lines.push(
          `  → ${x.response.status} ${x.response.contentType}`,
          `  response excerpt: ${x.response.bodyExcerpt}`,
        );
      }
      if (x.curl) lines.push(`  replay with: ${x.curl}`);
    });
    // A property's message names its seed and replay command already (property.ts): once is enough.
    if (ev.seed && !message.includes(`Seed: ${ev.seed}`)) lines.push(`Seed: ${ev.seed}`);
    if (ev.replay && !message.includes(`Replay: ${ev.replay}`)) lines.push(`Replay: ${ev.replay}`);
  }
  return lines.join('\n');
}

/**
 * A check's message without the schema errors and exchanges it ends with (conformance.ts, evidenceOf): the
 * evidence lists those itself, so a report would otherwise show them twice.
 */
function withoutDetail(message: string): string {
  const kept: string[] = [];
  let inSchemaErrors = false;
  for (const line of message.split('\n')) {
    if (line.startsWith('exchange:')) break;
    if (line === 'schema errors:') inSchemaErrors = true;
    else if (!inSchemaErrors || !line.startsWith('  - ')) {
      inSchemaErrors = false;
      kept.push(line);
    }
  }
  return kept.join('\n');
}
