// How an exchange is shown: curl lines, body excerpts, failure accounts, evidence records and the messages of
// requests that could not be judged. Everything here is printable and redacted.
import { sentHeaders } from './client-headers';
import { isUtf8 } from 'node:buffer';
import { type PrintableOptions, printable } from '../model/printable';
import { plural } from '../model/text';
import type { Delivery } from './delivery';
import {
  type Exchange,
  type ThrottledAttempt,
  type WireResponse,
  blockedInFront,
  headerValue,
  isHtmlDocument,
  mediaTypeParameter,
  pageInFront,
  redirectedAway,
} from './exchange';
import { type ProxyRoute, type ProxySettings, proxyAuthenticationAdvice, proxyRoute } from './proxy';
import { redact, redactHolding, replaceSecret } from './redact';
import { BREAKER_THRESHOLD, type BreakerTrip, RESUME_PAUSE_MS } from './run-state';
import type { NoAnswer } from './wire';

/** A throttled answer that was retried (429, or 503 with Retry-After), and how long the suite waited after it. */
export interface AttemptRecord {
  status: number;
  /** The Retry-After header it carried, as sent. */
  retryAfter?: string;
  waitedMs: number;
}

/** The redacted record of an exchange, as evidence carries it. */
export interface ExchangeRecord {
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response: { status: number; contentType: string; bodyExcerpt: string };
  curl: string;
  /** The throttled attempts before the response shown, oldest first; absent or empty when the first was answered. */
  attempts?: AttemptRecord[];
}

/** A secret setting: the variable that holds it, and its value. */
export interface SecretSetting {
  name: string;
  value: string;
}

/** "4 × HTTP 429 (Retry-After: 1)": the throttled answers of a request, counted by status. */
export function throttleSummary(attempts: readonly ThrottledAttempt[], last: WireResponse): string {
  const all = [
    ...attempts.map((a) => ({ status: a.status, retryAfter: a.retryAfter })),
    { status: last.status, retryAfter: headerValue(last, 'retry-after') },
  ];
  const counts = new Map<number, number>();
  for (const a of all) counts.set(a.status, (counts.get(a.status) ?? 0) + 1);
  const statuses = [...counts].map(([status, n]) => `${n} × HTTP ${status}`).join(', ');
  const retryAfter = all.map((a) => a.retryAfter).find((v) => v !== undefined);
  return `${statuses}${retryAfter !== undefined ? `, Retry-After: ${printable(retryAfter, { maxChars: 40 })}` : ''}`;
}

/** The message of a request whose every attempt was throttled. */
export function throttledMessage(label: string, delivery: Extract<Delivery, { kind: 'throttled' }>): string {
  const why =
    delivery.gaveUp === 'time'
      ? "waiting longer would pass the test's time-out"
      : `RSF_MAX_RETRIES=${delivery.attempts.length} retries were spent`;
  // A 503 with Retry-After is a rate limiter's, an overload's or a scheduled maintenance's (RFC 9110 §15.6.4).
  const state =
    delivery.response.status === 503
      ? "A rate limit, an overload or a maintenance window (HTTP 503) is the target's state (§8), not a defect: run " +
        'the suite when it is over, lower RSF_MAX_REQUESTS_PER_SECOND, '
      : "A rate limit is the target's choice (§8), not a defect: lower RSF_MAX_REQUESTS_PER_SECOND, ";
  return redact(
    `every attempt of ${label} was throttled (${throttleSummary(delivery.attempts, delivery.response)}); ${why}. ` +
      `${state}or raise RSF_MAX_RETRIES and RSF_RETRY_MAX_WAIT_MS.`,
  );
}

