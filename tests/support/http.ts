// Every request of the suite goes through here: credentials, time-out, rate limit, circuit breaker, redaction.
import type { APIRequestContext } from '@playwright/test';
import { type Config, secretSettings } from './config';
import { OPERATIONS, type Operation, type OperationName, fillPath, operationLabel } from './operations';
import { redact, replaceSecret } from './redact';
import type { ExchangeRecord } from './check-protocol';

/** How the request authenticates: the valid token, nothing, or one of the ways §5.4 says must not be accepted. */
export type Credentials = 'valid' | 'none' | 'unknown-token' | 'non-bearer' | 'empty-bearer';

export type ParsedBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'text'; value: string }
  | { kind: 'empty' };

export interface Exchange {
  operation: Operation;
  credentials: Credentials;
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  status: number;
  contentType: string;
  text: string;
  body: ParsedBody;
  durationMs: number;
}

export interface SendOptions {
  params?: Record<string, string | number>;
  query?: string;
  credentials?: Credentials;
  /** A JSON value, sent as application/json. */
  json?: unknown;
  /** Raw bytes with their own content type, e.g. malformed JSON. */
  raw?: { text: string; contentType: string };
}

/** The target gave no HTTP answer. Its message is redacted and names the operation. */
export class TargetError extends Error {
  override name = 'TargetError';
}

const BREAKER_THRESHOLD = 3;

/** Shared by every test of a worker: pacing and the circuit breaker must see all requests. */
export class Transport {
  private nextSlot = 0;
  private consecutiveFailures = 0;
  private readonly intervalMs: number;

  constructor(readonly config: Config, readonly apiBase: string, workers: number) {
    const rate = config.maxRequestsPerSecond;
    this.intervalMs = rate > 0 ? (1000 * Math.max(1, workers)) / rate : 0;
  }

  async pace(): Promise<void> {
    if (this.intervalMs === 0) return;
    const now = Date.now();
    const wait = this.nextSlot - now;
    this.nextSlot = Math.max(now, this.nextSlot) + this.intervalMs;
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }

  get open(): boolean {
    return this.consecutiveFailures >= BREAKER_THRESHOLD;
  }

  record(ok: boolean): void {
    this.consecutiveFailures = ok ? 0 : this.consecutiveFailures + 1;
  }
}

export function authorizationHeader(credentials: Credentials, config: Config): string | undefined {
  switch (credentials) {
    case 'valid': return `Bearer ${config.bearerToken}`;
    case 'none': return undefined;
    case 'unknown-token': return `Bearer ${config.invalidBearerToken}`;
    case 'non-bearer': return `Token ${config.bearerToken}`;
    case 'empty-bearer': return 'Bearer ';
  }
}

/**
 * The body as JSON, or as text. Under a text/* content type only an object or an array counts as (mislabelled)
 * JSON: a plain-string body such as 200 or true must stay the string it is (§7.1).
 */
export function parseBody(text: string, contentType = ''): ParsedBody {
  if (text.trim() === '') return { kind: 'empty' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'text', value: text };
  }
  const structured = typeof value === 'object' && value !== null;
  return /^text\//i.test(contentType) && !structured ? { kind: 'text', value: text } : { kind: 'json', value };
}

/** The body as a "plain string" (§7.1): a JSON string, or raw text. */
export function plainString(body: ParsedBody): string | undefined {
  if (body.kind === 'text') return body.value;
  if (body.kind === 'json' && typeof body.value === 'string') return body.value;
  return undefined;
}

/** The parsed JSON body, or undefined when the body is empty or not JSON. */
export function jsonBody(exchange: Exchange): unknown {
  return exchange.body.kind === 'json' ? exchange.body.value : undefined;
}

/** The value handed to a JSON Schema: the parsed JSON, the raw text, or undefined for no body. */
export function schemaInput(body: ParsedBody): unknown {
  return body.kind === 'empty' ? undefined : body.value;
}

/** One client per test; it records the test's exchanges so that failures can show them. */
export class ApiClient {
  readonly exchanges: Exchange[] = [];

  constructor(private readonly request: APIRequestContext, private readonly transport: Transport) {}

  get config(): Config {
    return this.transport.config;
  }

  /** Sends operation `name` of §4, e.g. api.call('listPrices'). */
  call(name: OperationName, options: SendOptions = {}): Promise<Exchange> {
    return this.send(OPERATIONS[name], options);
  }

