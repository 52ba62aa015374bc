// A target that is unreachable, hangs, sends garbage or is not this API gets one clear message, and no test runs.
// What the message says is the preflight's, tested in this process; how a run shows it (said once, summed up by the
// verdict line, ERROR, no test run) is the same for every message, and is tested in child runs as a user runs them.
import { chmodSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createSecureServer } from 'node:http2';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer } from 'node:net';
import { join, relative } from 'node:path';
import { startReferenceServer } from '../../reference/server';
import { describeError } from '../../src/http/wire-errors';
import { expect, test } from '../../src/playwright/fixtures';
import {
  REPO_ROOT,
  anotherUser,
  foldersLeftBy,
  lastLine,
  readReport,
  runInGroup,
  runPlaywright,
} from './support/child-run';
import { preflightMessage, preflightOutcome } from './support/preflight-message';
import { expiredJwt } from './support/jwt';
import { scratchDir } from './support/scratch';
import { REPORTS_LOCK } from '../../src/report/reports-dir';
import { EXPIRED_CERT, SELF_SIGNED_CERT, SELF_SIGNED_KEY, selfSignedServer } from './support/self-signed';
import {
  type Misbehaviour,
  answerFor,
  forward,
  hang,
  rawAnswer,
  startHostileTarget,
  writesRefusedFor,
} from './support/hostile-server';
import { referenceForThisFile } from './support/file-reference';
import { mintTokenCommand } from './support/mint-token';
import { listenOnLoopback, loopbackUrl, closedLoopbackPort } from './support/listening';

/**
 * A run of the suite, or of `specs`, against the target `env` names: a target that hangs costs 800 ms a request. A
 * run that must pass sets CONFORMING's default time-out instead, which no loaded machine comes near.
 */
async function suiteAgainst(env: Record<string, string>, specs: string[] = []) {
  const out = scratchDir('preflight');
  const run = await runPlaywright(
    ['test', '--output', join(out, 'results'), ...specs],
    { RSF_REPORTS_DIR: join(out, 'reports'), RSF_REQUEST_TIMEOUT_MS: '800', ...env },
    60_000,
  );
  return { ...run, output: run.stdout + run.stderr, reportsDir: join(out, 'reports') };
}

const CONFORMING = { RSF_REQUEST_TIMEOUT_MS: '' };

/** What the preflight says of the reference behind `misbehave`, with the token, its URL, and `env`. */
async function messageBehind(misbehave: Misbehaviour, env: Record<string, string> = {}): Promise<string> {
  const target = await startHostileTarget({ upstream: reference().url, misbehave });
  try {
    return await preflightMessage({ ...token, RSF_TARGET_URL: target.url, ...env });
  } finally {
    await target.close();
  }
}

function expectOneClearError(run: { code: number | null; stdout: string; output: string }, says: RegExp): void {
  expect(run.code, `ERROR: the target could not be judged\n${run.output}`).toBe(2);
  expect(run.output).toMatch(says);
  const verdict = lastLine(run.stdout);
  expect(verdict).toMatch(/^Conformance: ERROR — Preflight failed/);
  const rest = run.output.replace(verdict, '');
  expect(rest.match(/Preflight failed/g) ?? [], 'said once, and summed up by the verdict line').toHaveLength(1);
  expect(run.output, 'no test ran').not.toMatch(/^\s*\d+ (passed|failed)/m);
}

test.describe.configure({ mode: 'parallel' });

/** The reference the tests that need a conforming target put behind their gateway, and the token it takes. */
const { secrets, server: reference } = referenceForThisFile();
const token = { RSF_BEARER_TOKEN: secrets.bearer, RSF_CHANNEL_TOKEN: secrets.channel };

test('an unreachable target', async () => {
  const url = `http://127.0.0.1:${await closedLoopbackPort()}`;
  const message = await preflightMessage({ RSF_TARGET_URL: url });
  expect(message).toMatch(
    /gave no complete HTTP answer: connection refused \(ECONNREFUSED\)[\s\S]*Check RSF_TARGET_URL/,
  );
  expect(message, 'waiting longer would not help').not.toContain('RSF_REQUEST_TIMEOUT_MS');
  expect(message, 'unless the server was still starting').toContain('set RSF_WAIT_FOR_TARGET_MS to wait for it');
});

test('an unreachable localhost: the address it named, and how to reach a server on ::1 alone', async () => {
  // indep105: a server listening on ::1 only, with localhost named 127.0.0.1 alone in /etc/hosts (curl tries ::1 too).
  const port = await closedLoopbackPort();
  const message = await preflightMessage({ RSF_TARGET_URL: `http://localhost:${port}` });
  expect(message).toMatch(new RegExp(`connection refused \\(ECONNREFUSED\\) at (127\\.0\\.0\\.1|\\[::1\\]):${port}`));
  // Where localhost names ::1 too, both were tried and refused: nothing to suggest.
  if (!message.includes('[::1]:')) expect(message).toContain(`reached at http://[::1]:${port} (write that in`);
});

/** A gateway in front of `upstream` (none: nothing behind it) that answers 503 to its first `notUpFor` requests. */
function gateway(upstream: string | undefined, notUpFor: number) {
  return startHostileTarget({
    ...(upstream && { upstream }),
    misbehave: (_, res, index) => {
      if (index > notUpFor) return false;
      res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>503 Service Temporarily Unavailable</h1>');
      return true;
    },
  });
}

test('a target still starting: RSF_WAIT_FOR_TARGET_MS makes the preflight wait, said once, no breaker', async () => {
  const starting = await gateway(reference().url, 2);
  // A server that starts listening after the run started: its port refuses connections until then.
  const latePort = await closedLoopbackPort();
  const lateUrl = `http://127.0.0.1:${latePort}`;
  const late = createHttpServer((req, res) => forward(reference().url, req, res));
  const starts = setTimeout(() => late.listen(latePort, '127.0.0.1'), 1200);
  try {
    const [behindGateway, startedLate] = await Promise.all([
      // Both must pass once the target is up: the default time-out, not 800 ms, on a loaded machine.
      preflightOutcome({ ...token, ...CONFORMING, RSF_TARGET_URL: starting.url, RSF_WAIT_FOR_TARGET_MS: '30000' }),
      preflightOutcome({ ...token, ...CONFORMING, RSF_TARGET_URL: lateUrl, RSF_WAIT_FOR_TARGET_MS: '30000' }),
    ]);
    expect(behindGateway).toEqual({
      said: ['The target is not up yet (HTTP 503): waiting up to RSF_WAIT_FOR_TARGET_MS=30000.'],
      failed: undefined,
      breaker: undefined,
      // The waits for a target that is not up yet do not slow the run down.
      handedOver: [],
    });
    expect(startedLate).toEqual({
      said: [
        `The target is not up yet (connection refused (ECONNREFUSED) at 127.0.0.1:${latePort}): waiting up to ` +
          'RSF_WAIT_FOR_TARGET_MS=30000.',
      ],
      failed: undefined,
      breaker: undefined,
      handedOver: [],
    });
  } finally {
    clearTimeout(starts);
    await Promise.all([starting.close(), new Promise((resolve) => late.close(resolve))]);
  }
});

