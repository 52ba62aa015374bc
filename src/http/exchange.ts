// What an HTTP exchange is, as the checks see it, and how its body is read: data and pure functions, no I/O.
import type { IncomingHttpHeaders } from 'node:http';
import type { Operation } from '../model/operations';
import { printableLine } from '../model/printable';
import type { Credentials, SendOptions } from '../model/send-options';

export type { Credentials, SendOptions };

export type ParsedBody = { kind: 'json'; value: unknown } | { kind: 'text'; value: string } | { kind: 'empty' };

/**
 * A throttled answer, or a gateway blip (`transient`: retry.ts, isGatewayError), that was retried: its
 * status, the Retry-After it carried, and how long we waited after it.
 */
export interface ThrottledAttempt {
  status: number;
  retryAfter?: string;
  waitedMs: number;
  transient?: true;
}

export interface OutgoingRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The operation's label ("operation 8 (GET /v1/item/{id}, §4.8)"): the breaker counts time-outs per operation. */
  operation?: string;
}

/** An HTTP answer as the wire (wire.ts) read it. */
export interface WireResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body, decompressed, up to maxBodyBytes. */
  body: Buffer;
  /** Decompressed bytes read, or the size the target announced when it was larger than the cap. */
  sizeBytes: number;
  /** The body was larger than maxBodyBytes and was not read to its end. */
  truncated: boolean;
  /** The size of a truncated body, when the target announced it (Content-Length, uncompressed). */
  announcedBytes?: number;
  durationMs: number;
  /** The status line's version and reason phrase, as the target sent them ("1.0", "OK"): for the recording. */
  httpVersion?: string;
  statusText?: string;
}

export interface Exchange {
  operation: Operation;
  credentials: Credentials;
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  status: number;
  contentType: string;
  /**
   * The body read, decoded as fetch() and browsers decode UTF-8: invalid bytes become U+FFFD, and a leading byte order
   * mark is dropped. For judging; excerpts are made from rawBody.
   */
  text: string;
  /** The parsed body; for a body larger than the cap, a text saying so (it was not read whole). */
  body: ParsedBody;
  durationMs: number;
  /** The body's bytes as read, decompressed, up to RSF_MAX_RESPONSE_BYTES. */
  rawBody: Buffer;
  /** Decompressed size of the body read, or the size the target announced when it was larger than the cap. */
  sizeBytes: number;
  /**
   * Set when the body was larger than RSF_MAX_RESPONSE_BYTES: only its first limitBytes were read. announcedBytes is
   * its size when the target said it (Content-Length).
   */
  truncated?: { limitBytes: number; announcedBytes?: number };
  /** The retried answers (throttled, or transient gateway blips) before this one, in order; empty for most. */
  attempts: ThrottledAttempt[];
  /**
   * The authentication challenge the answer carried, as sent: WWW-Authenticate (RFC 9110 §11.6.1), or a 407's
   * Proxy-Authenticate. It says what a refusal asks for, and an OAuth server says there why it refused a token
   * (RFC 6750 §3), often with an empty body.
   */
  challenge?: string;
  /** Where a redirect (3xx) sends the request: its Location, as sent. */
  location?: string;
  /**
   * The headers that say a cache in front of the API answered, not the API for this request: Age (RFC 9111 §5.1), and
   * a cache's status that says it hit (Cache-Status, RFC 9211; CF-Cache-Status, X-Cache…), as sent.
   */
  fromCache?: string;
}

/** Caches' own status headers, whose value says "hit" when the cache answered. */
const CACHE_STATUS_HEADERS = ['cache-status', 'cf-cache-status', 'x-cache', 'x-cache-status', 'x-proxy-cache'];

