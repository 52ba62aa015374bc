// What the preflight's first answer says of the target: GET /prices with the token (§4.9) answered with the price
// list, or with what a wrong base URL, a refused token, a proxy, a gateway or a web server in front of the API sends.
// No I/O: preflight.ts sends the request, and stops the run with the reason read here.
import type { IncomingHttpHeaders } from 'node:http';
import type { TargetConfig } from '../config/settings/target';
import { expiredJwtNote } from '../config/jwt-expiry';
import { type Exchange, parseBody, redirectedAway } from '../http/exchange';
import { challengeSaid, challengeShown, excerptSize, schemeInFront } from '../http/presentation';
import { proxyAuthenticationAdvice, proxyRoute } from '../http/proxy';
import { redact } from '../http/redact';
import { GATEWAY_STATUSES } from '../http/retry';
import { OPERATIONS } from '../model/operations';
import { printable } from '../model/printable';
import { schemas } from '../model/schema-registry';
import { NOT_UP_STATUSES, waitAdvice } from './wait-for-target';

/** What the reading needs of the settings: the ones it names, and the proxy the request went through. */
export type PriceListConfig = Pick<
  TargetConfig,
  'embedded' | 'targetUrl' | 'bearerToken' | 'extraHeaders' | 'proxy' | 'waitForTargetMs'
>;

/**
 * `accepted`: the token was taken (the price list, or a body the tests judge). `stop`: why the run cannot start.
 * `no API`: a 404 or 405, whose reason preflight.ts completes with whether the API is served without /v1.
 */
export type PriceListReading = { kind: 'accepted' } | { kind: 'stop' | 'no API'; why: string };

/** A body in a one-paragraph message: enough to recognise an error message. */
export const EXCERPT_CHARS = 300;

/** A bot challenge's page: Cloudflare's title, or its challenge platform's script and options. */
const BOT_CHALLENGE = /<title>Just a moment\.\.\.<\/title>|\/cdn-cgi\/challenge-platform\/|_cf_chl_opt/i;

const ACCEPTED: PriceListReading = { kind: 'accepted' };

function stop(why: string, kind: 'stop' | 'no API' = 'stop'): PriceListReading {
  return { kind, why };
}

/** AWS API Gateway's refusal (a REST API's) of a path it has no route for, or of a request without SigV4 signature. */
function missingRoute(exchange: Exchange, headers: IncomingHttpHeaders): boolean {
  const type = String(headers['x-amzn-errortype'] ?? '');
  return type.startsWith('MissingAuthenticationTokenException') || /"Missing Authentication Token"/.test(exchange.text);
}

/** A refusal that asks for a gateway's key: APIM's "missing subscription key", Kong's "No API key found". */
const WANTS_A_KEY = /subscription key|\bapi[ _-]?key\b|\bapikey\b/i;

/** What nginx and Apache answer to plain HTTP at a port that expects TLS. */
const PLAIN_HTTP_TO_TLS =
  /plain HTTP request was sent to HTTPS port|speaking plain HTTP to an SSL-enabled server port/i;

/** Words of a server's refusal of request headers too large: 431 is RFC 6585's; nginx, Apache and Tomcat say 400. */
const HEADERS_TOO_LARGE = /Request Header(?: Fields| Or Cookie)? Too Large|header field exceeds server limit/i;

function headersTooLarge(exchange: Exchange): boolean {
  return exchange.status === 431 || (exchange.status === 400 && HEADERS_TOO_LARGE.test(exchange.text));
}

/** Which of the request's headers are large, by their size alone: the token's value is never shown. */
function headersTooLargeMessage(exchange: Exchange, config: PriceListConfig, body: string): string {
  const size = (headers: Record<string, string>): number =>
    Object.entries(headers).reduce((bytes, [name, value]) => bytes + Buffer.byteLength(`${name}: ${value}\r\n`), 0);
  const extra = size(config.extraHeaders);
  const authorization = size({ Authorization: exchange.request.headers.Authorization ?? '' });
  return (
    `HTTP ${exchange.status}: the target, or what stands in front of it, refuses the request's headers as too ` +
    `large. Authorization, with RSF_BEARER_TOKEN, is ${authorization} bytes` +
    `${extra > 0 ? `, and RSF_EXTRA_HEADERS ${extra}` : ''}, where servers often allow 8 KB a header ` +
    "(nginx's large_client_header_buffers, Apache's LimitRequestFieldSize, Envoy's max_request_headers_kb): raise " +
    `that limit, or use a token with fewer claims. Body: ${body || '(empty body)'}`
  );
}

/** "HTTP 404: {"error_message":"…"}": the status and a printable, redacted excerpt of the body. */
export function answerOf(exchange: Exchange, maxChars = EXCERPT_CHARS): string {
  const body = printable(exchange.rawBody, { maxChars, transform: redact });
  return `HTTP ${exchange.status}${body ? `: ${body}` : ' with an empty body'}`;
}

