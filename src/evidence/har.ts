// The run's exchanges as an HTTP Archive (HAR 1.2), and back (issue 24, items 1 and 2). One neutral record per
// exchange, retries and throttled answers included: this module knows nothing of the transport, which maps its own
// exchanges onto ExchangeRecord. Redaction is the caller's function, so the HAR hides what every other report hides.
import { isObject } from '../model/operations';
import type { Content, Entry, Har, Header, Log, QueryString } from 'har-format';
import type { BreakerTrip } from '../http/run-state';
import { printableLine } from '../model/printable';
import { REDACTED, withoutByteOrderMark } from '../model/text';

/** The recording's file name, in reports/ and in a bundle. */
export const HAR_FILE = 'exchanges.har';

/** Why this attempt was sent: the first send of a request, or a send again after a throttled answer (429, 503). */
export type AttemptKind = 'first' | 'throttled-retry';

/** Header names are kept as sent; a repeated header has several values. */
export type HeaderMap = Readonly<Record<string, string | readonly string[]>>;

/** One exchange with the target, as the transport saw it. */
export interface ExchangeRecord {
  method: string;
  /** Absolute URL, as sent (secrets in it are redacted when the HAR is built). */
  url: string;
  requestHeaders: HeaderMap;
  /** The request body as sent; absent when there was none. */
  requestBody?: string;
  /** HTTP status; 0 when no answer came (then `error` says why). */
  status: number;
  /** The status line's reason phrase and version (HTTP/1.0), as the target sent them; none without an answer. */
  statusText?: string;
  httpVersion?: string;
  responseHeaders: HeaderMap;
  /** The body's bytes as read, decompressed. */
  responseBody: Uint8Array;
  /** Set when the body was cut: only its first limitBytes are kept (RSF_MAX_RESPONSE_BYTES). */
  truncated?: { limitBytes: number; announcedBytes?: number };
  /** When the request left, ISO 8601. */
  startedAt: string;
  durationMs: number;
  /** 1 for the first send of a request, 2 for its first retry, and so on. */
  attempt: number;
  attemptKind: AttemptKind;
  /** Why no answer came (a time-out, a reset connection); only with status 0. */
  error?: string;
  /** The test whose checks judged the exchange. */
  test?: { id?: string; title: string };
  /** The requirement IDs those checks assert. */
  requirements: readonly string[];
  /** How the request authenticated (valid, none, unknown-token…): redacted tokens read alike, a replay must not. */
  credentials?: string;
}

/** The `_rsf` field of the log: what the whole recording shares. */
export interface HarLogExtension {
  format: 'rsf-har/1';
  suiteVersion: string;
  /** The run's fast-check seed (RSF_FC_SEED, or the one drawn): a replay draws the same inputs. */
  seed: string;
  /** The target as the reports show it. */
  target?: string;
  /** What a replay needs to send what the run sent (RSF_TARGET_URL=har:PATH). */
  replay?: ReplaySettings;
}

/** The run's settings that decide which requests it sends, besides the seed: a replay takes them over. */
export interface ReplaySettings {
  /** The URL operation paths were appended to (redacted): recorded URLs are matched relative to it. */
  apiBase: string;
  fcNumRuns: number;
  writesEnabled: boolean;
  /** The run's nonce (run-state.ts, runNonce): some requests carry it, e.g. a channel message of this run only. */
  runNonce?: string;
  /** Set when the run's circuit breaker opened: the tests that sent nothing after it are "not run" in a replay too. */
  breaker?: BreakerTrip;
  /** Why the run stopped before its first test (a failed preflight): a replay stops alike, and runs no test either. */
  stoppedBeforeTests?: string;
  /**
   * Why the run stopped sending once the target refused its requests (the token stopped being accepted, or every
   * request was refused before the API): the tests that sent nothing after it are "not run" in a replay too.
   */
  refused?: string;
  /**
   * The raw values of the settings that decided what the run sent and how it judged (config.ts, REPLAYED_SETTINGS):
   * its test data, for one, which a replay on another machine must send again to find the recorded exchanges.
   */
  settings?: Record<string, string>;
}

