// Self-test helper: Debian's Chromium (not a Playwright download), launched so that it cannot reach the network.
import { existsSync } from 'node:fs';
import { chromium } from '@playwright/test';
import type { Browser, BrowserContext, BrowserContextOptions } from '@playwright/test';

export const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/**
 * An offline context that aborts every request that is not for a file:// or data: URL and records it. `options` sets
 * the rest (viewport, colour scheme, script off to prove a page needs none); offline it stays.
 */
export async function offlineContext(
  browser: Browser,
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; attempted: string[] }> {
  const context = await browser.newContext({ javaScriptEnabled: true, ...options, offline: true });
  const attempted: string[] = [];
  context.on('request', (req) => {
    if (!/^(file|data):/.test(req.url())) attempted.push(req.url());
  });
  await context.route(/^(?!file:|data:)/, (route) => route.abort('internetdisconnected'));
  return { context, attempted };
}