/** RSF_TARGET_URL as the user set it (it carries no secret: credentials and queries are refused when loaded). */
function targetShown(config: Pick<TargetConfig, 'embedded' | 'targetUrl'>): string {
  return config.embedded ? '(empty: the embedded reference)' : printable(config.targetUrl, { maxChars: 200 });
}

/** RSF_TARGET_URL ends in a version other than /v1 (§9), which the suite would append /v1 to. */
function endsInAnotherVersion(targetUrl: string): boolean {
  const version = /\/v(\d+)\/*$/i.exec(targetUrl)?.[1];
  return version !== undefined && Number(version) !== 1;
}

/** The first segments of the operations' paths (/client, /miCuenta, /carrito, …). */
const OPERATION_ROOTS = new Set(Object.values(OPERATIONS).map((operation) => operation.path.split('/')[1]));

/** A base URL that ends in an operation's path (one pasted from a request): where its base URL ends. */
function operationPathIn(targetUrl: string): string {
  const url = new URL(targetUrl);
  const match = /^(.*?)\/v1\/([^/]+)/.exec(url.pathname);
  if (!match || !OPERATION_ROOTS.has(match[2] as string)) return '';
  return (
    ` It holds an operation's path after /v1 (${url.pathname.slice((match[1] as string).length)}): the base URL ` +
    `ends before it, ${url.origin}${match[1]}.`
  );
}

/** The schema of one entry of the price list (§2.7). */
const PRICE_ENTRY = 'resources.price-entry';

const isPriceEntry = (value: unknown): boolean => schemas().validate(PRICE_ENTRY, value).valid;

/** A non-empty list of §2.7's price entries, all of them valid. */
export function isPriceList(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0 && value.every(isPriceEntry);
}

/**
 * A JSON object with a member that is a list of §2.7's price entries, all of them valid ({"items": [...]}), or that
 * is such an entry ({"1001": {...}}: the list keyed by id, as PHP's json_encode writes an array whose keys do not
 * run 0, 1, 2…), or an object that holds one so ({"data": {"prices": [...]}}).
 */
function holdsPriceEntries(value: unknown, depth = 3): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || depth === 0) return false;
  return Object.values(value).some(
    (member) => isPriceList(member) || isPriceEntry(member) || holdsPriceEntries(member, depth - 1),
  );
}

/**
 * Whether a body names §2.7's fields as price data does: currencyQuote and finalPrice, which no other resource of the
 * spec has, and two more of id, sku, value and iva. One entry a line (NDJSON), a CSV export, or columns and rows
 * ({"columns": ["id", "sku", …], "data": [[…]]}, pandas' split form) are a price list in a form no refusal takes.
 */
function namesPriceFields(text: string): boolean {
  const named = (field: string) => new RegExp(`\\b${field}\\b`).test(text);
  return named('currencyQuote') && named('finalPrice') && ['id', 'sku', 'value', 'iva'].filter(named).length >= 2;
}

/**
 * What a 3xx to a preflight request says, or undefined for any other status; `otherwise` ends the message of a
 * redirect on the same host to another path. The suite follows no redirect: the spec gives each operation's path.
 */
export function redirectProblem(exchange: Exchange, to: unknown, otherwise: string): string | undefined {
  const { status } = exchange;
  if (status < 300 || status >= 400) return undefined;
  if (status === 304)
    return (
      'HTTP 304 (Not Modified) to a request that was not conditional (no If-None-Match, no If-Modified-Since): ' +
      'RFC 9110 §15.4.5 sends it only in answer to one, and it carries no answer to read.'
    );
  const { url } = exchange.request;
  const location = printable(String(to ?? '(no location)'), { maxChars: 300 });
  // A framework that appends a slash (Django's APPEND_SLASH, say): no base URL avoids that.
  let toSlash = false;
  try {
    toSlash = new URL(location, url).href === `${url}/`;
  } catch {}
  if (toSlash)
    return (
      `HTTP ${status} redirects to ${location}: the same path with a trailing slash. The spec's paths have none ` +
      '(intro, "All paths below are relative to {base_url}/v1"): the target must answer them as they are.'
    );
  if (redirectedAway(exchange))
    return (
      `HTTP ${status} redirects to ${location}, another host. Set RSF_TARGET_URL to it if the API moved there; if ` +
      "it is a sign-in page, a gateway or single sign-on stands in front of the API, and the suite's requests must " +
      'reach the API itself.'
    );
  return `HTTP ${status} redirects to ${location}. ${otherwise}`;
}

