// Answers as the judge sees them, made up in-process: no request is sent, no target runs.
import type { Check } from '../../../src/checks/checks';
import { loadConfig } from '../../../src/config/config';
import { type Credentials, type Exchange, exchangeOf } from '../../../src/http/exchange';
import type { Operation } from '../../../src/model/operations';

/** RSF_MAX_RESPONSE_BYTES' default. */
export const CAP = 4 * 1024 * 1024;

/** `operation`'s exchange answered `status` with the JSON `body`, as the judge sees it (no request is sent). */
export function answered(
  operation: Operation,
  status: number,
  body: string | Buffer,
  credentials: Credentials = 'valid',
  contentType = 'application/json',
  headers: Record<string, string> = {},
): Exchange {
  const request = { method: operation.method, url: `http://127.0.0.1/v1${operation.path}`, headers: {} };
  const bytes = Buffer.from(body);
  const response = {
    status,
    headers: { 'content-type': contentType, ...headers },
    body: bytes,
    sizeBytes: bytes.length,
    truncated: false,
    durationMs: 1,
  };
  return exchangeOf(operation, credentials, request, response, [], CAP);
}

/** What `check`'s first assertion makes of `exchange`: nothing (passed), not applicable, or what it threw. */
export async function judgement(check: Check, exchange: Exchange): Promise<unknown> {
  try {
    return await check.assertions[0]?.judge(exchange, { config: loadConfig() });
  } catch (e) {
    return e;
  }
}
