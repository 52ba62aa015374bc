// conformance.html in a real browser, offline and with script off: the banner names the failure, the matrix shows
// where it is, the evidence is open, and the page reads at 1400 px and 390 px, in light and dark, and in print.
// Screenshots go to the run's test-results/self/run-<pid>/html-report-screenshots/ for a reviewer to look at.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from '@playwright/test';
import { expect, test } from '../../src/playwright/fixtures';
import { requirements } from '../../src/model/catalogue';
import { type ConformanceReport, STATUSES, buildReport } from '../../src/report/model';
import { renderHtml } from '../../src/report/render-html';
import { fullFakeRun } from './support/full-fake-run';
import { CHROMIUM, chromiumAvailable, launchChromium, offlineContext } from './support/offline-browser';

const WIDE = { width: 1400, height: 1000 };
const NARROW = { width: 390, height: 844 };
/** A4 less 12 mm margins each side (the page's @page rule), in CSS pixels at 96 per inch. */
const A4_CONTENT = { width: Math.floor((186 / 25.4) * 96), height: Math.floor((273 / 25.4) * 96) };

test('with no failed MUST, the banner names the warnings instead', () => {
  const warned = requirements().find((r) => r.level === 'SHOULD');
  if (!warned) throw new Error('the catalogue has no SHOULD requirement');
  const record = {
    title: 'warns',
    file: 'tests/conformance/x.spec.ts',
    line: 1,
    project: '',
    tags: [warned.id],
    status: 'passed' as const,
    flaky: false,
    durationMs: 1,
    checks: [{ id: warned.id, outcome: 'failed' as const }],
    evidence: [],
    errors: [],
  };
  const input = { metadata: {}, strict: false, waivers: [], errors: [], startTime: new Date(0), durationMs: 1 };
  const report = buildReport({ ...input, catalogue: requirements(), tests: [record] });
  expect(report.summary.verdict).toBe('PASS');
  const banner = /<header id="verdict"[\s\S]*?<\/header>/.exec(renderHtml(report))?.[0] ?? '';
  expect(banner).toContain('<p>1 warning:</p>');
  expect(banner).toContain(`<a href="#req-${warned.id}"><code>${warned.id}</code></a>`);
  const clean = /<header id="verdict"[\s\S]*?<\/header>/.exec(renderHtml({ ...report, requirements: [] }))?.[0];
  expect(clean).toContain('<p>Nothing to warn about.</p>');
  // The headline says it once: no second sentence to the same effect.
  for (const header of [banner, clean]) expect(header?.match(/no MUST requirement failed/gi)).toHaveLength(1);
  // A run that could not judge says what it judged: nothing failed there.
  const unjudged = { ...report.summary, verdict: 'ERROR' as const, headline: 'the target stopped answering' };
  const error = /<header id="verdict"[\s\S]*?<\/header>/.exec(renderHtml({ ...report, summary: unjudged }))?.[0];
  expect(error).toContain('<p>No MUST requirement failed. 1 warning:</p>');
});