test('a token command that mints at a target still starting runs once the target is up: PASS', async () => {
  // Before the wait was moved ahead of it, the command met the gateway's 503 and the run stopped, naming the command.
  const starting = await gateway(reference().url, 2);
  try {
    const run = await suiteAgainst(
      {
        RSF_TARGET_URL: starting.url,
        RSF_CHANNEL_TOKEN: secrets.channel,
        RSF_BEARER_TOKEN_COMMAND: mintTokenCommand('RSF_TARGET_URL'),
        RSF_WAIT_FOR_TARGET_MS: '30000',
        ...CONFORMING,
      },
      ['prices.spec.ts'],
    );
    expect(run.code, run.output).toBe(0);
    expect(lastLine(run.stdout)).toMatch(/^Conformance: PASS — /);
    const waits = run.output.match(/The target is not up yet \(HTTP 503\)/g) ?? [];
    expect(waits, 'said once, before the command ran').toHaveLength(1);
  } finally {
    await starting.close();
  }
});

test('a target that never comes up: RSF_WAIT_FOR_TARGET_MS bounds the tries, and the message names it', async () => {
  const down = await gateway(undefined, Number.POSITIVE_INFINITY);
  try {
    // No retry of the preflight's own 503 either: the tries counted are the wait's.
    const waiting = { RSF_TARGET_URL: down.url, RSF_WAIT_FOR_TARGET_MS: '1500', RSF_MAX_RETRIES: '0' };
    const { said, failed } = await preflightOutcome(waiting);
    expect(said).toHaveLength(1);
    expect(failed).toMatch(/HTTP 503: the target is failing[\s\S]*still not up after RSF_WAIT_FOR_TARGET_MS=1500\./);
    // A try each second while the wait lasts (at 0, 1 and 1.5 s), then the preflight's own request: no more.
    expect(down.requests).toBeGreaterThanOrEqual(2);
    expect(down.requests).toBeLessThanOrEqual(4);
  } finally {
    await down.close();
  }
  const failing = await preflightAgainstAnswer(500, 'text/html', '<h1>Internal Server Error</h1>');
  expect(failing, 'a 500 is no gateway waiting for its server').not.toContain('RSF_WAIT_FOR_TARGET_MS');
});

test('a target that accepts connections and never answers: one clear error, after one time-out', async () => {
  // Each request is a connection that the client closes at its time-out: one opened after such a close waited a
  // time-out after another.
  let connections = 0;
  let closed = 0;
  let openedAfterATimeOut = 0;
  const silent = createTcpServer((socket) => {
    connections++;
    if (closed > 0) openedAfterATimeOut++;
    socket.on('close', () => closed++);
  });
  const url = await loopbackUrl(silent);
  const run = await suiteAgainst({ RSF_TARGET_URL: url });
  silent.close();
  expectOneClearError(run, /did not answer within RSF_REQUEST_TIMEOUT_MS=800/);
  // Bounded by one request time-out, not a test time-out: the price list's request timed out, and nothing was sent
  // after it.
  expect(connections, 'requests the preflight sent').toBeGreaterThan(0);
  expect(openedAfterATimeOut, 'requests sent after a time-out').toBe(0);
});