/** The `_rsf` field of an entry. */
export interface HarEntryExtension {
  test?: { id?: string; title: string };
  requirements: string[];
  seed: string;
  attempt: number;
  attemptKind: AttemptKind;
  /** The answer asked to be sent again later (429, or 503 with Retry-After). */
  throttled: boolean;
  error?: string;
  credentials?: string;
  /** Present when the response body stored is not the whole body. */
  responseBodyCut?: { limitBytes: number; announcedBytes?: number };
  /** Response headers whose values were recorded cut (MAX_HEADER_VALUE_CHARS), by name. */
  responseHeadersCut?: string[];
}

export type RsfHarLog = Log & { _rsf: HarLogExtension };
export type RsfHar = Har & { log: RsfHarLog };

export interface HarOptions {
  /** Name and version of the suite: the log's creator. */
  creator: { name: string; version: string };
  seed: string;
  target?: string;
  replay?: ReplaySettings;
  /** Applied to the URL, every header value and every body: the redactor of the other reports. */
  redact: (text: string) => string;
  /** Response bodies are stored up to this many bytes (RSF_MAX_RESPONSE_BYTES); a longer one is cut, and says so. */
  maxBodyBytes: number;
}

/** A HAR that cannot be used, with a one-line reason. */
export class HarError extends Error {
  override name = 'HarError';
}

const headerValues = (value: string | readonly string[]): readonly string[] =>
  typeof value === 'string' ? [value] : value;

/** Headers by which a target sets a cookie. */
const SET_COOKIE = new Set(['set-cookie', 'set-cookie2']);

/**
 * A cookie the target sets (an SSO gateway's session, a load balancer's) is a credential to the target, and the
 * recording is evidence that is handed over: its name and attributes are kept, its value is not.
 */
function maskedSetCookie(value: string): string {
  const end = value.indexOf(';');
  const pair = end === -1 ? value : value.slice(0, end);
  const nameEnd = pair.indexOf('=');
  // A pair without "=" is a value alone (RFC 6265 §5.2, as browsers read it).
  const name = nameEnd === -1 ? '' : pair.slice(0, nameEnd + 1);
  return `${name}${REDACTED}${end === -1 ? '' : value.slice(end)}`;
}

/**
 * A response header's value is recorded up to this many characters: a target that sent 200 KB of
 * Content-Security-Policy with every answer made a recording of 106 MB (the wire reads headers up to 256 KiB, as curl
 * does). What is left out says how much it was.
 */
export const MAX_HEADER_VALUE_CHARS = 8192;
/** The headers the checks read, and so a replay and a re-grade: recorded whole, whatever their size. */
const JUDGED_HEADERS = new Set(['content-type', 'content-length', 'content-encoding', 'retry-after']);

/** `value`, cut after MAX_HEADER_VALUE_CHARS unless the checks read it: redacted first, so no secret is cut in two. */
function recordedValue(name: string, value: string): { value: string; cut: boolean } {
  if (value.length <= MAX_HEADER_VALUE_CHARS || JUDGED_HEADERS.has(name.toLowerCase())) return { value, cut: false };
  const left = `… (${value.length} characters in all; the recording keeps ${MAX_HEADER_VALUE_CHARS})`;
  return { value: `${value.slice(0, MAX_HEADER_VALUE_CHARS)}${left}`, cut: true };
}

/** The HAR's headers, redacted; the names of those whose value was cut go in `cut`. */
function headerList(headers: HeaderMap, redact: (text: string) => string, cut: string[] = []): Header[] {
  return Object.entries(headers).flatMap(([name, value]) =>
    headerValues(value).map((v) => {
      const recorded = recordedValue(name, redact(SET_COOKIE.has(name.toLowerCase()) ? maskedSetCookie(v) : v));
      if (recorded.cut && !cut.includes(name)) cut.push(name);
      return { name, value: recorded.value };
    }),
  );
}

function headerValue(headers: HeaderMap, name: string): string | undefined {
  const found = Object.entries(headers).find(([n]) => n.toLowerCase() === name);
  return found ? headerValues(found[1])[0] : undefined;
}