test('with a baseline, the banner names the regression first, and the comparison and waiver states follow', () => {
  const [regressing, known, waived] = requirements().filter((r) => r.level === 'MUST');
  if (!regressing || !known || !waived) throw new Error('the catalogue has fewer than three MUST requirements');
  const failing = (id: string, line: number) => ({
    title: `fails ${id}`,
    file: 'tests/conformance/x.spec.ts',
    line,
    project: '',
    tags: [id],
    status: 'failed' as const,
    flaky: false,
    durationMs: 1,
    checks: [{ id, outcome: 'failed' as const }],
    evidence: [],
    errors: [`${id} failed`],
  });
  const baseline = {
    file: 'last-green/conformance.json',
    date: '2026-11-01T00:00:00.000Z',
    target: 'https://staging.example.test',
    suiteVersion: '0.1.0',
    verdict: 'FAIL',
    requirements: new Map([
      [regressing.id, { level: 'MUST', status: 'passed' }],
      [known.id, { level: 'MUST', status: 'failed' }],
      ['OP99-GONE', { level: 'MUST', status: 'passed' }],
    ]),
  };
  const report = buildReport({
    catalogue: requirements(),
    tests: [failing(regressing.id, 1), failing(known.id, 2), failing(waived.id, 3)],
    metadata: {},
    failOn: 'regression',
    waivers: [
      { id: waived.id, reason: 'gateway answers for it', owner: 'team-api', expires: '2999-12-31' },
      { id: 'OP1-SUCCESS-SHAPE', reason: 'fixed long ago', owner: 'team-web' },
    ],
    baseline,
    errors: [],
    startTime: new Date(0),
    durationMs: 1,
  });
  const page = renderHtml(report);
  const banner = /<header id="verdict"[\s\S]*?<\/header>/.exec(page)?.[0] ?? '';
  expect(banner).toContain(report.summary.headline);
  const items = [...banner.matchAll(/<li><a href="#([^"]+)">/g)].map((m) => m[1]);
  expect(items[0], 'the regression comes first').toBe(`fail-${regressing.id}`);
  expect(banner).toContain('regressed (passed → failed)');
  const comparison = /<section id="baseline">[\s\S]*?<\/section>/.exec(page)?.[0] ?? '';
  expect(page.indexOf('id="baseline"'), 'the comparison right under the banner').toBeLessThan(
    page.indexOf('id="matrix"'),
  );
  expect(comparison).toContain('last-green/conformance.json');
  expect(comparison).toContain(`Regressed (1)</strong>: ${regressing.id}`);
  expect(comparison).toContain(`Still failing (1)</strong>: ${known.id}`);
  expect(comparison).toContain('Gone from the catalogue (1)</strong>: OP99-GONE');
  expect(comparison).toContain(
    `Known failures (in the baseline, so they do not fail this run): <code>${known.id}</code>`,
  );
  const waivers = /<section id="waivers">[\s\S]*?<\/section>/.exec(page)?.[0] ?? '';
  expect(waivers).toContain('2 open (1 waiving a failure, 1 stale), 0 expired.');
  expect(waivers).toContain('<td>team-api</td><td>2999-12-31</td>');
  expect(waivers).toMatch(/<td>stale: /);
});