/**
 * For a token refused by an answer that names PHP or Apache: PHP behind Apache's mod_proxy_fcgi or CGI never sees
 * the Authorization header unless Apache passes it on, and refuses the request as if no token came (indep94).
 */
function headerDroppedNote(headers: IncomingHttpHeaders): string {
  const stack = [headers['x-powered-by'], headers.server].flat().filter((v): v is string => typeof v === 'string');
  if (!stack.some((value) => /\b(PHP|Apache)\b/i.test(value))) return '';
  const named = printable(stack.join(', '), { maxChars: 100 });
  return (
    ` If the token is valid: the answer names ${named}, and PHP behind Apache (mod_proxy_fcgi, CGI) does not see the ` +
    'Authorization header unless Apache passes it on (CGIPassAuth On, since Apache 2.4.13).'
  );
}

/** A 502, 504 or 52x: a gateway answered for the API, which is down or failing behind it (indep96). */
const GATEWAY_FAILING = 'a gateway in front of the API answered for it: the API behind it is down or failing';

/** Reads the answer to GET /prices with the token; `headers` are the answer's, as sent. */
export function readPriceListAnswer(
  exchange: Exchange,
  headers: IncomingHttpHeaders,
  config: PriceListConfig,
): PriceListReading {
  const { url } = exchange.request;
  const { status } = exchange;
  // A body cut at the cap is shown with the size it announced, or as more than what was read.
  const body = printable(exchange.rawBody, { maxChars: 500, transform: redact, ...excerptSize(exchange) });
  const cut = exchange.truncated;
  const contentType = printable(exchange.contentType, { maxChars: 100 }) || 'no content type';
  // A proxy's answer, not the target's.
  if (status === 407)
    return stop(`HTTP 407: ${proxyAuthenticationAdvice(proxyRoute(new URL(url), config.proxy), exchange.challenge)}.`);
  const redirect = redirectProblem(exchange, headers.location, 'Set RSF_TARGET_URL to the final base URL.');
  if (redirect !== undefined) return stop(redirect);
  // The mirror of a plain HTTP port reached with https (transportProblem): nginx and Apache answer it with a page.
  if (status === 400 && PLAIN_HTTP_TO_TLS.test(exchange.text) && new URL(url).protocol === 'http:')
    return stop(
      `HTTP 400: the target's port expects TLS, and RSF_TARGET_URL says http: set it to ` +
        `${targetShown(config).replace(/^http:/, 'https:')}. Body: ${body}`,
    );
  // A token with many claims can pass a server's limit on request headers: no base URL or token fixes that.
  if (headersTooLarge(exchange)) return stop(headersTooLargeMessage(exchange, config, body));
  // A wrong path (a /v2, a missing prefix) usually shows as 404 or 405: say what was tried and what came back.
  if (status === 404 || status === 405)
    return stop(
      `RSF_TARGET_URL=${targetShown(config)} leads to no API: the target answered ${answerOf(exchange)}.\n` +
        `  RSF_TARGET_URL must be the base URL that /v1 follows (§9), with its path prefix if the API has one.` +
        (endsInAnotherVersion(config.targetUrl) ? ' It ends in another version: this suite tests /v1.' : '') +
        operationPathIn(config.targetUrl),
      'no API',
    );
  const scheme = schemeInFront(exchange);
  if ((status === 401 || status === 403) && scheme !== undefined)
    return stop(
      `HTTP ${status}: the target asks for ${scheme} credentials (WWW-Authenticate: ${challengeShown(exchange)}), ` +
        'not the bearer token of §5: a web server or gateway in front of the API wants credentials of its own. Have ' +
        'it let the suite through (a key of its own can go in RSF_EXTRA_HEADERS), or set RSF_TARGET_URL to a URL ' +
        `past it. Body: ${body || '(empty body)'}`,
    );
  const says = challengeSaid(exchange);
  // Cloudflare's bot challenge ("Just a moment...", its challenge platform's script): a browser's test, no refusal of
  // the token (indep117).
  if (status === 403 && BOT_CHALLENGE.test(exchange.text))
    return stop(
      `HTTP 403 with a bot challenge (${contentType}, "Just a moment..."): a CDN's firewall in front of the API asks ` +
        'for a browser, before the API sees the request. Let the suite through: a rule that skips the challenge for ' +
        'its User-Agent (reseller-storefront-conformance/…), or one the firewall knows sent with RSF_EXTRA_HEADERS ' +
        `(docs/running.md, "Gateways, firewalls, slow servers and dying targets"). Body: ${body}`,
    );
  if ((status === 401 || status === 403) && /^\s*</.test(body))
    return stop(
      `HTTP ${status} with markup (${contentType}), not JSON: a firewall or proxy in front of the API refused the ` +
        `request, or the API refused RSF_BEARER_TOKEN.${says} Body: ${body}`,
    );
  // A gateway's own key (Azure API Management's subscription key, an API key), which the bearer token is not.
  if ((status === 401 || status === 403) && WANTS_A_KEY.test(exchange.text)) {
    // Names only: the values may be the key.
    const sent = Object.keys(config.extraHeaders);
    const send =
      sent.length === 0
        ? 'send it with every request through RSF_EXTRA_HEADERS, e.g. {"Ocp-Apim-Subscription-Key":"…"}'
        : `RSF_EXTRA_HEADERS sends ${sent.join(', ')}: the gateway refused that key, or wants it under another name`;
    return stop(
      `HTTP ${status}: a gateway in front of the API asks for a key of its own, not the bearer token of §5 (Azure ` +
        `API Management wants its subscription key in Ocp-Apim-Subscription-Key; others an API key): ${send}.` +
        `${says} Body: ${body}`,
    );
  }
  if (status === 401)
    return stop(
      `HTTP ${status}: the target refused RSF_BEARER_TOKEN. Set a valid access token (§5).` +
        `${expiredJwtNote(config.bearerToken)}${headerDroppedNote(headers)}${says} Body: ${body || '(empty body)'}`,
    );
  // AWS API Gateway's answer to a path it has no route for, whatever the token: often a base URL without its stage.
  if (status === 403 && missingRoute(exchange, headers))
    return stop(
      'HTTP 403 "Missing Authentication Token": AWS API Gateway answers so for a path it has no route for, whatever ' +
        `the token: check RSF_TARGET_URL=${targetShown(config)}, which must hold the stage (https://…/prod) and any ` +
        'base path before /v1. The other cause: a method that wants AWS IAM signatures (SigV4), not the bearer ' +
        `token of §5. Body: ${body || '(empty body)'}`,
    );
  // Forbidden, not unauthenticated: the token, or what stands in front of the API, which the answer may name.
  if (status === 403)
    return stop(
      'HTTP 403: the target refused the request. Either RSF_BEARER_TOKEN is not valid, or may not read the price ' +
        'list (§5), or what stands in front of the API refuses it: an API gateway that wants a key of its own ' +
        '(RSF_EXTRA_HEADERS sends it), an IP allowlist or a resource policy that does not let this machine in, or ' +
        `one that routes by a part of the path RSF_TARGET_URL=${targetShown(config)} lacks (a stage, https://…/prod; ` +
        `indep114).${says} Body: ${body || '(empty body)'}`,
    );
  // Before the markup: a server's error page says the target is failing, not that it is another site.
  if (status >= 500)
    return stop(
      `HTTP ${status}: ${GATEWAY_STATUSES.has(status) ? GATEWAY_FAILING : 'the target is failing'}. ` +
        `Body: ${body || '(empty body)'}${waitAdvice(NOT_UP_STATUSES.includes(status), config)}`,
    );
  if (/^\s*</.test(body))
    return stop(
      `HTTP ${status} with markup (${contentType}), not JSON: this does not look like the Reseller Storefront API.\n` +
        `  Check RSF_TARGET_URL=${targetShown(config)}.`,
    );
  if (cut) {
    // A large catalogue: a body over the cap is too large to be an error message, so the token was accepted. The
    // tests of the price list are inconclusive, each naming RSF_MAX_RESPONSE_BYTES (api-client.ts); the rest run.
    if (status >= 200 && status <= 299 && /^\s*\[/.test(exchange.text)) return ACCEPTED;
    const cap = `RSF_MAX_RESPONSE_BYTES=${cut.limitBytes}`;
    const size = cut.announcedBytes === undefined ? `over ${cap}` : `of ${cut.announcedBytes} bytes, over ${cap},`;
    return stop(
      `HTTP ${status} with a body ${size} that does not begin as the price list of §4.9 (a JSON array): ${body}`,
    );
  }
  // Errors may come with HTTP 200 (§7.3): a refused token then shows only in the body.
  const parsed = parseBody(exchange.text, exchange.contentType);
  if (!(parsed?.kind === 'json' && Array.isArray(parsed.value))) {
    // Price entries under a member ({"items": [...]}, {"1001": {...}}), or in another format that names their fields,
    // are the price list in another shape, which no refusal would hold: the token was accepted, and the price list's
    // tests judge the shape (OP9-SUCCESS-SHAPE), FAIL not ERROR.
    const holds = (parsed?.kind === 'json' && holdsPriceEntries(parsed.value)) || namesPriceFields(exchange.text);
    if (status >= 200 && status <= 299 && holds) return ACCEPTED;
    return stop(
      `HTTP ${status}, but not the price list of §4.9: ${body || '(empty body)'}\n` +
        '  Does the target accept RSF_BEARER_TOKEN?',
    );
  }
  return ACCEPTED;
}