test('a target that sends garbage instead of HTTP', async () => {
  const garbage = createTcpServer((socket) => socket.end('\u0000\u00ff not http at all\r\n\r\n'));
  const url = await loopbackUrl(garbage);
  const message = await preflightMessage({ RSF_TARGET_URL: url });
  garbage.close();
  expect(message).toMatch(/gave no complete HTTP answer: the answer is not HTTP \(HPE_/);
});

test("a token over the server's limit on request headers: named with its size, not as another site", async () => {
  // Before: `HTTP 400 with markup (text/html), not JSON: this does not look like the Reseller Storefront API. Check
  // RSF_TARGET_URL`, for nginx's answer to a token of 9 KB (large_client_header_buffers is 8 KB).
  const nginx =
    '<html>\r\n<head><title>400 Request Header Or Cookie Too Large</title></head>\r\n<body>\r\n' +
    '<center><h1>400 Bad Request</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';
  const answers = { 431: '<h1>431 Request Header Fields Too Large</h1>', 400: nginx };
  const bearer = `eyJ${'a'.repeat(9000)}`;
  for (const [status, page] of Object.entries(answers)) {
    const message = await preflightAgainstAnswer(
      Number(status),
      'text/html',
      page,
      {},
      {
        RSF_BEARER_TOKEN: bearer,
        RSF_EXTRA_HEADERS: '{"X-Api-Key":"k-123456"}',
      },
    );
    expect(message, status).toContain(
      `HTTP ${status}: the target, or what stands in front of it, refuses the request's headers as too large. ` +
        'Authorization, with RSF_BEARER_TOKEN, is 9027 bytes, and RSF_EXTRA_HEADERS 21,',
    );
    expect(message).not.toContain(bearer);
  }
  // Another 400 page is not taken for it.
  expect(await preflightAgainstAnswer(400, 'text/html', '<h1>Bad</h1>')).toContain('does not look like the');
});

test('a host name that does not resolve: named, with where it may be known', async () => {
  // .invalid never resolves (RFC 2606); a machine without DNS cannot even ask.
  const message = await preflightMessage({ RSF_TARGET_URL: 'https://staging.reseller.invalid' });
  const host = 'The request got no answer: the host name staging.reseller.invalid';
  const check = 'check it, and whether it is known only on a VPN or another network';
  expect([
    `${host} does not resolve (ENOTFOUND): ${check}`,
    `${host} could not be looked up: DNS did not answer (EAI_AGAIN)`,
  ]).toContainEqual(message.split('\n')[2]?.trim());
});

test('an address this machine has no route to: named, with where it may be reached', () => {
  // Before: `connect EHOSTUNREACH 10.20.30.40:443`, with `Check RSF_TARGET_URL, and that the server is up`.
  for (const code of ['EHOSTUNREACH', 'ENETUNREACH']) {
    const error = Object.assign(new Error(`connect ${code} 10.20.30.40:443`), { code, address: '10.20.30.40' });
    expect(describeError(error, { timeoutMs: 1000, maxHeaderBytes: 16384 })).toEqual({
      kind: 'other',
      message:
        `this machine has no route to the address 10.20.30.40 (${code}): it may be reached only on a VPN or ` +
        'another network, or through a proxy (HTTPS_PROXY, HTTP_PROXY)',
    });
  }
});

test('an https URL to a port that answers in plain HTTP: named as such, not as an OpenSSL record error', async () => {
  const plain = createHttpServer((_, res) => res.end('[]'));
  const url = (await loopbackUrl(plain)).replace('http:', 'https:');
  const message = await preflightMessage({ RSF_TARGET_URL: url });
  plain.close();
  expect(message).toContain('the target does not speak TLS at this port (wrong version number): RSF_TARGET_URL says');
  expect(message).not.toMatch(/ssl3_get_record|openssl/);
});

test('an http URL to a port that expects TLS: named as such by the page nginx gives, with the https URL', async () => {
  // Before: `this does not look like the Reseller Storefront API. Check RSF_TARGET_URL`, whose host and port were
  // right.
  const page =
    '<html>\r\n<head><title>400 The plain HTTP request was sent to HTTPS port</title></head>\r\n<body>\r\n' +
    '<center><h1>400 Bad Request</h1></center>\r\n<center>The plain HTTP request was sent to HTTPS port</center>\r\n' +
    '<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';
  expect(await preflightAgainstAnswer(400, 'text/html', page)).toMatch(
    /HTTP 400: the target's port expects TLS, and RSF_TARGET_URL says http: set it to https:\/\/127\.0\.0\.1:\d+\./,
  );
});

test('a target whose TLS certificate this machine does not trust: the message names NODE_EXTRA_CA_CERTS', async () => {
  const staging = selfSignedServer((_, res) => res.end('[]'));
  const url = `https://127.0.0.1:${await listenOnLoopback(staging)}`;
  const message = await preflightMessage({ RSF_TARGET_URL: url });
  staging.close();
  expect(message).toMatch(/got no answer: the TLS certificate is not trusted on this machine/);
  expect(message).toMatch(/\(DEPTH_ZERO_SELF_SIGNED_CERT\); if a private CA signed it, .* in NODE_EXTRA_CA_CERTS/);
  // The URL and the server are not in doubt: it answered, with a certificate (indep96 read that as a wrong lead).
  expect(message).not.toContain('Check RSF_TARGET_URL, and that the server is up');
});

test('a trusted certificate that has expired, or is for other names: named, with whose it is to fix', async () => {
  const expired = selfSignedServer((_, res) => res.end('[]'), { expired: true });
  const current = selfSignedServer((_, res) => res.end('[]'));
  const [expiredPort, currentPort] = [await listenOnLoopback(expired), await listenOnLoopback(current)];
  // Node reads NODE_EXTRA_CA_CERTS as it starts: a process of its own trusts both certificates.
  const trusted = join(scratchDir('tls'), 'trusted.pem');
  writeFileSync(trusted, Buffer.concat([readFileSync(EXPIRED_CERT), readFileSync(SELF_SIGNED_CERT)]));
  const get = (url: string) =>
    `require('./src/http/wire.ts').sendOnce({ method: 'GET', url: '${url}', headers: {}, timeoutMs: 5000, ` +
    'maxBodyBytes: 1000 }).then((a) => a.status, (e) => e.message)';
  // The certificates name 127.0.0.1, not localhost.
  const script = `Promise.all([${get(`https://127.0.0.1:${expiredPort}`)}, ${get(`https://localhost:${currentPort}`)}])
    .then((lines) => console.log(lines.join('\\n')));`;
  try {
    const run = await runInGroup(
      process.execPath,
      ['--import', 'tsx', '-e', script],
      { NODE_EXTRA_CA_CERTS: trusted },
      30_000,
    );
    expect(run.stdout.trim().split('\n'), run.output).toEqual([
      "the target's TLS certificate has expired (CERT_HAS_EXPIRED); the target must renew it: the suite never " +
        'turns certificate checks off',
      "the target's TLS certificate is for other names (ERR_TLS_CERT_ALTNAME_INVALID): Host: localhost. is not in " +
        "the cert's altnames: IP Address:127.0.0.1, DNS:staging.example.test; use a host name it names in " +
        'RSF_TARGET_URL',
    ]);
  } finally {
    expired.close();
    current.close();
  }
});

test('a target that speaks only HTTP/2: the handshake says so, and the token is not blamed', async () => {
  const h2Only = createSecureServer({
    key: readFileSync(SELF_SIGNED_KEY),
    cert: readFileSync(SELF_SIGNED_CERT),
    allowHTTP1: false,
  });
  h2Only.on('stream', (stream) => {
    stream.respond({ ':status': 200 });
    stream.end('[]');
  });
  const url = `https://127.0.0.1:${await listenOnLoopback(h2Only)}`;
  const message = await preflightMessage({ RSF_TARGET_URL: url });
  h2Only.close();
  // Without HTTP/1.1 named in the handshake, Node's HTTP/2 server answered 403, read as a refused token.
  expect(message).toMatch(/got no answer: the target refused HTTP\/1\.1 in the TLS handshake/);
  expect(message).toMatch(/it speaks only HTTP\/2 or another protocol, and the suite speaks HTTP\/1\.1/);
  expect(message).not.toMatch(/RSF_BEARER_TOKEN/);
});

test('a target that offers only TLS 1.0 or 1.1: named, with how to test it as it is, not as OpenSSL says', async () => {
  const legacy = createHttpsServer(
    {
      key: readFileSync(SELF_SIGNED_KEY),
      cert: readFileSync(SELF_SIGNED_CERT),
      minVersion: 'TLSv1',
      maxVersion: 'TLSv1.1',
      ciphers: 'DEFAULT@SECLEVEL=0',
    },
    (_, res) => res.end('[]'),
  );
  const url = `https://127.0.0.1:${await listenOnLoopback(legacy)}`;
  const message = await preflightMessage({ RSF_TARGET_URL: url });
  legacy.close();
  expect(message).toContain(
    "the target's TLS versions and this client's do not meet (protocol version): the target offers only TLS 1.0 or " +
      '1.1, which Node refuses by default. The target should offer TLS 1.2 or later; to test it as it is, run with ' +
      "NODE_OPTIONS='--tls-min-v1.0 --tls-cipher-list=DEFAULT@SECLEVEL=0'",
  );
  expect(message).not.toMatch(/ssl3_read_bytes|openssl/);
});

test('a target that asks for a client certificate: named at the preflight; with one, the run passes', async () => {
  const mutual = selfSignedServer((req, res) => forward(reference().url, req, res), { requireClientCertificate: true });
  const target = { RSF_TARGET_URL: `https://127.0.0.1:${await listenOnLoopback(mutual)}` };
  const trusted = { ...target, ...token, NODE_EXTRA_CA_CERTS: SELF_SIGNED_CERT };
  const certificate = { RSF_TLS_CLIENT_CERT: SELF_SIGNED_CERT, RSF_TLS_CLIENT_KEY: SELF_SIGNED_KEY };
  try {
    const [without, withCertificate] = await Promise.all([
      suiteAgainst(trusted),
      suiteAgainst({ ...trusted, ...certificate, ...CONFORMING }, ['prices.spec.ts']),
    ]);
    const refused = /refused the TLS connection without a client certificate it accepts \(ERR_SSL_TLSV13_ALERT_CER/;
    expectOneClearError(
      without,
      new RegExp(`${refused.source}.*; give one in RSF_TLS_CLIENT_CERT and RSF_TLS_CLIENT_KEY`),
    );
    expect(withCertificate.code, withCertificate.output).toBe(0);
    expect(lastLine(withCertificate.stdout)).toMatch(/^Conformance: PASS/);
  } finally {
    mutual.close();
  }
});

/** The preflight's message against a server that gives every request the same answer. */
async function preflightAgainstAnswer(
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
  env: Record<string, string> = {},
): Promise<string> {
  const server = createHttpServer((_, res) => {
    res.writeHead(status, { 'content-type': contentType, ...headers });
    res.end(body);
  });
  const url = await loopbackUrl(server);
  try {
    return await preflightMessage({ ...env, RSF_TARGET_URL: url });
  } finally {
    server.close();
  }
}

test('a redirect to the path with a trailing slash: no base URL helps, and the message says so', async () => {
  const server = createHttpServer((req, res) => res.writeHead(308, { location: `${req.url}/` }).end());
  const url = await loopbackUrl(server);
  try {
    const message = await preflightMessage({ RSF_TARGET_URL: url });
    expect(message).toMatch(/HTTP 308 redirects to \/v1\/prices\/: the same path with a trailing slash/);
    expect(message).not.toContain('Set RSF_TARGET_URL');
  } finally {
    server.close();
  }
});

test('a redirect to another host: the API moved there, or a sign-in page stands in front of it', async () => {
  const location = 'https://sso.example.test/authorize?rd=%2Fv1%2Fprices';
  const message = await preflightAgainstAnswer(302, 'text/html', '', { location });
  expect(message).toContain(
    `HTTP 302 redirects to ${location}, another host. Set RSF_TARGET_URL to it if the API moved there; if it is a ` +
      'sign-in page, a gateway or single sign-on stands in front of the API',
  );
});

test('a target that answers a web page', async () => {
  const message = await preflightAgainstAnswer(200, 'text/html', '<!doctype html><title>Welcome</title>');
  expect(message).toMatch(/does not look like the Reseller Storefront API/);
});

test('a target that fails with a server error page: the target is failing, not another site', async () => {
  const message = await preflightAgainstAnswer(500, 'text/html', '<h1>Internal Server Error</h1>');
  expect(message).toMatch(/HTTP 500: the target is failing\. Body: <h1>Internal Server Error<\/h1>/);
  expect(message).not.toMatch(/does not look like/);
  // A gateway's 502 is its own answer, for an API down behind it (indep96: both instances restarting behind nginx).
  const gateway = await preflightAgainstAnswer(502, 'text/html', '<h1>502 Bad Gateway</h1>');
  expect(gateway).toMatch(/HTTP 502: a gateway in front of the API answered for it: the API behind it is down or fail/);
});

test('a target that refuses the token', async () => {
  const refusing = await startReferenceServer({ bearerToken: 'another-token-entirely' });
  const message = await preflightMessage({
    RSF_TARGET_URL: refusing.url,
    RSF_BEARER_TOKEN: 'the-token-we-were-given',
  });
  await refusing.close();
  expect(message).toMatch(/refused RSF_BEARER_TOKEN/);
  expect(message).not.toContain('the-token-we-were-given');
});

test('a token refused with only WWW-Authenticate to say why, as OAuth servers do: the message shows it', async () => {
  const challenge = 'Bearer error="invalid_token", error_description="Jwt expired at 2026-11-27T10:00:00Z"';
  const message = await preflightAgainstAnswer(401, '', '', { 'www-authenticate': challenge });
  const refused = 'HTTP 401: the target refused RSF_BEARER_TOKEN. Set a valid access token (§5).';
  expect(message).toContain(`${refused} It says: WWW-Authenticate: ${challenge}.`);
});

test('a token refused by PHP behind Apache: the message says Apache may not pass the header on', async () => {
  // indep94: mod_proxy_fcgi without CGIPassAuth; the message blamed the valid token alone.
  const headers = { server: 'Apache/2.4.68 (Debian)', 'x-powered-by': 'PHP/8.2.32' };
  const message = await preflightAgainstAnswer(401, 'text/plain', 'Not authenticated', headers);
  expect(message).toContain(
    'HTTP 401: the target refused RSF_BEARER_TOKEN. Set a valid access token (§5). If the token is valid: the ' +
      'answer names PHP/8.2.32, Apache/2.4.68 (Debian), and PHP behind Apache (mod_proxy_fcgi, CGI) does not see ' +
      'the Authorization header unless Apache passes it on (CGIPassAuth On, since Apache 2.4.13).',
  );
  const elsewhere = await preflightAgainstAnswer(401, 'text/plain', 'Not authenticated', { server: 'nginx' });
  expect(elsewhere).not.toContain('CGIPassAuth');
});

test('a web server in front of the API asks for a password (HTTP Basic): named, the token not blamed', async () => {
  const page = '<html><body><h1>401 Authorization Required</h1></body></html>';
  const message = await preflightAgainstAnswer(401, 'text/html', page, { 'www-authenticate': 'Basic realm="staging"' });
  expect(message).toContain(
    'HTTP 401: the target asks for Basic credentials (WWW-Authenticate: Basic realm="staging"), not the bearer ' +
      'token of §5: a web server or gateway in front of the API wants credentials of its own.',
  );
  expect(message).not.toContain('refused RSF_BEARER_TOKEN');
});

test('a proxy on the way asks for credentials (HTTP 407), no proxy variable set: named, with the way out', async () => {
  const message = await preflightAgainstAnswer(407, 'text/html', '<h1>Proxy Authentication Required</h1>', {
    'proxy-authenticate': 'Basic realm="egress"',
  });
  expect(message).toContain(
    'HTTP 407: a proxy on the way asks for credentials (Proxy-Authenticate: Basic realm="egress"), and no proxy ' +
      'variable names one for this target: set HTTP_PROXY to it',
  );
  expect(message).not.toMatch(/does not look like|RSF_BEARER_TOKEN/);
});

test('a firewall that refuses the request with a web page: named as a possible cause, with the page', async () => {
  const page = '<html><head><title>403 Forbidden</title></head><body>Request blocked.</body></html>';
  const message = await preflightAgainstAnswer(403, 'text/html', page);
  expect(message).toMatch(/HTTP 403 with markup \(text\/html\), not JSON: a firewall or proxy in front of the API/);
  expect(message).toContain('Request blocked.');
});

test("a gateway that wants a key of its own (API Management's subscription key): RSF_EXTRA_HEADERS", async () => {
  // Before: `HTTP 401: the target refused RSF_BEARER_TOKEN. Set a valid access token (§5)`, for a token never judged.
  const apim =
    '{ "statusCode": 401, "message": "Access denied due to missing subscription key. Make sure to include ' +
    'subscription key when making requests to an API." }';
  const kong = '{"message":"No API key found in request"}';
  for (const [status, body] of [
    [401, apim],
    [401, kong],
    [403, '{"error":"invalid api_key"}'],
  ] as const) {
    const message = await preflightAgainstAnswer(status, 'application/json', body);
    expect(message, body).toContain(
      `HTTP ${status}: a gateway in front of the API asks for a key of its own, not the bearer token of §5 (Azure ` +
        'API Management wants its subscription key in Ocp-Apim-Subscription-Key; others an API key): send it',
    );
  }
  // A key sent, and refused: named by its header, never its value.
  const invalid = '{ "statusCode": 401, "message": "Access denied due to invalid subscription key." }';
  const withKey = await preflightAgainstAnswer(
    401,
    'application/json',
    invalid,
    {},
    {
      RSF_EXTRA_HEADERS: '{"Ocp-Apim-Subscription-Key":"0123456789abcdef"}',
    },
  );
  expect(withKey).toContain(
    'RSF_EXTRA_HEADERS sends Ocp-Apim-Subscription-Key: the gateway refused that key, or wants it under another name.',
  );
  expect(withKey).not.toContain('0123456789abcdef');
  // The API's own refusal of the token is still the token's; an expired JWT says so, by its exp claim.
  const refused = await preflightAgainstAnswer(401, 'application/json', '{"error":"invalid_token"}');
  expect(refused).toContain('HTTP 401: the target refused RSF_BEARER_TOKEN.');
  const { jwt, expiredAt } = expiredJwt(3600);
  const expired = await preflightAgainstAnswer(401, 'application/json', '', {}, { RSF_BEARER_TOKEN: jwt });
  expect(expired).toContain(
    `Set a valid access token (§5). The token is a JWT whose exp claim says it expired at ${expiredAt},`,
  );
  expect(expired).not.toContain(jwt);
});

test('AWS API Gateway\'s "Missing Authentication Token" names the base URL first: it has no such route', async () => {
  // A REST API answers so for any path it has no route for (a base URL without its stage), whatever the token: the
  // message blamed the token, or a gateway's key, first.
  const body = '{"message":"Missing Authentication Token"}';
  const header = { 'x-amzn-errortype': 'MissingAuthenticationTokenException' };
  for (const headers of [header, {}]) {
    const message = await preflightAgainstAnswer(403, 'application/json', body, headers);
    expect(message).toContain('HTTP 403 "Missing Authentication Token": AWS API Gateway answers so for a path it has');
    expect(message).toMatch(/no route for, whatever the token: check RSF_TARGET_URL=http:\/\/127\.0\.0\.1:\d+, which/);
  }
});

test('an API gateway that wants a key: RSF_EXTRA_HEADERS sends it with every request', async () => {
  const keys: (string | string[] | undefined)[] = [];
  const gatewayOnly = await startHostileTarget({
    upstream: reference().url,
    misbehave: (req, res) => {
      keys.push(req.headers['x-api-key']);
      if (req.headers['x-api-key'] === 'k3y-of-the-gateway') return false;
      res.writeHead(403, { 'content-type': 'application/json' }).end('{"message":"Forbidden"}');
      return true;
    },
  });
  const { url } = gatewayOnly;
  try {
    expect(await preflightMessage({ ...token, RSF_TARGET_URL: url })).toContain(
      'HTTP 403: the target refused the request. Either RSF_BEARER_TOKEN is not valid, or may not read the price ' +
        'list (§5), or what stands in front of the API refuses it: an API gateway that wants a key of its own ' +
        '(RSF_EXTRA_HEADERS sends it), an IP allowlist or a resource policy that does not let this machine in, or ' +
        `one that routes by a part of the path RSF_TARGET_URL=${url} lacks (a stage, https://…/prod; indep114). ` +
        'Body: {"message":"Forbidden"}',
    );
    keys.length = 0;
    const withKey = await preflightOutcome({
      ...token,
      ...CONFORMING,
      RSF_TARGET_URL: url,
      RSF_EXTRA_HEADERS: JSON.stringify({ 'x-api-key': 'k3y-of-the-gateway' }),
    });
    expect(withKey.failed).toBeUndefined();
    expect(keys.length, 'the price list, then the settings read').toBeGreaterThan(1);
    expect(new Set(keys)).toEqual(new Set(['k3y-of-the-gateway']));
  } finally {
    await gatewayOnly.close();
  }
});

test("a target that throttles the preflight's reads side by side: it passes, and hands the slow-down on", async () => {
  let throttled = 0;
  const limited = await startHostileTarget({
    upstream: reference().url,
    misbehave: (req, res) => {
      if (!req.url?.includes('/item/') || throttled > 0) return false;
      throttled++;
      res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' }).end('{"message":"slow down"}');
      return true;
    },
  });
  try {
    const outcome = await preflightOutcome({ ...token, ...CONFORMING, RSF_TARGET_URL: limited.url });
    expect(outcome.failed).toBeUndefined();
    // The runner runs no test: the first test of a worker to end carries it into the reports (fixtures.ts).
    expect(
      outcome.handedOver.map((slowDown) => slowDown.status),
      'the run slowed down, for a test to say',
    ).toEqual([429]);
  } finally {
    await limited.close();
  }
});

test('a target that refuses the token is asked once: the reads of the settings would only repeat it', async () => {
  let requests = 0;
  const refusing = createHttpServer((_, res) => {
    requests++;
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end('{"error_message":"invalid token"}');
  });
  const url = await loopbackUrl(refusing);
  // Under a rate cap, as against any external target unless told otherwise.
  const message = await preflightMessage({ RSF_TARGET_URL: url, RSF_MAX_REQUESTS_PER_SECOND: '10' });
  refusing.close();
  // The target's own words, which may say why (expired, wrong audience).
  expect(message).toMatch(
    /HTTP 401: the target refused RSF_BEARER_TOKEN\. .* Body: \{"error_message":"invalid token"\}/,
  );
  expect(requests, 'requests the preflight sent').toBe(1);
});

test('a target that refuses the token with HTTP 200 and an error body', async () => {
  const refusing = await startReferenceServer({ bearerToken: 'another-token-entirely' });
  const message = await preflightMessage({
    RSF_TARGET_URL: `${refusing.url}/_modes/deployment`,
    RSF_BEARER_TOKEN: 'the-token-we-were-given',
  });
  await refusing.close();
  expect(message).toMatch(
    /HTTP 200, but not the price list of §4\.9: not authenticated[\s\S]*Does the target accept RSF_BEARER_TOKEN/,
  );
});

test('a price list in an object, or in another format: the token is accepted, its test judges the shape', async () => {
  const entry = { id: 48213, sku: 'LMN-NB14', currencyQuote: 1, value: 1500.5, iva: 21, finalPrice: 1815.61 };
  const prices = /\/prices$/;
  const json = { 'content-type': 'application/json' };
  const other = { ...entry, id: 48214, sku: 'LMN-NB15' };
  // Under a member; keyed by id, as PHP's json_encode writes an array whose keys are ids; or deeper in.
  const columns = Object.keys(entry);
  const shapes = [
    { items: [entry, other], count: 2 },
    { 48213: entry, 48214: other },
    { data: { prices: [entry, other] }, meta: { page: 1 } },
    // Columns and rows (pandas' split form), one entry a line (NDJSON), a CSV export: they name §2.7's fields.
    { columns, index: [0, 1], data: [entry, other].map((e) => Object.values(e)) },
    `${JSON.stringify(entry)}\n${JSON.stringify(other)}\n`,
    `${columns.join(',')}\n${Object.values(entry).join(',')}\n`,
  ];
  // A list under a member that holds no price entries is no price list: as far as the preflight can tell, a refusal.
  const errors = JSON.stringify({ errors: [{ code: 'unauthorized', detail: 'token expired' }] });
  const answering = (body: string) =>
    startHostileTarget({ upstream: reference().url, misbehave: answerFor(prices, body, json) });
  const inObjects = await Promise.all(
    shapes.map((shape) => answering(typeof shape === 'string' ? shape : JSON.stringify(shape))),
  );
  const refusal = await answering(errors);
  try {
    const outcomes = await Promise.all(inObjects.map(({ url }) => preflightOutcome({ ...token, RSF_TARGET_URL: url })));
    for (const [i, outcome] of outcomes.entries()) expect(outcome.failed, `${i}`).toBeUndefined();
    expect(await preflightMessage({ ...token, RSF_TARGET_URL: refusal.url })).toMatch(
      /HTTP 200, but not the price list of §4\.9: \{"errors"[\s\S]*Does the target accept RSF_BEARER_TOKEN/,
    );
  } finally {
    await Promise.all([...inObjects, refusal].map((target) => target.close()));
  }
});

test('a target that serves the API without /v1: the preflight says so, naming GEN-V1-PREFIX (§9)', async () => {
  const json = { 'content-type': 'application/json' };
  const list = JSON.stringify([{ id: 7, sku: 'S-7', currencyQuote: 1, value: 100, iva: 21, finalPrice: 121 }]);
  /** A target with nothing under /v1, and `prices` at /prices. */
  const withoutV1At = (prices: string) =>
    startHostileTarget({
      upstream: reference().url,
      misbehave: (req, res, index) => {
        if (!(req.url ?? '').startsWith('/v1/')) return answerFor(/^\/prices$/, prices, json)(req, res, index);
        res.writeHead(404, json).end('{"error":"unknown path"}');
        return true;
      },
    });
  const withoutV1 = await withoutV1At(list);
  // Another endpoint at that path, found under a wrong base path: a JSON array, but no price list.
  const legacy = await withoutV1At('[{"name":"old price"}]');
  try {
    expect(await preflightMessage({ ...token, RSF_TARGET_URL: withoutV1.url })).toMatch(
      /leads to no API[\s\S]*\n {2}GET \S+\/prices, without \/v1, answers a price list: .*\(GEN-V1-PREFIX\)\.$/,
    );
    expect(await preflightMessage({ ...token, RSF_TARGET_URL: legacy.url })).not.toContain('GEN-V1-PREFIX');
  } finally {
    await Promise.all([withoutV1.close(), legacy.close()]);
  }
});

test('an invalid setting stops the run with a message naming it', async () => {
  const run = await suiteAgainst({ RSF_REQUEST_TIMEOUT_MS: '5', RSF_PLACE_ID: 'not json' });
  expect(run.code).toBe(2);
  expect(run.output).toMatch(
    new RegExp(
      /Invalid configuration[\s\S]*RSF_REQUEST_TIMEOUT_MS: expected a number from 100 to 120000/.source +
        /[\s\S]*RSF_PLACE_ID: not valid JSON/.source,
    ),
  );
  expect(run.output, 'no test ran').not.toMatch(/^\s*\d+ (passed|failed)/m);
  // What stopped the run follows the target's line, not "Running 0 tests", as if no test had been found.
  expect(run.stdout).toMatch(/^Target: invalid configuration, read-only$/m);
  expect(run.stdout).not.toMatch(/^Running /m);
  // Its report goes where RSF_REPORTS_DIR says, though other settings are invalid: a CI job uploads it from there.
  expect(readReport(run.reportsDir).summary.verdict).toBe('ERROR');
});

test('a baseline or waivers file that cannot be used stops the run before any test, said once', async () => {
  const dir = scratchDir('files');
  writeFileSync(join(dir, 'baseline.json'), '{not json');
  writeFileSync(join(dir, 'waivers.json'), '[{"id": "OP4-UTILITY-MAX"}]');
  const run = await suiteAgainst({
    RSF_BASELINE: join(dir, 'baseline.json'),
    RSF_FAIL_ON: 'regression',
    RSF_WAIVERS_FILE: join(dir, 'waivers.json'),
  });
  expect(run.code, run.output).toBe(2);
  expect(lastLine(run.stdout)).toMatch(/^Conformance: ERROR — the configuration is invalid: .*\(and 1 more problem\)/);
  const rest = run.output.replace(lastLine(run.stdout), '');
  expect(rest.match(/RSF_BASELINE: \S+baseline\.json cannot be read as JSON/g) ?? [], 'said once').toHaveLength(1);
  expect(rest.match(/waivers\.json, entry 1 \(OP4-UTILITY-MAX\): a reason is required/g) ?? []).toHaveLength(1);
  expect(run.output, 'no test ran').not.toMatch(/^\s*\d+ (passed|failed)/m);
});

test('a reports folder that cannot be made stops the run before any test: ERROR, said once, no report', async () => {
  const dir = scratchDir('reports-dir');
  writeFileSync(join(dir, 'a-file'), '');
  const reportsDir = join(dir, 'a-file', 'reports');
  const run = await suiteAgainst({ RSF_REPORTS_DIR: reportsDir });
  expect(run.code, run.output).toBe(2);
  const problem = `RSF_REPORTS_DIR: the reports cannot be written to ${reportsDir} (ENOTDIR`;
  const verdict = lastLine(run.stdout);
  expect(verdict.startsWith(`Conformance: ERROR — the configuration is invalid: ${problem}`), verdict).toBe(true);
  expect(verdict).toMatch(/\(no report written\)$/);
  expect(run.output.replace(verdict, '').split(problem), 'said once').toHaveLength(2);
  expect(run.output, 'no test ran').not.toMatch(/^\s*\d+ (passed|failed)/m);
});

test('reports that cannot be written after the tests ran: ERROR, and the run leaves no folder behind', async () => {
  const dir = scratchDir('reports-unwritable');
  const reportsDir = join(dir, 'reports');
  // The folder can be made, but conformance.json cannot be written: a folder stands where the file goes.
  mkdirSync(join(reportsDir, 'conformance.json'), { recursive: true });
  const run = await runPlaywright(
    ['test', 'tests/conformance/prices.spec.ts', '--output', join(dir, 'results')],
    { RSF_REPORTS_DIR: reportsDir },
    60_000,
  );
  expect(run.code, run.stdout + run.stderr).toBe(2);
  expect(lastLine(run.stdout)).toMatch(/RSF_REPORTS_DIR: the reports could not be written to .*\(reports incomplete\)/);
  expect(run.stderr).toMatch(/^Conformance reporter: RSF_REPORTS_DIR: the reports could not be written to .*EISDIR/m);
  // The workers' exchanges, which no recording took, go as they would have (run-folders.ts names them by runner).
  expect(foldersLeftBy(run)).toEqual([]);
});

test('run from another folder, a relative RSF_REPORTS_DIR is checked where the reports go: by the config', async () => {
  // Before, the global setup checked (and made) it under the working directory, while the reporter wrote beside the
  // config: a run from a folder it cannot write to ended in ERROR for a reports folder it would never use.
  const cwd = scratchDir('elsewhere');
  const scratch = scratchDir('reports-relative');
  const reportsDir = relative(REPO_ROOT, join(scratch, 'reports'));
  const run = await runPlaywright(
    ['test', '-c', join(REPO_ROOT, 'playwright.config.ts'), 'prices.spec.ts', '-g', 'lists prices as'],
    { RSF_REPORTS_DIR: reportsDir },
    60_000,
    { cwd },
  );
  expect(run.code, run.stdout + run.stderr).toBe(0);
  expect(readdirSync(cwd), 'nothing made in the working directory').toEqual([]);
  expect(readReport(join(scratch, 'reports')).summary.verdict).toBe('PASS');
  expect(readdirSync(join(scratch, 'reports')), 'its lock released (reports-lock.spec.ts)').not.toContain(REPORTS_LOCK);
});

test('a checkout it may not write to (an image run as another user): the run writes in RSF_REPORTS_DIR', async () => {
  // Before, Playwright's own output went to the checkout's test-results/: the run ended in a stack trace, exit 1, and
  // no verdict. A last-run file that cannot be written cost the verdict line too, and gave exit 1.
  const scratch = scratchDir('read-only-checkout');
  chmodSync(scratch, 0o755); // made for this process's user alone
  const user = anotherUser(scratch);
  test.skip(!user, 'needs root, to run the suite as nobody, who can read the checkout and the scratch folder');
  const reportsDir = join(scratch, 'reports');
  mkdirSync(reportsDir, { mode: 0o777 });
  chmodSync(reportsDir, 0o777);
  const lastRun = join(scratch, 'last-run.json');
  writeFileSync(lastRun, '{ "status": "passed", "failedTests": [] }', { mode: 0o644 });
  const run = await runPlaywright(
    ['test', 'prices.spec.ts', '-g', 'lists prices as', '--last-failed-file', lastRun],
    { RSF_REPORTS_DIR: reportsDir },
    60_000,
    { user },
  );
  expect(run.code, run.stdout + run.stderr).toBe(0);
  expect(lastLine(run.stdout)).toMatch(/^Conformance: PASS — /);
  expect(run.stderr).toContain(`${lastRun} could not be written (EACCES`);
  expect(readReport(reportsDir).summary.verdict).toBe('PASS');
});

test('a price list over RSF_MAX_RESPONSE_BYTES: the token was accepted, and the run goes on', async () => {
  const entry = { id: 1001, sku: 'SKU-1001', currencyQuote: 1, value: 1500.5, iva: 21, finalPrice: 1815.61 };
  const prices = /\/prices$/;
  const json = { 'content-type': 'application/json' };
  const list = JSON.stringify(Array.from({ length: 40 }, () => entry));
  const large = await startHostileTarget({ upstream: reference().url, misbehave: answerFor(prices, list, json) });
  // Sent without Content-Length: its size is not announced, only that it is over the cap.
  const notAList = await startHostileTarget({
    upstream: reference().url,
    misbehave: (req, res) => {
      if (!prices.test(req.url ?? '')) return false;
      res.writeHead(200, json).end(JSON.stringify({ entries: Array.from({ length: 40 }, () => entry) }));
      return true;
    },
  });
  try {
    const capped = { ...token, RSF_MAX_RESPONSE_BYTES: '1024' };
    // Its tests are inconclusive, each naming the setting (api-client.ts); every other test is judged.
    expect((await preflightOutcome({ ...capped, RSF_TARGET_URL: large.url })).failed).toBeUndefined();
    const message = await preflightMessage({ ...capped, RSF_TARGET_URL: notAList.url });
    expect(message).toMatch(
      /HTTP 200 with a body over RSF_MAX_RESPONSE_BYTES=1024 that does not begin as the price list/,
    );
    expect(message, 'what was read is no whole body').toMatch(/: \{.*… \(more than 1024 bytes; read no further\)$/);
  } finally {
    await Promise.all([large.close(), notAList.close()]);
  }
});

test("a server error to a setting's read: the target is failing, the setting only a possible cause", async () => {
  const serverError = answerFor(
    /\/paymentVoucher\//,
    '<h1>Internal Server Error</h1>',
    { 'content-type': 'text/html' },
    500,
  );
  const failing = await startHostileTarget({ upstream: reference().url, misbehave: serverError });
  try {
    const message = await preflightMessage({ ...token, RSF_TARGET_URL: failing.url });
    expect(message).toMatch(
      /GET \S+\/paymentVoucher\/\S+\n {2}HTTP 500 \(operation 10, §4\.10\): the target is failing\. Body: <h1>/,
    );
    expect(message).toMatch(
      /The request carries RSF_VOUCHER_BRANCH=\S+, RSF_VOUCHER_ORDER=\S+: if the target fails on/,
    );
    expect(message).not.toMatch(/do(es)? not name what the target has/);
  } finally {
    await failing.close();
  }
});

test("a 3xx or a 428 to a setting's read: what the target did is named, not the setting", async () => {
  // A framework that appends a slash to one route (Django's APPEND_SLASH, say), and a route moved elsewhere.
  const slash: Misbehaviour = (req, res) => {
    if (!/\/miCuenta\/pedidos\/[^/]+\/[^/]+$/.test(req.url ?? '')) return false;
    res.writeHead(301, { location: `${req.url}/` }).end();
    return true;
  };
  const cases: [Misbehaviour, RegExp | string][] = [
    [slash, /HTTP 301 redirects to \/v1\/miCuenta\/pedidos\/\S+\/: the same path with a trailing slash/],
    [
      answerFor(/\/paymentVoucher\//, '', { location: '/v1/vouchers/0001/00012345' }, 302),
      'HTTP 302 redirects to /v1/vouchers/0001/00012345. The target answers operation 10 (GET ' +
        "/v1/paymentVoucher/{branch}-{order}, §4.10) at another path than the spec's.",
    ],
    // A cache that answers 304 to a request that asked for no cached copy; an update that demands If-Match.
    [
      answerFor(/\/miCuenta\/pedidos\//, '', {}, 304),
      /HTTP 304 \(Not Modified\) to a request that was not conditional/,
    ],
    [
      answerFor(/\/miCuenta\/shippingAddress/, '{"success":"error","msg":"If-Match required"}', {}, 428),
      /HTTP 428 \(Precondition Required\): the target wants operation 3 \(PATCH \S+, §4\.3\) sent as a conditional/,
    ],
  ];
  for (const [misbehave, said] of cases) {
    const message = await messageBehind(misbehave, { RSF_ALLOW_WRITES: 'true' });
    expect(message).toMatch(said);
    expect(message).not.toMatch(/do(es)? not name what the target has/);
  }
});

test("an answer to a setting's read that breaks HTTP: that read is named, not RSF_TARGET_URL", async () => {
  // A space before the colon (RFC 9112 §5.1 forbids it), on the answer of one route only.
  const broken = rawAnswer('HTTP/1.1 500 Internal Server Error\r\nContent-Type : text/plain\r\n\r\nno such product');
  const misbehave: Misbehaviour = (req, res) => /\/item\//.test(req.url ?? '') && broken(req, res, 1);
  const message = await messageBehind(misbehave);
  expect(message).toContain('the answer is not valid HTTP/1.1: Invalid header token (HPE_INVALID_HEADER_TOKEN)');
  expect(message).toContain('It answered the price list in HTTP: this answer breaks HTTP/1.1 on operation 8');
  // Before: "Check RSF_TARGET_URL, and that the server is up", of a target that had answered the price list.
  expect(message).not.toContain('Check RSF_TARGET_URL');
});

test('a price list in a coding the suite did not ask for: the coding is named, not RSF_TARGET_URL', async () => {
  const zstd = answerFor(/\/prices/, '(\xb5/\xfd not json', { 'content-encoding': 'zstd' });
  const message = await messageBehind(zstd);
  expect(message).toContain(
    "The target's answer could not be read: the body is in the zstd content coding, which the suite did not ask " +
      'for (Accept-Encoding: gzip, deflate, br) and cannot read.',
  );
  expect(message).not.toContain('Check RSF_TARGET_URL');
});

test('writes refused with 403, as to an account that reads only: the message says to leave writes off', async () => {
  const readOnly = await startHostileTarget({ upstream: reference().url, misbehave: writesRefusedFor(secrets.bearer) });
  try {
    const message = await preflightMessage({ ...token, RSF_TARGET_URL: readOnly.url, RSF_ALLOW_WRITES: 'true' });
    expect(message).toMatch(/2 settings do not name what the target has/);
    expect(message).toMatch(/RSF_CATEGORY_ID=\S+, RSF_CATEGORY_FIELDS=.* answered HTTP 403: \{"error":"forbidden"/);
    expect(message).toMatch(/RSF_ADDRESS_ID=\S+, .* answered HTTP 403: /);
    // No setting mends a target that refuses a valid update: the message says that it may be the one at fault.
    expect(message).toContain('the target refused an update with every field §4.3 requires');
    expect(message.match(/may not be allowed to write/g), 'said once, after the settings').toHaveLength(1);
    expect(message).toMatch(/Use a token whose account may write, or leave RSF_ALLOW_WRITES off\.$/);
  } finally {
    await readOnly.close();
  }
});

test("a read refused for the token's scope: the setting is named, and the scope the target asks for", async () => {
  // An OAuth server whose token reads prices but not post-sale channels (RFC 6750 §3.1, insufficient_scope).
  const challenge = 'Bearer error="insufficient_scope", scope="postsale:read"';
  const scoped = await startHostileTarget({
    upstream: reference().url,
    misbehave: (req, res) => {
      if (!req.url?.startsWith('/v1/postventa/') || req.headers.authorization !== `Bearer ${secrets.bearer}`)
        return false;
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': challenge });
      res.end('{"error":"insufficient_scope"}');
      return true;
    },
  });
  try {
    const message = await preflightMessage({ ...token, RSF_TARGET_URL: scoped.url });
    expect(message).toMatch(/RSF_POSTSALE_ID=\S+: GET .* answered HTTP 401: \{"error":"insufficient_scope"\}/);
    expect(message).toContain(
      'A read was refused with HTTP 401 or 403, although the target took RSF_BEARER_TOKEN for the price list: the ' +
        `token may lack the rights or the scope to read it. The target says: WWW-Authenticate: ${challenge}.`,
    );
  } finally {
    await scoped.close();
  }
});

// A product that exists, named as missing, stops the run (the next test). One that a target finds whatever it is asked
// for does not: a made-up id is found too, so the setting is not to blame, and OP8-UNKNOWN-PRODUCT's test judges it.
test('a target that finds any product: RSF_MISSING_PRODUCT_ID is not blamed, and the run goes on', async () => {
  const detail = await fetch(`${reference().url}/v1/item/1001`, {
    headers: { authorization: `Bearer ${secrets.bearer}` },
  }).then((r) => r.text());
  const found = answerFor(/\/item\//, detail, { 'content-type': 'application/json' });
  let askedMissing = 0;
  const findsAny = await startHostileTarget({
    upstream: reference().url,
    misbehave: (req, res, index) => {
      // The default RSF_MISSING_PRODUCT_ID (999999), and a made-up id of 12 digits.
      if (/\/item\/(999999|\d{12})\b/.test(req.url ?? '')) askedMissing++;
      return found(req, res, index);
    },
  });
  try {
    expect((await preflightOutcome({ ...token, RSF_TARGET_URL: findsAny.url })).failed).toBeUndefined();
    expect(askedMissing, 'RSF_MISSING_PRODUCT_ID and the made-up id, each once').toBe(2);
  } finally {
    await findsAny.close();
  }
});

// §4.8 documents the failure to obtain a product as a plain string, an internal server error message in its sample:
// a 500 is how many servers send it, and a missing product's read that gets one is that failure, not a target failing.
test('RSF_MISSING_PRODUCT_ID answered 500 with a plain string: the §4.8 failure, the run goes on', async () => {
  const failure = '"Internal server error: the product could not be obtained"';
  const missing = answerFor(/\/item\/999999\b/, failure, { 'content-type': 'application/json' }, 500);
  const target = await startHostileTarget({ upstream: reference().url, misbehave: missing });
  try {
    expect((await preflightOutcome({ ...token, RSF_TARGET_URL: target.url })).failed).toBeUndefined();
  } finally {
    await target.close();
  }
});

test('a read that times out after the price list answered: the URL and the server are not blamed', async () => {
  // indep111: one thread serving a kept-alive connection until the client lets it go kept the reads side by side
  // waiting, and the message said to check RSF_TARGET_URL and that the server is up.
  const oneRead: Misbehaviour = (req, res, index) => /\/v1\/item\/1001\b/.test(req.url ?? '') && hang(req, res, index);
  const message = await messageBehind(oneRead, { RSF_REQUEST_TIMEOUT_MS: '800' });
  expect(message).toContain('did not answer within RSF_REQUEST_TIMEOUT_MS=800');
  expect(message).toContain('It answered the price list: the URL is right and the server up.');
  expect(message).toContain('RSF_KEEP_ALIVE=false sends each request on a connection of its own');
  expect(message, 'a serverless cold start (indep114)').toContain('RSF_REQUEST_TIMEOUT_MS above its longest cold');
  expect(message).not.toContain('Check RSF_TARGET_URL');
});

test("a CDN's bot challenge (403, Just a moment...): named, with the rule that lets the suite through", async () => {
  // indep117: it was said to be a firewall's refusal, or the API's of RSF_BEARER_TOKEN, with no remedy.
  const page =
    '<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head><body>' +
    '<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script></body></html>';
  const challenge: Misbehaviour = (_req, res) => {
    res.writeHead(403, { 'content-type': 'text/html; charset=UTF-8', 'cf-mitigated': 'challenge' }).end(page);
    return true;
  };
  const message = await messageBehind(challenge);
  expect(message).toContain('HTTP 403 with a bot challenge');
  expect(message).toContain('a rule that skips the challenge for its User-Agent');
  expect(message).not.toContain('or the API refused RSF_BEARER_TOKEN');
});

test('a category update refused with one value of hide and taken with the other: the target is named', async () => {
  // indep110, indep118: a validator that reads hide false as missing (Go's binding:"required") was blamed on the
  // settings, which named a category the target has.
  const hideFalseRefused: Misbehaviour = (req, res) => {
    if (req.method !== 'PATCH' || !/\/v1\/miCuenta\/misCategorias$/.test(req.url ?? '')) return false;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (JSON.parse(body).hide === false)
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"success":false,"msg":"hide is required"}');
      else forward(reference().url, req, res, { body });
    });
    return true;
  };
  const target = await startHostileTarget({ upstream: reference().url, misbehave: hideFalseRefused });
  try {
    const settings = { ...token, RSF_TARGET_URL: target.url, RSF_ALLOW_WRITES: 'true' };
    const fields = (hide: boolean) => JSON.stringify({ utility: 40, description: 'Conformance suite', hide });
    const message = await preflightMessage({ ...settings, RSF_CATEGORY_FIELDS: fields(false) });
    expect(message).toContain('with hide false refused, and with hide true carried out: the target refuses one');
    expect(message).not.toContain('A setting does not name');
    // Configured with the value it takes, the preflight passes: the tests then show the refusal of the other.
    expect((await preflightOutcome({ ...settings, ...CONFORMING, RSF_CATEGORY_FIELDS: fields(true) })).failed).toBe(
      undefined,
    );
  } finally {
    await target.close();
  }
});

test('an id whose type the spec leaves open, refused, is named with the other JSON type to try', async () => {
  // indep107: RSF_CATEGORY_ID="10" to a target that types categoryId as a C# int was refused as naming nothing.
  const message = await preflightMessage({
    ...token,
    RSF_TARGET_URL: reference().url,
    RSF_ALLOW_WRITES: 'true',
    RSF_CATEGORY_ID: '"424242"',
  });
  expect(message).toMatch(/RSF_CATEGORY_ID="424242", RSF_CATEGORY_FIELDS=.* answered HTTP 4\d\d/);
  expect(message).toContain(
    'RSF_CATEGORY_ID is a JSON string ("424242"), and §4.4 leaves categoryId\'s type open: a target that takes the ' +
      'other refuses it, so try 424242',
  );
  expect(message, 'placeId as configured: a string that is no number').not.toContain('RSF_PLACE_ID is a JSON');
  // indep110: the target may refuse a valid update (hide false read as missing): the message says so too.
  expect(message).toContain('the target refused an update with every field §4.4 requires, whatever the value');
});

test('settings that name nothing on the target stop the run, each named with its value and the answer', async () => {
  // The deployment mode refuses with HTTP 200 and an error body: a refusal all the same (§7.3).
  const message = await preflightMessage({
    ...token,
    RSF_TARGET_URL: `${reference().url}/_modes/deployment`,
    RSF_MISSING_PRODUCT_ID: '1002',
    RSF_STOCK_PRODUCT_IDS: '1001,424242',
    RSF_VOUCHER_ORDER: '99999999',
    RSF_POSTSALE_ID: '1',
  });
  expect(message).toMatch(/4 settings do not name what the target has/);
  for (const named of [
    /RSF_MISSING_PRODUCT_ID=1002: GET \S+\/item\/1002 \(operation 8, §4\.8\) found it, HTTP 200: \{/,
    /424242 of RSF_STOCK_PRODUCT_IDS=1001,424242: GET \S+\/item\/424242 \(operation 8, §4\.8\) answered HTTP 200: /,
    /RSF_VOUCHER_BRANCH=0001, RSF_VOUCHER_ORDER=99999999: GET \S+ \(operation 10, §4\.10\) answered HTTP 200: /,
    /RSF_POSTSALE_ID=1: GET \S+\/postventa\/1\/messageChannel \(operation 14, §4\.14\) answered HTTP 200: /,
  ]) {
    expect(message).toMatch(named);
  }
  expect(message, 'the settings that are right are not named').not.toMatch(/RSF_ORDER_ALB_NUMBER=|RSF_PRODUCT_ID=/);
  expect(message, 'reads refused: no word of writes').not.toContain('RSF_ALLOW_WRITES');
});