/** 429, or 503 with Retry-After: the answers the transport sends again (docs/running.md, "Gateways, …"). */
function isThrottled(r: ExchangeRecord): boolean {
  return r.status === 429 || (r.status === 503 && headerValue(r.responseHeaders, 'retry-after') !== undefined);
}

// ignoreBOM keeps a leading byte order mark in the text: it is part of what the target sent (GEN-JSON-UTF8 judges it),
// and a replay must read the same bytes.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A body as HAR content text: UTF-8 text as it is, anything else base64 (HAR 1.2 `content.encoding`). Both are
 * redacted on their bytes' text, so a token inside a binary body is hidden too ("[REDACTED]" is ASCII).
 */
function contentText(body: Uint8Array, redact: (text: string) => string): { text: string; encoding?: 'base64' } {
  try {
    return { text: redact(utf8.decode(body)) };
  } catch {
    const latin1 = redact(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1'));
    return { text: Buffer.from(latin1, 'latin1').toString('base64'), encoding: 'base64' };
  }
}

function responseContent(
  r: ExchangeRecord,
  options: HarOptions,
): { content: Content; cut?: HarEntryExtension['responseBodyCut'] } {
  const mimeType = headerValue(r.responseHeaders, 'content-type') ?? 'x-unknown';
  const ours = r.responseBody.byteLength > options.maxBodyBytes;
  const body = ours ? r.responseBody.subarray(0, options.maxBodyBytes) : r.responseBody;
  const cut = ours
    ? { limitBytes: options.maxBodyBytes, announcedBytes: r.truncated?.announcedBytes ?? r.responseBody.byteLength }
    : r.truncated;
  const text = body.byteLength > 0 ? contentText(body, options.redact) : undefined;
  const content: Content = {
    size: r.responseBody.byteLength,
    mimeType,
    ...(text && { text: text.text }),
    ...(text?.encoding && { encoding: text.encoding }),
    ...(cut && {
      comment:
        `body cut at ${cut.limitBytes} bytes (RSF_MAX_RESPONSE_BYTES)` +
        (cut.announcedBytes !== undefined ? `; ${cut.announcedBytes} bytes in all` : ''),
    }),
  };
  return { content, ...(cut && { cut: { ...cut } }) };
}

/** One record as a HAR entry, redacted. Workers may build entries one at a time and the log gathers them. */
export function toHarEntry(r: ExchangeRecord, options: HarOptions): Entry {
  const redact = options.redact;
  const url = redact(r.url);
  // Parsing a URL costs more than the rest of the entry; most have no query.
  const queryString: QueryString[] = url.includes('?')
    ? [...new URL(url).searchParams].map(([name, value]) => ({ name, value }))
    : [];
  const requestType = headerValue(r.requestHeaders, 'content-type') ?? 'application/octet-stream';
  const { content, cut } = responseContent(r, options);
  const headersCut: string[] = [];
  const responseHeaders = headerList(r.responseHeaders, redact, headersCut);
  const extension: HarEntryExtension = {
    ...(r.test && { test: { ...(r.test.id !== undefined && { id: r.test.id }), title: redact(r.test.title) } }),
    requirements: [...r.requirements],
    seed: options.seed,
    attempt: r.attempt,
    attemptKind: r.attemptKind,
    throttled: isThrottled(r),
    ...(r.error !== undefined && { error: redact(r.error) }),
    ...(r.credentials !== undefined && { credentials: r.credentials }),
    ...(cut && { responseBodyCut: cut }),
    ...(headersCut.length > 0 && { responseHeadersCut: headersCut }),
  };
  return {
    startedDateTime: r.startedAt,
    time: r.durationMs,
    request: {
      method: r.method,
      url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headerList(r.requestHeaders, redact),
      queryString,
      ...(r.requestBody !== undefined && { postData: { mimeType: requestType, text: redact(r.requestBody) } }),
      headersSize: -1,
      bodySize: r.requestBody === undefined ? 0 : Buffer.byteLength(r.requestBody),
    },
    response: {
      status: r.status,
      statusText: redact(r.statusText ?? ''),
      // The suite speaks HTTP/1.1; a target may answer in HTTP/1.0.
      httpVersion: r.httpVersion ?? 'HTTP/1.1',
      cookies: [],
      headers: responseHeaders,
      content,
      redirectURL: '',
      headersSize: -1,
      bodySize: r.status === 0 ? -1 : r.responseBody.byteLength,
    },
    cache: {},
    // The transport measures the whole exchange, one deadline; HAR's phases are not known apart.
    timings: { send: 0, wait: r.durationMs, receive: 0 },
    _rsf: extension,
  };
}

/** A HAR 1.2 log of the records, in the order given (the order they were sent). */
export function buildHar(records: readonly ExchangeRecord[], options: HarOptions): RsfHar {
  return harOfEntries(
    records.map((r) => toHarEntry(r, options)),
    options,
  );
}

/** The log around entries built one at a time by toHarEntry. */
export function harOfEntries(entries: Entry[], options: Omit<HarOptions, 'redact' | 'maxBodyBytes'>): RsfHar {
  return {
    log: {
      version: '1.2',
      creator: { name: options.creator.name, version: options.creator.version },
      entries,
      _rsf: {
        format: 'rsf-har/1',
        suiteVersion: options.creator.version,
        seed: options.seed,
        ...(options.target !== undefined && { target: options.target }),
        ...(options.replay && { replay: options.replay }),
      },
    },
  };
}

// Reading a HAR back: every field the records need is checked, so that a damaged file is refused with one line
// rather than failing somewhere inside a replay.

function need<T>(ok: boolean, value: unknown, where: string, what: string): T {
  if (!ok) throw new HarError(`${where} is not ${what}`);
  return value as T;
}
const str = (v: unknown, where: string) => need<string>(typeof v === 'string', v, where, 'a string');
const num = (v: unknown, where: string) =>
  need<number>(typeof v === 'number' && Number.isFinite(v), v, where, 'a number');
const obj = (v: unknown, where: string) => need<Record<string, unknown>>(isObject(v), v, where, 'an object');
const arr = (v: unknown, where: string) => need<unknown[]>(Array.isArray(v), v, where, 'a list');

function headersOf(value: unknown, where: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  arr(value, where).forEach((h, i) => {
    const header = obj(h, `${where}[${i}]`);
    const name = str(header.name, `${where}[${i}].name`);
    const v = str(header.value, `${where}[${i}].value`);
    const before = out[name];
    out[name] = before === undefined ? v : [...headerValues(before), v];
  });
  return out;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function bodyOf(content: Record<string, unknown>, where: string): Uint8Array {
  if (content.text === undefined) return new Uint8Array(0);
  const text = str(content.text, `${where}.text`);
  if (content.encoding === undefined) return Buffer.from(text, 'utf8');
  if (content.encoding !== 'base64') throw new HarError(`${where}.encoding is neither absent nor "base64"`);
  if (text.length % 4 !== 0 || !BASE64.test(text)) throw new HarError(`${where}.text is not base64`);
  return Buffer.from(text, 'base64');
}

const ATTEMPT_KINDS: readonly AttemptKind[] = ['first', 'throttled-retry'];

function recordOf(value: unknown, i: number): ExchangeRecord {
  const where = `entry ${i + 1}`;
  const entry = obj(value, where);
  const request = obj(entry.request, `${where}: request`);
  const response = obj(entry.response, `${where}: response`);
  const url = str(request.url, `${where}: request.url`);
  if (!URL.canParse(url)) throw new HarError(`${where}: request.url is not an absolute URL`);
  const status = num(response.status, `${where}: response.status`);
  if (!Number.isInteger(status) || status < 0 || status > 999)
    throw new HarError(`${where}: response.status is not an HTTP status`);
  const started = str(entry.startedDateTime, `${where}: startedDateTime`);
  if (Number.isNaN(Date.parse(started))) throw new HarError(`${where}: startedDateTime is not a date`);
  const postData = request.postData === undefined ? undefined : obj(request.postData, `${where}: request.postData`);
  const content = obj(response.content, `${where}: response.content`);
  // A HAR of another tool has no _rsf: it replays, it just names no test.
  const ext = entry._rsf === undefined ? {} : obj(entry._rsf, `${where}: _rsf`);
  const kind = ext.attemptKind ?? 'first';
  if (!ATTEMPT_KINDS.includes(kind as AttemptKind))
    throw new HarError(`${where}: _rsf.attemptKind is not one of ${ATTEMPT_KINDS.join(', ')}`);
  const requirements =
    ext.requirements === undefined
      ? []
      : arr(ext.requirements, `${where}: _rsf.requirements`).map((id, k) =>
          str(id, `${where}: _rsf.requirements[${k}]`),
        );
  const test = ext.test === undefined ? undefined : obj(ext.test, `${where}: _rsf.test`);
  const cut =
    ext.responseBodyCut === undefined ? undefined : obj(ext.responseBodyCut, `${where}: _rsf.responseBodyCut`);
  return {
    method: str(request.method, `${where}: request.method`),
    url,
    requestHeaders: headersOf(request.headers, `${where}: request.headers`),
    ...(postData && { requestBody: str(postData.text ?? '', `${where}: request.postData.text`) }),
    status,
    statusText: str(response.statusText ?? '', `${where}: response.statusText`),
    ...(response.httpVersion !== undefined && {
      httpVersion: str(response.httpVersion, `${where}: response.httpVersion`),
    }),
    responseHeaders: headersOf(response.headers, `${where}: response.headers`),
    responseBody: bodyOf(content, `${where}: response.content`),
    ...(cut && {
      truncated: {
        limitBytes: num(cut.limitBytes, `${where}: _rsf.responseBodyCut.limitBytes`),
        ...(cut.announcedBytes !== undefined && {
          announcedBytes: num(cut.announcedBytes, `${where}: _rsf.responseBodyCut.announcedBytes`),
        }),
      },
    }),
    startedAt: started,
    durationMs: num(entry.time, `${where}: time`),
    attempt: ext.attempt === undefined ? 1 : num(ext.attempt, `${where}: _rsf.attempt`),
    attemptKind: kind as AttemptKind,
    ...(ext.error !== undefined && { error: str(ext.error, `${where}: _rsf.error`) }),
    ...(ext.credentials !== undefined && { credentials: str(ext.credentials, `${where}: _rsf.credentials`) }),
    ...(test && {
      test: {
        ...(test.id !== undefined && { id: str(test.id, `${where}: _rsf.test.id`) }),
        title: str(test.title, `${where}: _rsf.test.title`),
      },
    }),
    requirements,
  };
}

function replaySettingsOf(value: unknown): ReplaySettings {
  const r = obj(value, 'log._rsf.replay');
  const writes = r.writesEnabled;
  return {
    apiBase: str(r.apiBase, 'log._rsf.replay.apiBase'),
    fcNumRuns: num(r.fcNumRuns, 'log._rsf.replay.fcNumRuns'),
    writesEnabled: need<boolean>(typeof writes === 'boolean', writes, 'log._rsf.replay.writesEnabled', 'a boolean'),
    ...(r.runNonce !== undefined && { runNonce: str(r.runNonce, 'log._rsf.replay.runNonce') }),
    ...(r.breaker !== undefined && { breaker: breakerOf(r.breaker) }),
    ...(r.stoppedBeforeTests !== undefined && {
      stoppedBeforeTests: str(r.stoppedBeforeTests, 'log._rsf.replay.stoppedBeforeTests'),
    }),
    ...(r.refused !== undefined && { refused: str(r.refused, 'log._rsf.replay.refused') }),
    ...(r.settings !== undefined && { settings: stringsOf(r.settings, 'log._rsf.replay.settings') }),
  };
}

function stringsOf(value: unknown, where: string): Record<string, string> {
  const o = obj(value, where);
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, str(v, `${where}.${k}`)]));
}