/** `fromCache` of an answer: its Age, and the cache status headers that say hit; undefined when none does. */
function cacheHeaders(response: WireResponse): string | undefined {
  const found = CACHE_STATUS_HEADERS.flatMap((name) => {
    const value = headerValue(response, name);
    return value !== undefined && /\bhit\b/i.test(value) ? [`${name}: ${value}`] : [];
  });
  const age = headerValue(response, 'age');
  if (age !== undefined) found.unshift(`age: ${age}`);
  // What the API said of caching it, when the cache kept it all the same (a rule that overrides the origin's).
  const control = headerValue(response, 'cache-control');
  if (found.length > 0 && control !== undefined && /\b(no-store|private)\b/i.test(control))
    found.push(`cache-control: ${control}`);
  return found.length > 0 ? found.join('; ') : undefined;
}

/**
 * HTTP 403 with a web page, where the API answers JSON or plain strings: what a firewall in front of it sends when
 * one of its rules (against markup or quotes in a request, say) refuses a request. No answer of the API's to judge.
 */
export function blockedInFront(exchange: Exchange): boolean {
  if (exchange.status !== 403) return false;
  // JSON labelled text/html is the API's body with a wrong label, which GEN-ERROR-CONTENT-TYPE judges: no page.
  return /^\s*</.test(exchange.text) || (/^text\/html\b/i.test(exchange.contentType) && exchange.body.kind !== 'json');
}

/** A whole HTML document: a doctype or an html element first, after any comments. */
const HTML_DOCUMENT = /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html)[\s>]/i;

/**
 * A success status with a whole HTML document, where the API answers JSON or plain strings: a maintenance or sign-in
 * page that a gateway or web server in front of the API serves with 200. No answer of the API's to judge; a body that
 * only holds markup (a plain string with a tag in it) is no document, and is judged.
 */
export function pageInFront(exchange: Exchange): boolean {
  return exchange.status >= 200 && exchange.status < 300 && isHtmlDocument(exchange);
}

/** Whether the body is a whole HTML document (HTML_DOCUMENT), where the API answers JSON or plain strings. */
export function isHtmlDocument(exchange: Pick<Exchange, 'text'>): boolean {
  return HTML_DOCUMENT.test(exchange.text);
}

/**
 * A redirect to another host (a sign-in page, say): what a gateway or single sign-on in front of the API answers a
 * request it will not let through, such as one without credentials. No answer of the API's to judge.
 */
export function redirectedAway(exchange: Exchange): boolean {
  if (exchange.status < 300 || exchange.status >= 400 || exchange.location === undefined) return false;
  try {
    const from = new URL(exchange.request.url);
    return !sameHost(new URL(exchange.location, from), from);
  } catch {
    return false; // a Location that is no URL: the API's own answer, to judge
  }
}

/** This machine's names for itself: an app that builds its URLs from a configured name says localhost. */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);
const portOf = (url: URL): string => url.port || (url.protocol === 'https:' ? '443' : '80');

/** One host and port, also when one URL names this machine as localhost and the other as 127.0.0.1 or [::1]. */
function sameHost(a: URL, b: URL): boolean {
  if (a.host === b.host) return true;
  const loopback = (url: URL) => LOOPBACK_NAMES.has(url.hostname.toLowerCase());
  return loopback(a) && loopback(b) && portOf(a) === portOf(b);
}