test.describe('conformance.html', () => {
  test.skip(!chromiumAvailable(), `${CHROMIUM} is not installed (Debian: apt-get install -y chromium)`);
  // One fake run, one browser and one page for all the tests below, in order, in one worker: a context costs the
  // browser a renderer process, about 0.3 CPU-seconds, and npm test is bound by the CPU of its 2 cores.
  test.describe.configure({ mode: 'default' });

  let pageUrl = '';
  let shots = '';
  /** What the page must show, from the run's own conformance.json: this tests the rendering, not the status rules. */
  let report: ConformanceReport;
  let browser: Browser | undefined;
  let page: Page | undefined;
  /** Requests that left file:// and errors of script, in the test's page load; the report needs neither. */
  let attempted: string[] = [];
  const scriptErrors: string[] = [];

  test.beforeAll(async ({}, testInfo) => {
    testInfo.setTimeout(150_000);
    const run = await fullFakeRun();
    expect(run.code, run.stdout + run.stderr).toBe(1);
    report = run.report();
    pageUrl = pathToFileURL(join(run.reportsDir, 'conformance.html')).href;
    shots = join(testInfo.project.outputDir, 'html-report-screenshots');
    browser = await launchChromium();
    const offline = await offlineContext(browser, { javaScriptEnabled: false });
    attempted = offline.attempted;
    page = await offline.context.newPage();
    page.on('pageerror', (e) => scriptErrors.push(e.message));
  });

  test.afterAll(async () => {
    await browser?.close();
  });

  interface View {
    viewport?: { width: number; height: number };
    colorScheme?: 'light' | 'dark';
    media?: 'screen' | 'print';
  }

  /**
   * Opens the report afresh in the shared page, offline and with script off, seen as `view` says (1400 px, light, on
   * screen unless it says otherwise: each test sets all three), runs `body`, then checks that nothing left file://
   * and that no script ran.
   */
  async function withPage(view: View, body: (page: Page) => Promise<void>): Promise<void> {
    if (!page) throw new Error('the browser did not start');
    // Each test answers for its own page load only.
    scriptErrors.length = 0;
    attempted.length = 0;
    await page.setViewportSize(view.viewport ?? WIDE);
    await page.emulateMedia({ colorScheme: view.colorScheme ?? 'light', media: view.media ?? 'screen' });
    await page.goto(pageUrl);
    await body(page);
    expect(scriptErrors).toEqual([]);
    expect(attempted, 'requests that left file://').toEqual([]);
  }

  /** A requirement the fake run warns about (a SHOULD or INFO check failed), with its evidence. */
  function warningId(): string {
    const warning = report.requirements.find((r) => r.status === 'warning' && r.evidence.length > 0);
    if (!warning) throw new Error('the fake run has no warning with evidence');
    return warning.id;
  }

  async function expectNoHorizontalScroll(page: Page): Promise<void> {
    const scrollWidth = await page.evaluate<number>('document.documentElement.scrollWidth');
    const innerWidth = await page.evaluate<number>('window.innerWidth');
    expect(scrollWidth, 'the page scrolls sideways').toBeLessThanOrEqual(innerWidth);
  }

  /**
   * The first screen, and the matrix with its legend when they do not fit in it. Not the whole page: the report is
   * 12,000 to 22,000 px tall, an image nobody reads, and taking it cost about a second and a CPU-second each; a
   * screen's picture costs the browser about 0.3 CPU-seconds.
   */
  async function screenshots(page: Page, name: string): Promise<void> {
    const path = join(shots, `${name}.png`);
    await page.screenshot({ path });
    const matrix = await page.locator('#matrix').boundingBox();
    const screenHeight = page.viewportSize()?.height ?? 0;
    if (!matrix || matrix.y + matrix.height > screenHeight)
      await page.locator('#matrix').screenshot({ path: join(shots, `${name}-matrix.png`) });
    await test.info().attach(name, { path, contentType: 'image/png' });
  }

  test('the banner names the failed MUST requirements and links to their evidence', async () => {
    await withPage({ viewport: WIDE }, async (page) => {
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Conformance: FAIL');
      const banner = page.locator('#verdict');
      const failed = report.requirements.filter((r) => r.status === 'failed').map((r) => r.id);
      expect(failed).toContain('OP4-UTILITY-MAX');
      await expect(banner).toContainText(`${failed.length} MUST requirements failed`);
      for (const id of failed) {
        await expect(banner.getByRole('link', { name: id })).toHaveAttribute('href', `#fail-${id}`);
      }
      // Short text and section: the first clause of the requirement, not all of it.
      await expect(banner.getByRole('listitem').filter({ hasText: 'OP4-UTILITY-MAX' })).toHaveText(
        /OP4-UTILITY-MAX utility is at most 100 \(§8, operation 4\)$/,
      );
      // A warning is not a failure: it is not named while MUST requirements failed.
      await expect(banner).not.toContainText(warningId());
    });
  });

  test('the matrix has a row per operation, and the failed cell is in the row of operation 4', async () => {
    await withPage({ viewport: WIDE }, async (page) => {
      const matrix = page.getByRole('table', { name: 'Operations and kinds of check' });
      await expect(matrix.locator('tbody tr')).toHaveCount(15);
      const rules = matrix.locator('td[data-column="rules"][data-status="failed"]');
      await expect(rules).toHaveCount(1);
      await expect(matrix.locator('tr[data-operation="4"] td[data-column="rules"]')).toHaveAttribute(
        'data-status',
        'failed',
      );
      const cell = matrix.locator('tr[data-operation="4"] td[data-column="rules"] a');
      await expect(cell).toBeVisible();
      await expect(cell).toHaveText(/failed/);
      await expect(cell).toHaveAttribute('href', '#fail-OP4-UTILITY-MAX');
      // Hover names every requirement behind the cell, each with its status there.
      await expect(cell).toHaveAttribute('title', /OP4-UTILITY-MAX \(MUST\): failed/);
      // The fake test carries OP4-UNKNOWN-CATEGORY but stops at the failed check before judging it.
      await expect(cell).toHaveAttribute('title', /OP4-UNKNOWN-CATEGORY \(MUST\): untested/);
      // A kind the spec asks nothing of here, and the legend.
      await expect(matrix.locator('tr[data-operation="12"] td[data-column="field-types"]')).toHaveText('no check');
      await expect(page.getByRole('list', { name: 'Legend' })).toContainText('failed');
    });
  });

  test('failures come first with their evidence open, escaped and redacted; the rest is collapsed', async () => {
    await withPage({ viewport: WIDE }, async (page) => {
      const card = page.locator('#fail-OP4-UTILITY-MAX');
      await expect(card).toBeVisible();
      const evidence = card.locator('pre.evidence').first();
      await expect(evidence).toBeVisible();
      await expect(evidence).toContainText('Message: utility 100.5 was accepted');
      await expect(evidence).toContainText('<script>alert("not escaped")</script> must not run');
      await expect(evidence).toContainText('authorization: Bearer [REDACTED]');
      const attention = await page.locator('#attention').boundingBox();
      const table = await page.locator('#requirements').boundingBox();
      expect(attention && table && attention.y < table.y, 'failures come before the requirement table').toBe(true);

      // The table: tests behind a count, a warning's evidence closed, a failure points up to its card.
      const tests = page.locator('#req-OP4-UTILITY-MAX details.tests');
      await expect(tests.locator('summary')).toHaveText(/^\d+ tests?$/);
      await expect(tests).not.toHaveAttribute('open', '');
      await expect(tests.getByRole('listitem').first()).toBeHidden();
      await expect(page.locator('#req-OP4-UTILITY-MAX').getByRole('link', { name: 'Evidence above' })).toBeVisible();
      const warning = page.locator(`#req-${warningId()}`);
      await expect(warning.locator('details.evidence')).not.toHaveAttribute('open', '');

      const counts = page.getByRole('table', { name: 'Requirements per level and status' });
      const must = report.summary.counts.MUST;
      const numbers = [...STATUSES.map((status) => must[status]), must.total].join('\\s*');
      await expect(counts.getByRole('row', { name: /^MUST/ })).toHaveText(new RegExp(`^MUST\\s*${numbers}$`));

      // The status filter works without script: "warning" hides the failed row.
      await page.getByRole('radio', { name: /^warning \(/ }).check({ timeout: 5_000 });
      await expect(page.locator('#req-OP4-UTILITY-MAX')).toBeHidden();
      await expect(warning).toBeVisible();
    });
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    test(`reads at 1400 px and 390 px without scrolling sideways, ${colorScheme}`, async () => {
      for (const viewport of [WIDE, NARROW]) {
        await withPage({ viewport, colorScheme }, async (page) => {
          await expectNoHorizontalScroll(page);
          await expect(page.locator('#verdict')).toContainText('OP4-UTILITY-MAX');
          await expect(page.locator('#fail-OP4-UTILITY-MAX pre.evidence').first()).toBeVisible();
          const background = colorScheme === 'dark' ? 'rgb(12, 17, 29)' : 'rgb(255, 255, 255)';
          await expect(page.locator('html')).toHaveCSS('background-color', background);
          await screenshots(page, `conformance-${viewport.width}-${colorScheme}`);
        });
      }
    });
  }

  test('does not scroll sideways at the widths of phones, tablets, laptops and desktops', async () => {
    // Between the two layouts' own widths above: a laptop's 1280 px scrolled sideways once (a long path in a
    // requirement's text, and the table's fixed columns).
    await withPage({ viewport: { width: 600, height: 800 } }, async (page) => {
      for (const width of [600, 768, 900, 1024, 1280, 1366, 1920]) {
        await page.setViewportSize({ width, height: 800 });
        await expectNoHorizontalScroll(page);
      }
    });
  });

  test('the matrix prints on one A4 page', async () => {
    await withPage({ viewport: A4_CONTENT, media: 'print' }, async (page) => {
      const box = await page.locator('#matrix').boundingBox();
      expect(box, 'the matrix is laid out').not.toBeNull();
      expect(box?.width ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(A4_CONTENT.width);
      expect(box?.height ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(A4_CONTENT.height);
      // A picture of the printed first page (a PDF of the whole report would weigh tens of megabytes).
      await page.screenshot({ path: join(shots, 'conformance-print-a4.png') });
    });
  });
});