function breakerOf(value: unknown): BreakerTrip {
  const b = obj(value, 'log._rsf.replay.breaker');
  const cause = b.cause === 'throttled' ? 'throttled' : 'no-answer';
  return {
    since: str(b.since, 'log._rsf.replay.breaker.since'),
    openedAt: str(b.openedAt, 'log._rsf.replay.breaker.openedAt'),
    lastRequest: str(b.lastRequest, 'log._rsf.replay.breaker.lastRequest'),
    cause,
    ...(b.lastProblem !== undefined && { lastProblem: str(b.lastProblem, 'log._rsf.replay.breaker.lastProblem') }),
  };
}

export interface ParsedHar {
  creator: { name: string; version: string };
  /** The log's `_rsf`, when the HAR was written by this suite. */
  rsf?: HarLogExtension;
  records: ExchangeRecord[];
}

/** A HAR read back into records; a text that is not a HAR 1.2 log throws HarError, its message one line. */
export function parseHar(text: string, source = HAR_FILE): ParsedHar {
  let data: unknown;
  try {
    data = JSON.parse(withoutByteOrderMark(text));
  } catch (e) {
    throw new HarError(`${source} is not JSON: ${printableLine((e as Error).message, 200)}`);
  }
  try {
    const log = obj(obj(data, 'the document').log, 'log');
    const version = str(log.version, 'log.version');
    if (version !== '1.2') throw new HarError(`log.version is "${version.slice(0, 20)}", not "1.2"`);
    const creator = obj(log.creator, 'log.creator');
    const rsf = log._rsf === undefined ? undefined : obj(log._rsf, 'log._rsf');
    return {
      creator: { name: str(creator.name, 'log.creator.name'), version: str(creator.version, 'log.creator.version') },
      ...(rsf && {
        rsf: {
          format: 'rsf-har/1',
          suiteVersion: str(rsf.suiteVersion, 'log._rsf.suiteVersion'),
          seed: str(rsf.seed, 'log._rsf.seed'),
          ...(rsf.target !== undefined && { target: str(rsf.target, 'log._rsf.target') }),
          ...(rsf.replay !== undefined && { replay: replaySettingsOf(rsf.replay) }),
        },
      }),
      records: arr(log.entries, 'log.entries').map(recordOf),
    };
  } catch (e) {
    if (e instanceof HarError) throw new HarError(`${source} is not a HAR 1.2 log: ${e.message}`);
    throw e;
  }
}

