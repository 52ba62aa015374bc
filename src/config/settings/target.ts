// Target and transport: where requests go, with which tokens, and how they are paced, capped and retried.
import type { ProxySettings } from '../../http/proxy';
import { REDACTED } from '../../model/text';
import type { ClientCertificate } from '../../http/wire';
import { ConfigProblem, type Parsed, S, type SettingTable, bounded, flag, optional, secretText, text } from './setting';

/** RSF_TARGET_URL=har:PATH replays a recording instead of sending (docs/evidence.md). */
export const REPLAY_SCHEME = 'har:';

/**
 * A URL as a message may show it: credentials, a query string and a fragment hidden, as any of them may hold a key.
 * It works on the text, so that a value that is not a URL is shown as safely: `alice:pw@host`, without a scheme, too.
 */
const shownUrl = (raw: string): string =>
  raw
    .replace(/^((?:[a-z][a-z0-9+.-]*:\/\/)?)[^/?#]*@/i, `$1${REDACTED}@`)
    .replace(/\?[^#]*/, `?${REDACTED}`)
    .replace(/#.*$/s, `#${REDACTED}`);

/** A value in quotes: a variable set in the environment (a CI secret, a shell) keeps them; a .env file drops them. */
const quoted = (raw: string): boolean => /^(["']).*\1$/s.test(raw);
const QUOTES_KEPT = 'it is in quotes, which a variable set in the environment keeps: set it without them';

const url = (raw: string): string => {
  if (raw === '') return '';
  if (quoted(raw)) throw new ConfigProblem(QUOTES_KEPT, shownUrl(raw));
  if (raw.startsWith(REPLAY_SCHEME)) {
    if (raw.length === REPLAY_SCHEME.length) throw new ConfigProblem('har: names no recording file');
    return raw;
  }
  const shown = shownUrl(raw);
  const refuse = (message: string) => new ConfigProblem(message, shown);
  // `localhost:4010` parses as a URL of the scheme "localhost:", `127.0.0.1:4010` as none: both lack http://; and
  // `https//host` lacks its colon.
  const hint = raw.includes('://')
    ? ''
    : ` (did you mean "${/^https?\/\//i.test(shown) ? shown.replace('//', '://') : `http://${shown}`}"?)`;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw refuse(`not a URL: "${shown}"${hint}`);
  }
  if (!/^https?:$/.test(parsed.protocol)) throw refuse(`expected an http or https URL, got "${shown}"${hint}`);
  if (parsed.username || parsed.password) throw refuse('must not carry credentials; use RSF_BEARER_TOKEN');
  if (parsed.search || parsed.hash)
    throw refuse('must not carry a query string or fragment: operation paths are appended to it');
  return raw;
};

/** RSF_BEARER_TOKEN: the token alone, as the token command must print it; the suite adds the scheme. */
const accessToken = (raw: string): string => {
  // A token is token68 (RFC 9110 §11.2), which has no quotes.
  if (quoted(raw)) throw new ConfigProblem(QUOTES_KEPT);
  if (/\s/.test(raw)) {
    const prefixed = /^bearer\s/i.test(raw);
    throw new ConfigProblem(
      `${prefixed ? 'give the token alone, without "Bearer "' : 'must be the token alone, one word'}: ` +
        'the suite sends "Authorization: Bearer <token>" (§5.1)',
    );
  }
  return secretText(raw);
};

/** Headers the suite sets itself, by the spec (§5.1) or by HTTP: RSF_EXTRA_HEADERS may not replace them. */
const OWN_HEADERS = [
  'accept',
  'accept-encoding',
  'authorization',
  'connection',
  'content-length',
  'content-type',
  'host',
  'proxy-authorization',
  'transfer-encoding',
];
/** A header name as HTTP allows it (RFC 9110, token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** RSF_EXTRA_HEADERS: a JSON object of header names and values. A value is never shown: it may be a key. */
const extraHeaders = (raw: string): Record<string, string> => {
  if (raw === '') return {};
  const example = 'a JSON object such as {"x-api-key": "…"}';
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ConfigProblem(`not valid JSON: expected ${example}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ConfigProblem(`expected ${example}`);
  const seen = new Set<string>();
  for (const [name, headerValue] of Object.entries(value)) {
    if (!HEADER_NAME.test(name))
      throw new ConfigProblem("a header name has a character HTTP does not allow (letters, digits, !#$%&'*+.^_`|~-)");
    const lowerCase = name.toLowerCase();
    if (OWN_HEADERS.includes(lowerCase)) throw new ConfigProblem(`${name} is a header the suite sets itself`);
    if (seen.has(lowerCase)) throw new ConfigProblem(`${name} is given twice (header names ignore letter case)`);
    seen.add(lowerCase);
    if (typeof headerValue !== 'string' || /[\0\r\n]/.test(headerValue))
      throw new ConfigProblem(`the value of ${name} must be a string on one line`);
  }
  return value as Record<string, string>;
};

export const TARGET_SETTINGS = {
  targetUrl: S(
    'RSF_TARGET_URL',
    '',
    url,
    'Base URL of the target, with its path prefix if any (https://host/api/storefront), with or without a ' +
      'trailing /v1 or slash. Empty: start the embedded reference server. ' +
      'har:PATH: replay a recording (reports/exchanges.har), sending nothing.',
  ),
  bearerToken: S(
    'RSF_BEARER_TOKEN',
    'Reference-Bearer-Token',
    accessToken,
    'Access token, alone (without "Bearer "): it is sent as "Authorization: Bearer …" (§5.1).',
    true,
  ),
  bearerTokenCommand: S(
    'RSF_BEARER_TOKEN_COMMAND',
    '',
    text,
    'A shell command that prints a fresh access token. Run at start (its output replaces RSF_BEARER_TOKEN), and ' +
      'again when a token accepted earlier in the run is refused; the refused request is then sent once more. ' +
      'Its output is redacted like RSF_BEARER_TOKEN; the command itself is not a secret (let it read credentials ' +
      'from the environment). Empty: RSF_BEARER_TOKEN for the whole run (a token that expires mid-run ends it ' +
      'in ERROR).',
  ),
  invalidBearerToken: S(
    'RSF_INVALID_BEARER_TOKEN',
    '',
    secretText,
    'A token the target must refuse. Empty: a random one per run.',
    true,
  ),
  extraHeaders: S(
    'RSF_EXTRA_HEADERS',
    '',
    extraHeaders,
    'Headers sent with every request, as a JSON object: {"x-api-key": "…"} for an API gateway in front of the ' +
      'target. Their values are secrets, redacted everywhere like the tokens. Authorization, Content-Type, Accept ' +
      "and HTTP's own headers are the suite's to set; User-Agent may be replaced.",
    true,
  ),
  tlsClientCert: S(
    'RSF_TLS_CLIENT_CERT',
    '',
    text,
    'PEM file of the client certificate (and its chain) for an https target that asks for one (mutual TLS), with ' +
      'RSF_TLS_CLIENT_KEY. Both are read and checked at start.',
  ),
  tlsClientKey: S(
    'RSF_TLS_CLIENT_KEY',
    '',
    text,
    "PEM file of the client certificate's private key (RSF_TLS_CLIENT_CERT); its content is never shown.",
  ),
  tlsClientKeyPassphrase: S(
    'RSF_TLS_CLIENT_KEY_PASSPHRASE',
    '',
    secretText,
    'Passphrase of RSF_TLS_CLIENT_KEY, when the key is encrypted.',
    true,
  ),
  allowWrites: S(
    'RSF_ALLOW_WRITES',
    'false',
    flag,
    'Run requests that a conforming target carries out (client update, addresses, categories, cart, ' +
      'payment preference, deletion, post-sale). Always on against the embedded reference.',
  ),
  requestTimeoutMs: S(
    'RSF_REQUEST_TIMEOUT_MS',
    '10000',
    bounded(100, 120000),
    'Time-out of one request, in milliseconds (100 to 120000). A test whose request times out is inconclusive; ' +
      'an operation that times out twice in a row is not sent again.',
  ),
  keepAlive: S(
    'RSF_KEEP_ALIVE',
    'true',
    flag,
    'Keep connections open between requests (HTTP keep-alive); a free one is closed after 4 s. false: each request ' +
      'on a connection of its own, closed after its answer (Connection: close), as curl --no-keepalive and k6 ' +
      "noConnectionReuse do: for a server that serves one kept-alive connection at a time (Python's http.server " +
      'in HTTP/1.1), which otherwise keeps the requests sent side by side waiting until they time out.',
  ),
  waitForTargetMs: S(
    'RSF_WAIT_FOR_TARGET_MS',
    '0',
    bounded(0, 600000),
    'How long the preflight waits for a target that is not up yet, in milliseconds (0 to 600000): it asks again ' +
      'each second while the connection is refused, reset or times out, or a gateway answers 502, 503, 504 or ' +
      "Cloudflare's 520 to 527 or 530. For " +
      'a server started just before the run, or one that sleeps until a request wakes it. With ' +
      'RSF_BEARER_TOKEN_COMMAND, the wait comes first, then the command. 0: no wait.',
  ),
  maxRequestsPerSecond: S(
    'RSF_MAX_REQUESTS_PER_SECOND',
    '',
    optional(bounded(0, 10000)),
    'Upper bound on requests per second, over all workers; 0 means unbounded. ' +
      'Empty: 10 against an external target, unbounded against the embedded reference. A paced run seldom sends ' +
      'two requests at once: a race, or a cache that lasts a second or two, shows more often unbounded (0). ' +
      'Unbounded against a slow target, up to about 100 requests are out at once: a server of few threads may ' +
      'then not answer in time (ERROR).',
  ),
  maxResponseBytes: S(
    'RSF_MAX_RESPONSE_BYTES',
    '4194304',
    bounded(1024, 1073741824),
    'Response bodies are read up to this many bytes, counted after decompression (1024 to 1073741824); ' +
      'a larger one is not judged: its test is inconclusive and the run ends in ERROR, naming this setting.',
  ),
  maxRetries: S(
    'RSF_MAX_RETRIES',
    '5',
    bounded(0, 20),
    'Times a request is sent again after HTTP 429 or 503 with Retry-After, or a gateway blip: 503 without ' +
      'Retry-After or 408, or 502/504 (or a Cloudflare 52x) to GET, HEAD, PUT (0 to 20). A check whose every ' +
      'attempt was throttled is inconclusive, never failed; so is one whose blip is still there at the end (the ' +
      'target was unavailable).',
  ),
  retryMaxWaitMs: S(
    'RSF_RETRY_MAX_WAIT_MS',
    '30000',
    bounded(0, 600000),
    'Longest wait before a retry, in milliseconds (0 to 600000): Retry-After is honoured up to it, or without ' +
      "one a gateway's rate limit reset (RateLimit-Reset, RateLimit, X-RateLimit-Reset); without either, " +
      'exponential back-off with jitter.',
  ),
} satisfies SettingTable;

/** Target and transport, as loadConfig resolves them (the rate cap and writes follow the target). */
export type TargetConfig = Omit<Parsed<typeof TARGET_SETTINGS>, 'maxRequestsPerSecond'> & {
  maxRequestsPerSecond: number;
  /** True when the suite starts the embedded reference server itself. */
  embedded: boolean;
  /** RSF_TARGET_URL=har:PATH: the recording a replay answers from; '' (or absent) against a live target. */
  recording?: string;
  /** Writes run: always against the embedded reference, by opt-in elsewhere. */
  writesEnabled: boolean;
  /** The environment's forward proxies (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY), when one is set. */
  proxy?: ProxySettings;
  /** RSF_TLS_CLIENT_CERT and RSF_TLS_CLIENT_KEY, read, when set. */
  clientCertificate?: ClientCertificate;
};
