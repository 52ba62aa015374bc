// One request before the run: is the target there, is it this API, and does it accept the token?
import { request } from '@playwright/test';
import type { Config } from './config';
import { parseBody } from './http';
import { redact } from './redact';
import { apiBase } from './target';

export class PreflightError extends Error {
  override name = 'PreflightError';
}

export async function preflight(config: Config): Promise<void> {
  const url = `${apiBase(config)}/prices`;
  const context = await request.newContext();
  const fail = (why: string): never => {
    throw new PreflightError(redact(`Preflight failed, so no test was run.\n  GET ${url}\n  ${why}`));
  };
  try {
    let response;
    try {
      response = await context.get(url, {
        headers: { Authorization: `Bearer ${config.bearerToken}`, Accept: 'application/json' },
        timeout: config.requestTimeoutMs,
        failOnStatusCode: false,
        maxRedirects: 0,
      });
    } catch (e) {
      const first = String((e as Error).message).split('\n')[0] ?? '';
      return fail(`The target did not answer within RSF_REQUEST_TIMEOUT_MS=${config.requestTimeoutMs}: ${first}\n  Check RSF_TARGET_URL, and that the server is up.`);
    }
    const status = response.status();
    const text = await response.text();
    const body = redact(text).slice(0, 500);
    if (status >= 300 && status < 400) fail(`HTTP ${status} redirects to ${response.headers().location ?? '(no location)'}. Set RSF_TARGET_URL to the final base URL.`);
    if (status === 404) fail('HTTP 404: there is no /v1/prices here. RSF_TARGET_URL must be the base URL that /v1 follows (§9).');
    if (status === 401 || status === 403) fail(`HTTP ${status}: the target refused RSF_BEARER_TOKEN. Set a valid access token (§5).`);
    if (/^\s*</.test(body)) fail(`HTTP ${status} with markup (${response.headers()['content-type'] ?? 'no content type'}), not JSON: this does not look like the Reseller Storefront API.`);
    if (status >= 500) fail(`HTTP ${status}: the target is failing. Body: ${body}`);
    // Errors may come with HTTP 200 (§7.3): a refused token then shows only in the body.
    const parsed = parseBody(text, response.headers()['content-type'] ?? '');
    if (!(parsed.kind === 'json' && Array.isArray(parsed.value))) fail(`HTTP ${status}, but not the price list of §4.9: ${body || '(empty body)'}\n  Does the target accept RSF_BEARER_TOKEN?`);
  } finally {
    await context.dispose();
  }
}