/** The message of a request whose every attempt a gateway answered with an error (retry.ts, isGatewayError). */
export function unavailableMessage(label: string, delivery: Extract<Delivery, { kind: 'unavailable' }>): string {
  const why = {
    retries: `RSF_MAX_RETRIES=${delivery.attempts.length} retries were spent`,
    time: "waiting longer would pass the test's time-out",
    unsafe: 'a request that may have been carried out is not sent again',
  }[delivery.gaveUp];
  const statuses = throttleSummary(delivery.attempts, delivery.response);
  const answered = `every attempt of ${label} was answered by a gateway's error (${statuses})`;
  // A 503 that lasts may be a rate limiter's refusal, not an outage: said early, since a verdict line cuts the rest.
  if (delivery.response.status === 503)
    return redact(`${answered}: the target was unavailable, or ${RATE_LIMITER_503}; ${why}. Not judged.`);
  if (GATEWAY_TIMEOUTS.has(delivery.response.status))
    return redact(`${answered}; ${why}. ${GATEWAY_TIMED_OUT}: not the API's answer, so not judged.`);
  return redact(
    `${answered}; ${why}. The target, or what stands in front of it, was unavailable: not the API's answer, so not ` +
      'judged.',
  );
}

/**
 * A rate limiter in front of a staging server answers 503 (nginx's limit_req and limit_conn do by default, without
 * Retry-After), and only a slower pace gets the run through it.
 */
const RATE_LIMITER_503 = "a rate limiter refused (nginx's limit_req answers 503; lower RSF_MAX_REQUESTS_PER_SECOND)";

/** A gateway that gave up waiting for the API: HTTP 504, and Cloudflare's 524 (after 100 s). */
const GATEWAY_TIMEOUTS = new Set([504, 524]);

/** What a 504 says (RFC 9110 §15.6.5): the API was slow or silent, for a gateway whose wait is its own setting. */
const GATEWAY_TIMED_OUT =
  'What stands in front of the API gave up waiting for its answer (a gateway time-out, its own setting, such as ' +
  "nginx's proxy_read_timeout): the API answered too slowly for it, or not at all; the spec shows no time-outs (§8)";

/** How the breaker names an unusable request's last answer: a 503 with the rate limiter's hint, a 504 as a wait. */
export function unusableDetail(status: number): string {
  if (status === 503) return `HTTP 503: unavailable, or ${RATE_LIMITER_503}`;
  return GATEWAY_TIMEOUTS.has(status) ? `HTTP ${status}: a gateway gave up waiting for the API` : `HTTP ${status}`;
}

/** The authentication challenge an answer carried (exchange.ts), printable and bounded; '' when it carried none. */
export function challengeShown(exchange: Pick<Exchange, 'challenge'>): string {
  return exchange.challenge ? printable(exchange.challenge, { maxChars: 200, transform: redact }) : '';
}

/**
 * The sentence a message adds for the challenge, ' It says: WWW-Authenticate: ….', or '' without one: an OAuth server
 * says there why it refused a token (RFC 6750 §3), or which scope it lacks, often with an empty body.
 */
export function challengeSaid(exchange: Pick<Exchange, 'challenge'>): string {
  const challenge = challengeShown(exchange);
  return challenge ? ` It says: WWW-Authenticate: ${challenge}.` : '';
}

/**
 * The scheme a refusal asks for when no challenge of it is Bearer, the scheme of §5 (Basic, Negotiate, Digest): what
 * a web server or gateway in front of the API asks for, a password of its own. Undefined when it names Bearer or none.
 */
