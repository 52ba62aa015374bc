// conformance.html in a real browser, offline: the verdict, the counts and a failed requirement's evidence show.
import { expect, test } from '../support/fixtures';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fakeSuiteCounts, runFakeSuite } from './support/child-run';
import { CHROMIUM, chromiumAvailable, launchChromium, offlineContext } from './support/offline-browser';

test('conformance.html shows the verdict, the counts and the evidence of a failed MUST, offline', async ({}, testInfo) => {
  test.skip(!chromiumAvailable(), `${CHROMIUM} is not installed (Debian: apt-get install -y chromium)`);
  test.setTimeout(150_000);
  const run = await runFakeSuite(testInfo.outputPath('run'));
  expect(run.code, run.stdout + run.stderr).toBe(1);

  const browser = await launchChromium();
  try {
    const { context, attempted } = await offlineContext(browser);
    const page = await context.newPage();
    const scriptErrors: string[] = [];
    page.on('pageerror', (e) => scriptErrors.push(e.message));
    await page.goto(pathToFileURL(join(run.reportsDir, 'conformance.html')).href);

    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Conformance: FAIL');
    await expect(page.locator('#verdict')).toBeVisible();
    await expect(page.locator('#verdict')).toContainText('3 MUST requirements failed');

    const counts = page.getByRole('table', { name: 'Requirements per level and status' });
    await expect(counts).toBeVisible();
    const { MUST } = fakeSuiteCounts();
    await expect(counts.getByRole('row', { name: /^MUST/ })).toHaveText(new RegExp(`MUST\\s*3\\s*0\\s*0\\s*1\\s*${MUST.untested}\\s*2\\s*4\\s*${MUST.total}`));

    // The failed requirement's evidence is open by default and escaped (the fake evidence carries a <script>).
    const failed = page.locator('#req-OP4-UTILITY-MAX');
    await expect(failed).toBeVisible();
    await expect(failed.getByText('failed', { exact: true })).toBeVisible();
    const evidence = failed.locator('details.evidence');
    await expect(evidence).toHaveAttribute('open', '');
    await expect(evidence.locator('pre').first()).toBeVisible();
    await expect(evidence.locator('pre').first()).toContainText('Message: utility 100.5 was accepted');
    await expect(evidence.locator('pre').first()).toContainText('<script>alert("not escaped")</script> must not run');
    await expect(evidence.locator('pre').first()).toContainText('authorization: Bearer [REDACTED]');
    // A warning's evidence is there but closed.
    await expect(page.locator('#req-OP9-AUTH-ERROR-BODY details.evidence')).not.toHaveAttribute('open', '');

    // The status filter works without script: "warning" hides the failed row.
    await page.getByRole('radio', { name: /^warning \(/ }).check({ timeout: 5_000 });
    await expect(failed).toBeHidden();
    await expect(page.locator('#req-OP9-AUTH-ERROR-BODY')).toBeVisible();

    expect(scriptErrors).toEqual([]);
    expect(attempted, 'requests that left file://').toEqual([]);
    await context.close();
  } finally {
    await browser.close();
  }
});