export function headerValue(response: WireResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Why `text` is not JSON, in JSON.parse's words ("Bad control character in string literal … at position 2"), made
 * printable: they quote the text, which may hold any byte.
 */
export function jsonSyntaxError(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (e) {
    return printableLine((e as Error).message, 200);
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

/** application/json, or a JSON-based type such as application/problem+json, with or without parameters. */
export const JSON_MEDIA_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

/**
 * The value of parameter `name` of a media type, as RFC 9110 §5.6.6 writes parameters: a token, or a quoted string
 * whose quoted pairs stand for the character after the backslash (`charset="utf\-8"` is utf-8). Names are matched in
 * any case (§8.3.1); undefined when the parameter is absent.
 */
export function mediaTypeParameter(contentType: string, name: string): string | undefined {
  const parameter = /;\s*([!#$%&'*+.^_`|~\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/g;
  for (const [, key, quoted, token] of contentType.matchAll(parameter))
    if (key?.toLowerCase() === name.toLowerCase()) return quoted === undefined ? token : quoted.replace(/\\(.)/g, '$1');
  return undefined;
}

/**
 * Why a text body that was meant as JSON (so labelled, or opening as an object or array) is not JSON, in JSON.parse's
 * words; undefined for any other body.
 */
export function notJsonBecause(exchange: Pick<Exchange, 'body' | 'contentType'>): string | undefined {
  if (exchange.body.kind !== 'text') return undefined;
  if (!JSON_MEDIA_TYPE.test(exchange.contentType) && !/^\s*[[{]/.test(exchange.body.value)) return undefined;
  return jsonSyntaxError(exchange.body.value);
}

/** The body as a "plain string" (§7.1): a JSON string, or raw text. */
export function plainString(body: ParsedBody): string | undefined {
  if (body.kind === 'text') return body.value;
  if (body.kind === 'json' && typeof body.value === 'string') return body.value;
  return undefined;
}

/** The decimal digits of the integer a JSON number writes (1.58e+18: 1580000000000000000), exactly; else undefined. */
export function integerDigits(number: string): string | undefined {
  const parts = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(number);
  if (!parts) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = parts;
  const shift = Number(exponent) - fraction.length;
  if (Math.abs(shift) > 400 || whole.length + fraction.length > 400) return undefined; // beyond any double: no id
  const digits = BigInt(whole + fraction);
  if (shift >= 0) return `${sign}${digits * 10n ** BigInt(shift)}`;
  const divisor = 10n ** BigInt(-shift);
  return digits % divisor === 0n ? `${sign}${digits / divisor}` : undefined;
}

/** The parsed JSON body, or undefined when the body is empty or not JSON. */
export function jsonBody(exchange: Exchange): unknown {
  return exchange.body.kind === 'json' ? exchange.body.value : undefined;
}

/** The value handed to a JSON Schema: the parsed JSON, the raw text, or undefined for no body. */
export function schemaInput(body: ParsedBody): unknown {
  return body.kind === 'empty' ? undefined : body.value;
}

/** What a body larger than the cap is judged as: not the operation's body, and saying why. */
export function tooLargeMessage(limitBytes: number): string {
  const limit = `${limitBytes} bytes`;
  return `response larger than ${limit} (RSF_MAX_RESPONSE_BYTES): only its first ${limit} were read`;
}

/** WHATWG's UTF-8 decode, which fetch() uses: a leading BOM is not part of the text (the spec says nothing of it). */
const UTF8 = new TextDecoder('utf-8');

/** An answer as the checks see it. */
export function exchangeOf(
  operation: Operation,
  credentials: Credentials,
  request: OutgoingRequest,
  response: WireResponse,
  attempts: ThrottledAttempt[],
  limitBytes: number,
): Exchange {
  const contentType = headerValue(response, 'content-type') ?? '';
  const challenge = headerValue(response, response.status === 407 ? 'proxy-authenticate' : 'www-authenticate');
  const location = response.status >= 300 && response.status < 400 ? headerValue(response, 'location') : undefined;
  const fromCache = cacheHeaders(response);
  const text = UTF8.decode(response.body);
  const { announcedBytes } = response;
  const truncated = response.truncated
    ? { limitBytes, ...(announcedBytes !== undefined && { announcedBytes }) }
    : undefined;
  return {
    operation,
    credentials,
    request,
    status: response.status,
    contentType,
    text,
    body: truncated ? { kind: 'text', value: tooLargeMessage(limitBytes) } : parseBody(text, contentType),
    durationMs: response.durationMs,
    rawBody: response.body,
    sizeBytes: response.sizeBytes,
    ...(truncated && { truncated }),
    attempts,
    ...(challenge !== undefined && { challenge }),
    ...(location !== undefined && { location }),
    ...(fromCache !== undefined && { fromCache }),
  };
}