export function schemeInFront(exchange: Pick<Exchange, 'challenge'>): string | undefined {
  const challenge = exchange.challenge ?? '';
  const scheme = /^\s*([\w!#$%&'*+.^`|~-]+)/.exec(challenge)?.[1];
  if (scheme === undefined || /(^|,)\s*bearer\b/i.test(challenge)) return undefined;
  return scheme;
}

/** The message of a request that a proxy answered with HTTP 407 (proxy.ts): no answer of the target's to judge. */
function proxyRefusedMessage(label: string, exchange: Exchange, route: ProxyRoute | undefined): string {
  return redact(`${label} answered HTTP 407: ${proxyAuthenticationAdvice(route, exchange.challenge)}. Not judged.`);
}

/** The message of a request redirected to another host, a sign-in page's (exchange.ts, redirectedAway). */
function redirectedAwayMessage(label: string, exchange: Exchange): string {
  const location = printable(exchange.location ?? '', { maxChars: 200, transform: redact });
  return redact(
    `${label} answered HTTP ${exchange.status}, a redirect to another host (${location}): a sign-in page or ` +
      "gateway in front of the API, not its answer. Not judged: let the suite's requests reach the API, those " +
      'without credentials or with refused ones too, or test it without the gateway.',
  );
}

/**
 * Why an answer is not the API's but that of what stands in front of it, none of it to judge: a firewall's 403 page,
 * a maintenance or sign-in page served with 200, a redirect to a sign-in page on another host, a proxy's 407
 * (`proxy`: the environment's proxies). Undefined when the answer is the API's.
 */
export function answeredInFront(
  label: string,
  exchange: Exchange,
  proxy: ProxySettings | undefined,
): string | undefined {
  if (blockedInFront(exchange)) return blockedMessage(label, exchange);
  if (pageInFront(exchange)) return pageMessage(label, exchange);
  if (redirectedAway(exchange)) return redirectedAwayMessage(label, exchange);
  if (exchange.status === 407)
    return proxyRefusedMessage(label, exchange, proxyRoute(new URL(exchange.request.url), proxy));
  return undefined;
}

/** The body as a one-line message shows it: printable, redacted, cut at `maxChars`, or '(empty body)'. */
export function bodyInLine(exchange: Pick<Exchange, 'rawBody'>, maxChars = 200): string {
  return printable(exchange.rawBody, { maxChars, transform: redact }) || '(empty body)';
}

/** A web page in place of the API's answer, as its messages show it: its content type, and its start. */
function pageShown(exchange: Exchange): { type: string; page: string } {
  return {
    type: printable(exchange.contentType, { maxChars: 100 }) || 'no content type',
    page: printable(exchange.rawBody, { maxChars: 200, transform: redact }),
  };
}

/** The message of a request refused with a 403 web page, a firewall's (exchange.ts, blockedInFront). */
function blockedMessage(label: string, exchange: Exchange): string {
  const { type, page } = pageShown(exchange);
  return redact(
    `${label} answered HTTP 403 with a web page (${type}), not JSON: a firewall in front of the API refused the ` +
      'request (a rule against markup or quotes in it, say), or the API answered with a page. Not judged: let the ' +
      "suite's requests through (their User-Agent names the suite), or test the API without the firewall. " +
      `Page: ${page}`,
  );
}

/**
 * For a failure judged on an error status with a whole web page: where the API answers JSON or plain strings, a web
 * server or proxy in front of it may have put its own page in place of the API's error body, which the spec judges
 * (nginx's proxy_intercept_errors, IIS's custom errors), or the framework's default error handler, which runs before
 * the API's code (Express's finalhandler after body-parser, Spring's Whitelabel page: indep110). Undefined for any
 * other answer.
 */
export function webPageNote(exchange: Exchange): string | undefined {
  if (exchange.status < 400 || !isHtmlDocument(exchange)) return undefined;
  return (
    `the answer is a web page (HTTP ${exchange.status}), where the API answers JSON or plain strings: a web server ` +
    "or proxy in front of the API may put its own page in place of the API's error body (nginx's " +
    "proxy_intercept_errors, IIS's custom errors), or the framework's default error handler may answer before the " +
    "API's code runs (Express's, Spring's Whitelabel page). Send the request to the API itself, and see where its " +
    'errors are handled.'
  );
}

/**
 * For a failure judged on a body that is not UTF-8: the judge read it as fetch() and browsers do, each byte that is
 * not UTF-8 as U+FFFD, which may be what failed (a label "m\xe1s" read "m�s"). Undefined for a UTF-8 body.
 */
export function notUtf8Note(exchange: Exchange): string | undefined {
  if (isUtf8(exchange.rawBody)) return undefined;
  const charset = mediaTypeParameter(exchange.contentType, 'charset');
  return (
    `the body is not UTF-8${charset ? ` (labelled charset=${charset})` : ''}, which RFC 8259 §8.1 requires of ` +
    'JSON: its bytes that are not were read as U+FFFD (�), as fetch() and browsers read them, which may be what ' +
    'failed here (an encoder writing ISO-8859-1 or Windows-1252 does that). GEN-JSON-UTF8 judges the encoding.'
  );
}

/**
 * For a failure judged on a body that ends in the middle of a JSON value, where its framing said it ends (its
 * Content-Length, or its last chunk): a server that counts a body's length in characters, not bytes, announces too
 * few for text beyond ASCII, and the bytes it leaves out begin its next answer on the connection (indep89, indep90:
 * hand-written HTTP layers). Undefined for any other body, and for one larger than RSF_MAX_RESPONSE_BYTES (cut by it).
 */
export function cutJsonNote(exchange: Exchange): string | undefined {
  if (exchange.truncated || !/^\s*[[{"]/.test(exchange.text) || !endsMidJson(exchange.text)) return undefined;
  const extraBytes = exchange.rawBody.length - [...exchange.text].length;
  const beyondAscii =
    extraBytes > 0 ? `; it holds text beyond ASCII, ${plural(extraBytes, 'byte')} more than its characters` : '';
  return (
    `the body ends in the middle of a JSON value, where its framing (its Content-Length, or its last chunk) said it ` +
    `ends${beyondAscii}: a server that counts a body's length in characters, not in bytes, announces too few for ` +
    'such text, and the bytes it leaves out begin its next answer on the connection. Compare its Content-Length ' +
    'with the size in bytes of the body it meant to send.'
  );
}

/** Whether `text` is cut short of a JSON value: JSON.parse fails at its very end. */
function endsMidJson(text: string): boolean {
  try {
    JSON.parse(text);
    return false;
  } catch (e) {
    const message = (e as Error).message;
    const position = /at position (\d+)/.exec(message)?.[1];
    return /end of JSON input/.test(message) || (position !== undefined && Number(position) >= text.trimEnd().length);
  }
}

/**
 * For a failure judged on an answer that a cache in front of the API gave (exchange.ts, fromCache): it may be
 * another request's answer, to other credentials or from before a write, which the spec judges all the same, since a
 * client gets it. Undefined for any other answer.
 */
export function cacheNote(exchange: Exchange): string | undefined {
  if (exchange.fromCache === undefined) return undefined;
  // The API marked it private or no-store, and the cache kept it all the same: its own rule overrides the origin's
  // (a CDN's "cache everything" with an edge TTL: indep117), so only the cache's rule mends it.
  const overridden = /cache-control: [^;]*\b(no-store|private)\b/i.test(exchange.fromCache);
  const remedy = overridden
    ? "The answer says the API marked it so, and the cache kept it all the same: a rule of the cache's overrides the " +
      "origin's Cache-Control. Key that rule by the Authorization header, or let the API's paths bypass the cache"
    : "Key the cache by the Authorization header, or have the API mark such answers 'Cache-Control: private' or " +
      "'no-store'";
  return (
    `the answer came from a cache in front of the API (${printable(exchange.fromCache, { maxChars: 200 })}), not ` +
    'from the API for this request: ' +
    'a cache that keys its answers by URL alone gives one caller what another was answered, and a read what was ' +
    `true before a write. ${remedy}; send the request to the API itself to see its own answer.`
  );
}

/**
 * The reason every test is not run from `exchange` on: answered 403 in no documented shape, and the price list, which
 * the preflight saw answered, forbidden now too (api-client.ts, pricesForbiddenNow).
 */
export function refusedWholesaleMessage(label: string, exchange: Exchange): string {
  const body = bodyInLine(exchange);
  return redact(
    `${label} answered HTTP 403 (${body}), and so did GET /v1/prices with RSF_BEARER_TOKEN, which the preflight saw ` +
      "answered: from then on the target refused the run's requests before the API could answer them (a gateway's " +
      "quota or rate plan, a firewall's rate-based rule, an account or token revoked). Not judged: the tests from " +
      'then on are not run. Run the suite when the target lets its requests through again; under a rate-based rule, ' +
      'with RSF_MAX_REQUESTS_PER_SECOND below its rate.',
  );
}

/** The message of a success status with a whole web page (exchange.ts, pageInFront). */
function pageMessage(label: string, exchange: Exchange): string {
  const { type, page } = pageShown(exchange);
  return redact(
    `${label} answered HTTP ${exchange.status} with a web page (${type}), where the API answers JSON or a plain ` +
      'string: a maintenance or sign-in page of a gateway or web server in front of the API, not its answer. Not ' +
      `judged: run the suite when the API itself answers. Page: ${page}`,
  );
}

/** The message of a request refused before its data (outcome.ts, refusedBeforeTheData). */
export function refusedBeforeTheDataMessage(
  label: string,
  exchange: Exchange,
  { validRequestRefused = false } = {},
): string {
  const body = bodyInLine(exchange);
  const { auth, writes } = exchange.operation;
  const [to, by, use] =
    auth === 'none'
      ? ['an operation that takes no credentials (§5.3)', '', '']
      : [
          'a request with RSF_BEARER_TOKEN, which the target accepts',
          `the token's account's rights${writes ? ' (one that may not write)' : ''} or `,
          writes ? 'use a token whose account may write, or ' : '',
        ];
  const says = challengeSaid(exchange);
  const control = validRequestRefused
    ? ' Its valid request (the one its success test sends), sent with the same token, was not carried out either.'
    : '';
  return redact(
    `${label} answered HTTP ${exchange.status}, in no error shape the spec documents, to ${to}: a refusal before ` +
      `the data, by ${by}a firewall's rule (against quotes or markup in the request, say), not the API's of the ` +
      `data.${says}${control} Not judged: ${use}let the suite's requests through (their User-Agent names the suite). ` +
      `Body: ${body}`,
  );
}

/** The message of a request that got no answer; only a time-out names the setting that a larger value may mend. */
export function noAnswerMessage(label: string, failure: NoAnswer, timeoutMs: number): string {
  // An operation no longer sent got no answer because it was not sent: its message says why (indep96).
  if (failure.kind === 'operation-stopped') return redact(`${label} was ${failure.message}`);
  const setting = failure.kind === 'timeout' ? ` (RSF_REQUEST_TIMEOUT_MS=${timeoutMs})` : '';
  return redact(`${label} got no answer: ${failure.message}${setting}`);
}

/**
 * The message of an answer larger than the cap: not evidence of non-conformance (a real catalogue may be large), so
 * what needs its body is not judged. The size is the one announced (Content-Length) when the target said it.
 */
export function tooLargeUnjudgedMessage(label: string, response: WireResponse, limitBytes: number): string {
  const { announcedBytes } = response;
  // A compressed body's Content-Length counts it compressed: its size once inflated is not said (indep103).
  const coding = headerValue(response, 'content-encoding');
  const compressed = headerValue(response, 'content-length');
  let size = `more than ${limitBytes} bytes (its size was not announced)`;
  if (announcedBytes !== undefined) size = `${announcedBytes} bytes (Content-Length)`;
  else if (coding && !/^\s*identity\s*$/i.test(coding)) {
    const counted = compressed === undefined ? '' : `, its Content-Length (${compressed} bytes) counting it compressed`;
    size = `more than ${limitBytes} bytes once decompressed (${coding}${counted})`;
  }
  const raise = announcedBytes !== undefined ? `to ${announcedBytes} or more` : 'above its size';
  return redact(
    `${label} answered HTTP ${response.status} with a body of ${size}, over RSF_MAX_RESPONSE_BYTES=${limitBytes}: ` +
      `only its first bytes were read, so it was not judged. Raise RSF_MAX_RESPONSE_BYTES ${raise} to judge it.`,
  );
}

/** The message of a test stopped because the breaker is open. */
export function breakerMessage(trip: BreakerTrip): string {
  if (trip.cause === 'throttled') {
    const row = `${BREAKER_THRESHOLD} requests in a row`;
    return `the target throttled every attempt of ${row} from ${trip.since} on (last request: ${trip.lastRequest})`;
  }
  const why = trip.lastProblem === undefined ? '' : `: ${trip.lastProblem}`;
  // A gateway's error is an answer, not the target's: say so, rather than that it stopped answering (indep96).
  const what = /^HTTP \d/.test(trip.lastProblem ?? '')
    ? `the target stopped serving at ${trip.since}, a gateway answering in its place`
    : `the target stopped answering at ${trip.since}`;
  const last = `last request: ${trip.lastRequest}${why}`;
  if (trip.askedAgain === undefined) return redact(`${what} (${last})`);
  // What the pause found first: the verdict line keeps a reason's first 300 characters (indep99).
  const again = `${what}, and the price list, asked again after a pause of ${RESUME_PAUSE_MS / 1000} s, got`;
  // A gateway's error is sent again, RSF_MAX_RETRIES times: more of them outlast a longer outage; a time-out is not.
  // No answer either may be a server busy with the run's own requests, not one down (indep111: two threads, 2 s pauses,
  // and an unpaced run's hundred requests side by side, the price list queued behind them).
  const remedy = /^HTTP \d/.test(trip.askedAgain)
    ? '. A longer outage than the retries outlast (docs/running.md, "Gateways, firewalls, slow servers and dying ' +
      'targets"): raise RSF_MAX_RETRIES, or run again once the target serves'
    : '. If it was busy rather than down (a server of few threads answering the requests side by side in turn), a ' +
      'lower RSF_MAX_REQUESTS_PER_SECOND or a higher RSF_REQUEST_TIMEOUT_MS lets it through';
  return redact(`${again} ${trip.askedAgain} (${last})${remedy}`);
}

/** Secrets shown as the environment variables that hold them ($RSF_BEARER_TOKEN…), so that a curl line still runs. */
export function withPlaceholders(text: string, secrets: readonly SecretSetting[]): string {
  let out = text;
  for (const { name, value } of secrets) out = replaceSecret(redactHolding(out, value), value, `$${name}`);
  return redact(out);
}

const shellQuote = (s: string): string => `"${s.replace(/(["\\`$])/g, '\\$1').replace(/\\\$(RSF_[A-Z_]+)/g, '$$$1')}"`;

/** Request bodies are ours, but fast-check makes odd ones: escaped and cut like anything else shown. */
const REQUEST_BODY_CHARS = 4000;

export function curlOf(exchange: Exchange, secrets: readonly SecretSetting[]): string {
  const { method, url, headers, body } = exchange.request;
  const shown = (text: string): string =>
    shellQuote(printable(text, { maxChars: REQUEST_BODY_CHARS, transform: (t) => withPlaceholders(t, secrets) }));
  // The headers the client sent: its compression as curl's own (--compressed asks for it and inflates the answer).
  const { 'Accept-Encoding': _compression, ...sent } = sentHeaders(headers);
  const parts = [`curl -sS --compressed -X ${method}`, shown(url)];
  for (const [name, value] of Object.entries(sent)) parts.push(`-H ${shown(`${name}: ${value}`)}`);
  if (body !== undefined) parts.push(`--data-raw ${shown(body)}`);
  return parts.join(' ');
}

/**
 * The size an excerpt of the body gives: of a body cut at the cap, the size it announced, or "more than" the cap
 * (printable's options); of a whole body, its own.
 */
export function excerptSize({ truncated }: Exchange): Pick<PrintableOptions, 'totalBytes' | 'atLeast'> {
  if (!truncated) return {};
  return {
    totalBytes: truncated.announcedBytes ?? truncated.limitBytes,
    atLeast: truncated.announcedBytes === undefined,
  };
}

/** The response body as printable, redacted text, cut with its total size given. */
export function bodyExcerpt(exchange: Exchange, maxChars?: number): string {
  if (exchange.rawBody.length === 0) return '(empty)';
  // Redacted before it is cut, so that a secret across the cut cannot leave half of itself.
  return printable(exchange.rawBody, {
    keepLineBreaks: true,
    transform: redact,
    ...(maxChars && { maxChars }),
    ...excerptSize(exchange),
  });
}

/** " (Retry-After: 1)", or nothing when the answer had none. */
const retryAfterNote = (retryAfter: string | undefined): string =>
  retryAfter === undefined ? '' : ` (Retry-After: ${printable(retryAfter, { maxChars: 40 })})`;

function throttleLine(attempts: readonly ThrottledAttempt[]): string {
  const each = attempts.map((a) => `HTTP ${a.status}${retryAfterNote(a.retryAfter)}, waited ${a.waitedMs} ms`);
  const transient = attempts.filter((a) => a.transient).length;
  const kind = transient === 0 ? 'throttled' : transient === attempts.length ? 'transient' : 'throttled or transient';
  return `  retried after ${attempts.length} ${kind} answer${attempts.length === 1 ? '' : 's'}: ${each.join('; ')}`;
}

/** Text as reports show it: printable, secrets as the variables that hold them, cut at `maxChars`. */
const shownWith =
  (secrets: readonly SecretSetting[]) =>
  (text: string, maxChars?: number): string =>
    printable(text, {
      keepLineBreaks: true,
      transform: (t) => withPlaceholders(t, secrets),
      ...(maxChars && { maxChars }),
    });

/** A redacted, printable account of an exchange for failure messages. */
export function describeExchange(exchange: Exchange, secrets: readonly SecretSetting[]): string {
  const { method, url, headers, body } = exchange.request;
  const shown = shownWith(secrets);
  const shownHeaders = Object.entries(headers).map(([k, v]) => `    ${shown(`${k}: ${v}`)}`);
  const size = exchange.truncated
    ? `, larger than ${exchange.truncated.limitBytes} bytes: not read whole`
    : `, ${exchange.sizeBytes} bytes`;
  const contentType = printable(exchange.contentType, { maxChars: 200 }) || '(none)';
  return [
    `  request:  ${shown(`${method} ${url}`)}  [credentials: ${exchange.credentials}]`,
    ...shownHeaders,
    body !== undefined ? `    body: ${shown(body, 1000)}` : '    (no body)',
    ...(exchange.attempts.length > 0 ? [throttleLine(exchange.attempts)] : []),
    `  response: HTTP ${exchange.status}  content-type: ${contentType}  (${exchange.durationMs} ms${size})`,
    `    body: ${bodyExcerpt(exchange)}`,
    `  reproduce: ${curlOf(exchange, secrets)}`,
  ].join('\n');
}

/** The redacted record of an exchange that goes into evidence attachments. */
export function recordOf(exchange: Exchange, secrets: readonly SecretSetting[]): ExchangeRecord {
  const { method, url, headers, body } = exchange.request;
  const shown = shownWith(secrets);
  return {
    request: {
      method,
      url: shown(url),
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, shown(v)])),
      ...(body !== undefined ? { body: shown(body, REQUEST_BODY_CHARS) } : {}),
    },
    response: {
      status: exchange.status,
      contentType: printable(exchange.contentType, { maxChars: 200 }),
      bodyExcerpt: bodyExcerpt(exchange),
    },
    curl: curlOf(exchange, secrets),
    ...(exchange.attempts.length > 0 && {
      attempts: exchange.attempts.map((a) => ({
        ...a,
        ...(a.retryAfter !== undefined && { retryAfter: printable(a.retryAfter, { maxChars: 40 }) }),
      })),
    }),
  };
}