  async send(operation: Operation, options: SendOptions = {}): Promise<Exchange> {
    const credentials = options.credentials ?? (operation.auth === 'bearer' ? 'valid' : 'none');
    const path = fillPath(operation.path, options.params ?? {});
    const url = `${this.transport.apiBase}${path}${options.query ? `?${options.query}` : ''}`;
    const headers: Record<string, string> = { Accept: 'application/json' };
    const authorization = authorizationHeader(credentials, this.config);
    if (authorization !== undefined) headers.Authorization = authorization;
    let body: string | undefined;
    if (options.raw) {
      body = options.raw.text;
      headers['Content-Type'] = options.raw.contentType;
    } else if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['Content-Type'] = 'application/json';
    }
    const request = { method: operation.method, url, headers, body };

    if (this.transport.open) {
      throw new TargetError(`${operationLabel(operation)}: not sent, because the target gave no answer to ${BREAKER_THRESHOLD} requests in a row. Check that it is up (RSF_TARGET_URL) and RSF_REQUEST_TIMEOUT_MS.`);
    }
    await this.transport.pace();
    const started = Date.now();
    try {
      const response = await this.request.fetch(url, {
        method: operation.method,
        headers,
        // A Buffer goes out byte for byte; a string with a JSON content type would be re-encoded if it did not parse.
        data: body === undefined ? undefined : Buffer.from(body),
        timeout: this.config.requestTimeoutMs,
        failOnStatusCode: false,
        maxRedirects: 0,
      });
      const text = await response.text();
      this.transport.record(true);
      const contentType = response.headers()['content-type'] ?? '';
      const exchange: Exchange = {
        operation, credentials, request,
        status: response.status(),
        contentType,
        text,
        body: parseBody(text, contentType),
        durationMs: Date.now() - started,
      };
      this.exchanges.push(exchange);
      return exchange;
    } catch (e) {
      this.transport.record(false);
      // Playwright's message carries the URL and a call log with headers: keep only its first line, redacted.
      const firstLine = String((e as Error).message ?? e).split('\n')[0] ?? '';
      throw new TargetError(redact(`${operationLabel(operation)}: no answer from ${url} within ${this.config.requestTimeoutMs} ms: ${firstLine}`));
    }
  }
}

/** Secrets shown as the environment variables that hold them ($RSF_BEARER_TOKEN…), so that a curl line still runs. */
export function withPlaceholders(text: string, config: Config): string {
  let out = text;
  for (const { name, value } of secretSettings(config)) out = replaceSecret(out, value, `$${name}`);
  return redact(out);
}

const shellQuote = (s: string): string => `"${s.replace(/(["\\`])/g, '\\$1')}"`;

export function curlOf(exchange: Exchange, config: Config): string {
  const { method, url, headers, body } = exchange.request;
  const parts = [`curl -sS -X ${method}`, shellQuote(withPlaceholders(url, config))];
  for (const [name, value] of Object.entries(headers)) parts.push(`-H ${shellQuote(withPlaceholders(`${name}: ${value}`, config))}`);
  if (body !== undefined) parts.push(`--data-raw ${shellQuote(withPlaceholders(body, config))}`);
  return parts.join(' ');
}

const EXCERPT = 2000;

export function excerpt(text: string, max = EXCERPT): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** A redacted, human-readable account of an exchange for failure messages. */
export function describeExchange(exchange: Exchange, config: Config): string {
  const { method, url, headers, body } = exchange.request;
  const shownHeaders = Object.entries(headers).map(([k, v]) => `    ${k}: ${v}`).join('\n');
  return withPlaceholders([
    `  request:  ${method} ${url}  [credentials: ${exchange.credentials}]`,
    shownHeaders,
    body !== undefined ? `    body: ${excerpt(withPlaceholders(body, config), 1000)}` : '    (no body)',
    `  response: HTTP ${exchange.status}  content-type: ${exchange.contentType || '(none)'}  (${exchange.durationMs} ms)`,
    // Redacted before it is cut, so that a secret across the cut cannot leave half of itself.
    `    body: ${exchange.text === '' ? '(empty)' : excerpt(redact(exchange.text))}`,
    `  reproduce: ${curlOf(exchange, config)}`,
  ].join('\n'), config);
}

/** The redacted record of an exchange that goes into evidence attachments. */
export function recordOf(exchange: Exchange, config: Config): ExchangeRecord {
  const { method, url, headers, body } = exchange.request;
  return {
    request: {
      method,
      url: withPlaceholders(url, config),
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, withPlaceholders(v, config)])),
      ...(body !== undefined ? { body: excerpt(withPlaceholders(body, config), 4000) } : {}),
    },
    response: { status: exchange.status, contentType: exchange.contentType, bodyExcerpt: excerpt(redact(exchange.text)) },
    curl: curlOf(exchange, config),
  };
}