// Replay (issue 24, item 2): a request finds its recorded answers by what it sends. Headers are left out: the
// recording holds them redacted, so the only one that tells requests apart, Authorization, reads alike in most.

/** What a replayed request sends, as the transport would send it. */
export interface ReplayRequest {
  method: string;
  url: string;
  body?: string;
}

/** Method, path, query and body: the fingerprint of a request in a recording. */
export function requestFingerprint(request: ReplayRequest): string {
  // A path alone (no origin) fingerprints too: the replay need not know the recorded target's host.
  const url = new URL(request.url, 'http://recording.invalid');
  return JSON.stringify([request.method.toUpperCase(), `${url.pathname}${url.search}`, request.body ?? '']);
}

/**
 * The exchanges of a recording by fingerprint. `redact` is applied to a request before it is looked up, so that a
 * request carrying the real channel token in its path finds the entry recorded with the token redacted.
 */
export class Recording {
  private readonly byFingerprint = new Map<string, ExchangeRecord[]>();
  private readonly handedOut = new Map<string, number>();

  constructor(
    readonly records: readonly ExchangeRecord[],
    private readonly redact: (text: string) => string = (text) => text,
  ) {
    for (const r of records) {
      const key = requestFingerprint({
        method: r.method,
        url: r.url,
        ...(r.requestBody !== undefined && { body: r.requestBody }),
      });
      const list = this.byFingerprint.get(key);
      if (list) list.push(r);
      else this.byFingerprint.set(key, [r]);
    }
  }

  private key(request: ReplayRequest): string {
    return requestFingerprint({
      method: request.method,
      url: this.redact(request.url),
      ...(request.body !== undefined && { body: this.redact(request.body) }),
    });
  }

  /** Every recorded exchange of the request, in the order sent (throttled attempts before their retry). */
  find(request: ReplayRequest): readonly ExchangeRecord[] | undefined {
    return this.byFingerprint.get(this.key(request));
  }

  /** The next recorded exchange of the request not handed out yet; undefined when none is left or none matched. */
  take(request: ReplayRequest): ExchangeRecord | undefined {
    const key = this.key(request);
    const taken = this.handedOut.get(key) ?? 0;
    const next = this.byFingerprint.get(key)?.[taken];
    if (next) this.handedOut.set(key, taken + 1);
    return next;
  }
}
