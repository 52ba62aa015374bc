// A staging server behind a company's forward proxy (src/http/proxy.ts): HTTPS_PROXY, HTTP_PROXY and NO_PROXY as curl
// reads them. The target's host name resolves nowhere, so only a request through the proxy can reach it; the proxy
// sends every request to 127.0.0.1, where the target listens.
import { type IncomingHttpHeaders, createServer as createHttpServer } from 'node:http';
import { proxySettings } from '../../src/config/proxy-env';
import { type ProxySettings, proxyRoute } from '../../src/http/proxy';
import { NoAnswer, sendOnce } from '../../src/http/wire';
import { expect, test } from '../../src/playwright/fixtures';
import { secretForms, readArtifacts } from './support/artifacts';
import { runInGroup, runSuiteIn } from './support/child-run';
import { referenceForThisFile } from './support/file-reference';
import { PROXY_CHALLENGE, PROXY_CREDENTIALS, startForwardProxy } from './support/forward-proxy';
import { preflightMessage } from './support/preflight-message';
import { SELF_SIGNED_CERT, SELF_SIGNED_KEY, selfSignedServer } from './support/self-signed';
import { listenOnLoopback, closedLoopbackPort } from './support/listening';

test.describe.configure({ mode: 'parallel' });

const TARGET_HOST = 'staging.example.test';
const { user, password } = PROXY_CREDENTIALS;
const PROXY_BASIC = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

const { secrets, server: reference } = referenceForThisFile();

const settings = (env: Record<string, string>): ProxySettings => {
  const problems: string[] = [];
  const read = proxySettings(env, problems);
  if (!read || problems.length > 0) throw new Error(`no proxy settings: ${problems.join('; ')}`);
  return read;
};

const get = (url: string, proxy: ProxySettings) =>
  sendOnce({ method: 'GET', url, headers: {}, timeoutMs: 5000, maxBodyBytes: 100_000, proxy });

test('the variables are read as curl reads them; a bad one is named, its value never shown', () => {
  expect(settings({ https_proxy: 'http://a:1', HTTPS_PROXY: 'http://b:2' }).https?.variable).toBe('https_proxy');
  expect(settings({ HTTP_PROXY: 'proxy.corp:3128' }).http?.url).toBe('http://proxy.corp:3128/');
  expect(settings({ HTTPS_PROXY: 'http://p:1', NO_PROXY: ' a.test, .b.test ,,' }).noProxy).toEqual([
    'a.test',
    '.b.test',
  ]);
  expect(proxySettings({ NO_PROXY: 'a.test' }, [])).toBeUndefined();

  const problems: string[] = [];
  proxySettings({ HTTPS_PROXY: 'http://' }, problems);
  expect(problems).toEqual([
    'HTTPS_PROXY: expected a proxy as http://host:port (its value is not shown: it may hold credentials)',
  ]);
});

test('ALL_PROXY serves a scheme without its own; a SOCKS proxy there stops only a run it would carry', () => {
  const socks = 'socks5h://someone:hunter2@proxy.corp:1080';
  expect(settings({ all_proxy: 'http://a:1', ALL_PROXY: 'http://b:2' }).https?.variable).toBe('all_proxy');
  expect(settings({ HTTPS_PROXY: 'http://a:1', ALL_PROXY: 'http://b:2' })).toMatchObject({
    https: { variable: 'HTTPS_PROXY' },
    http: { variable: 'ALL_PROXY' },
  });
  const problemsFor = (env: Record<string, string>, target: string) => {
    const problems: string[] = [];
    proxySettings(env, problems, target);
    return problems;
  };
  const [stopped, ...others] = problemsFor({ ALL_PROXY: socks }, 'https://staging.example.test');
  expect(others).toEqual([]);
  expect(stopped).toBe(
    'ALL_PROXY: a SOCKS proxy (socks5h://), which the suite does not speak: expected a proxy as http://host:port ' +
      '(its value is not shown: it may hold credentials); curl would reach RSF_TARGET_URL through it. Set ' +
      "HTTPS_PROXY to an HTTP proxy for the target, or add the target's host to NO_PROXY to reach it directly",
  );
  expect(problemsFor({ ALL_PROXY: socks, HTTPS_PROXY: 'http://q:1' }, 'http://staging.example.test')).toEqual([
    expect.stringContaining('Set HTTP_PROXY to an HTTP proxy'),
  ]);
  // The embedded reference, a target on this machine, one NO_PROXY names, or one whose scheme has its own proxy.
  for (const [env, target] of [
    [{ ALL_PROXY: socks }, ''],
    [{ ALL_PROXY: socks }, 'http://127.0.0.1:8080'],
    [{ ALL_PROXY: socks, NO_PROXY: 'example.test' }, 'https://staging.example.test'],
    [{ ALL_PROXY: socks, HTTPS_PROXY: 'http://q:1' }, 'https://staging.example.test'],
  ] as const)
    expect(problemsFor(env, target), `${JSON.stringify(env)} ${target}`).toEqual([]);
  // HTTPS_PROXY itself is read whatever the target: a SOCKS proxy there is named as one.
  expect(problemsFor({ HTTPS_PROXY: socks }, '')).toEqual([
    'HTTPS_PROXY: a SOCKS proxy (socks5h://), which the suite does not speak: expected a proxy as http://host:port ' +
      '(its value is not shown: it may hold credentials)',
  ]);
  for (const problem of problemsFor({ ALL_PROXY: socks }, 'https://x.test')) expect(problem).not.toContain('hunter2');
});

test('a loopback target, and a host NO_PROXY names, are reached directly; any other through the proxy', () => {
  const route = (url: string, noProxy = '') =>
    proxyRoute(new URL(url), settings({ HTTPS_PROXY: 'http://u:p%40ss@proxy.corp:3128', NO_PROXY: noProxy }))?.url.host;
  for (const loopback of ['https://127.0.0.1:8443', 'https://localhost', 'https://[::1]:1', 'https://api.localhost'])
    expect(route(loopback), loopback).toBeUndefined();
  expect(route(`https://${TARGET_HOST}`)).toBe('proxy.corp:3128');
  expect(route('https://127.staging.example.test')).toBe('proxy.corp:3128');
  expect(route(`https://${TARGET_HOST}`, 'example.test')).toBeUndefined();
  expect(route(`https://${TARGET_HOST}`, '.example.test')).toBeUndefined();
  expect(route(`https://${TARGET_HOST}`, 'ample.test')).toBe('proxy.corp:3128');
  expect(route(`https://${TARGET_HOST}:8443`, `${TARGET_HOST}:443`)).toBe('proxy.corp:3128');
  expect(route(`https://${TARGET_HOST}`, `${TARGET_HOST}:443`)).toBeUndefined();
  expect(route(`https://${TARGET_HOST}`, '*')).toBeUndefined();
  expect(route('http://10.0.0.7', '10.0.0.7')).toBeUndefined(); // no HTTP_PROXY: direct anyway
  // Subnets, as curl 7.86 and later, and Kubernetes clusters' NO_PROXY, name them; a host name is not resolved.
  const cluster = '.svc, 10.0.0.0/8, 192.168.0.0/16, fd00::/8';
  expect(route('https://10.1.2.3:8443', cluster)).toBeUndefined();
  expect(route('https://192.168.7.1', cluster)).toBeUndefined();
  expect(route('https://[fd12::1]', cluster)).toBeUndefined();
  expect(route('https://11.1.2.3', cluster)).toBe('proxy.corp:3128');
  expect(route('https://[fe80::1]', cluster)).toBe('proxy.corp:3128');
  expect(route(`https://${TARGET_HOST}`, cluster)).toBe('proxy.corp:3128');
  expect(route('https://10.1.2.3', '10.0.0.0/33')).toBe('proxy.corp:3128');
  const authorization = proxyRoute(new URL(`https://${TARGET_HOST}`), settings({ HTTPS_PROXY: 'http://u:p%40ss@h:1' }));
  expect(authorization?.authorization).toBe(`Basic ${Buffer.from('u:p@ss').toString('base64')}`);
});

test('an http target is asked of the proxy in absolute form, with the proxy credentials only there', async () => {
  let seen: IncomingHttpHeaders = {};
  const target = createHttpServer((req, res) => {
    seen = req.headers;
    res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
  });
  const port = await listenOnLoopback(target);
  const proxy = await startForwardProxy();
  try {
    const url = `http://${TARGET_HOST}:${port}/v1/prices?x=1`;
    const answer = await get(url, settings({ HTTP_PROXY: proxy.url }));
    expect(answer.status).toBe(200);
    expect(proxy.asked).toEqual([`GET ${url}`]);
    expect(proxy.authorizations).toEqual([PROXY_BASIC]);
    expect(seen.host).toBe(`${TARGET_HOST}:${port}`);
  } finally {
    target.close();
    await proxy.close();
  }
});

test('an https target through a CONNECT tunnel: TLS end to end, its certificate checked, ours sent', async () => {
  const target = selfSignedServer(
    (_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('["through the tunnel"]'),
    { requireClientCertificate: true },
  );
  const port = await listenOnLoopback(target);
  const proxy = await startForwardProxy();
  const url = `https://${TARGET_HOST}:${port}/v1/prices`;
  try {
    // The proxy sees the host and port only; TLS runs through its tunnel, so this machine still judges the
    // certificate, which it does not trust here.
    const untrusted = await get(url, settings({ HTTPS_PROXY: proxy.url })).catch((e: unknown) => e);
    expect(untrusted).toBeInstanceOf(NoAnswer);
    expect((untrusted as NoAnswer).message).toMatch(/TLS certificate is not trusted on this machine/);
    expect(proxy.asked).toEqual([`CONNECT ${TARGET_HOST}:${port}`]);
    expect(proxy.authorizations).toEqual([PROXY_BASIC]);

    // With the certificate trusted (NODE_EXTRA_CA_CERTS, which Node reads as it starts), and the client's certificate
    // (RSF_TLS_CLIENT_CERT) presented through the tunnel, the answer comes through.
    const pem = (path: string) => `fs.readFileSync(${JSON.stringify(path)})`;
    const options =
      `{ method: 'GET', url: ${JSON.stringify(url)}, headers: {}, timeoutMs: 5000, maxBodyBytes: 1000, ` +
      `clientCertificate: { cert: ${pem(SELF_SIGNED_CERT)}, key: ${pem(SELF_SIGNED_KEY)} }, ` +
      `proxy: ${JSON.stringify(settings({ HTTPS_PROXY: proxy.url }))} }`;
    const script =
      `const fs = require('node:fs'); require('./src/http/wire.ts').sendOnce(${options})` +
      '.then((a) => console.log(a.status, a.body.toString()), (e) => console.log(e.message));';
    const trusted = await runInGroup(
      process.execPath,
      ['--import', 'tsx', '-e', script],
      { NODE_EXTRA_CA_CERTS: SELF_SIGNED_CERT },
      30_000,
    );
    expect(trusted.stdout.trim(), trusted.output).toBe('200 ["through the tunnel"]');
    expect(proxy.asked).toHaveLength(2);
  } finally {
    target.close();
    await proxy.close();
  }
});

test('a proxy that refuses the tunnel, or cannot be reached: the failure names its variable, not its URL', async () => {
  const refusing = await startForwardProxy({ refuse: 407 });
  const closedPort = await closedLoopbackPort();
  try {
    const url = `https://${TARGET_HOST}:8443/v1/prices`;
    const failures = await Promise.all(
      [refusing.url, `http://${PROXY_CREDENTIALS.user}:${PROXY_CREDENTIALS.password}@127.0.0.1:${closedPort}`].map(
        (proxy) => get(url, settings({ HTTPS_PROXY: proxy })).catch((e: unknown) => (e as Error).message),
      ),
    );
    expect(failures).toEqual([
      `the proxy in HTTPS_PROXY asks for credentials (Proxy-Authenticate: ${PROXY_CHALLENGE}) to open a tunnel to ` +
        `${TARGET_HOST}:8443, and refused those in its URL: check them (not shown)`,
      'the proxy in HTTPS_PROXY could not be reached (ECONNREFUSED)',
    ]);
  } finally {
    await refusing.close();
  }
});

test('a preflight whose request the proxy could not carry names the proxy variable among what to check', async () => {
  const refusing = await startForwardProxy({ refuse: 502 });
  try {
    const message = await preflightMessage({
      RSF_TARGET_URL: `https://${TARGET_HOST}:8443`,
      HTTPS_PROXY: refusing.url,
    });
    expect(message).toContain(`the proxy in HTTPS_PROXY refused the tunnel to ${TARGET_HOST}:8443 (HTTP 502)`);
    expect(message).toMatch(
      /Check RSF_TARGET_URL, and that the server is up\. It went through the proxy in HTTPS_PROXY/,
    );
    expect(message).not.toContain(PROXY_CREDENTIALS.password);
  } finally {
    await refusing.close();
  }
});

test('a proxy wants credentials (407): the preflight says to put them in its URL, or it refused them', async () => {
  const refusing = await startForwardProxy({ refuse: 407 });
  const withoutCredentials = new URL(refusing.url);
  withoutCredentials.username = '';
  withoutCredentials.password = '';
  try {
    const preflight = (proxy: string) =>
      preflightMessage({ RSF_TARGET_URL: `http://${TARGET_HOST}:8080`, HTTP_PROXY: proxy });
    const [asked, refused] = await Promise.all([preflight(withoutCredentials.href), preflight(refusing.url)]);
    const asks = `HTTP 407: the proxy in HTTP_PROXY asks for credentials (Proxy-Authenticate: ${PROXY_CHALLENGE})`;
    expect(asked).toContain(`${asks}: put them in its URL, as http://user:password@host:port.`);
    expect(refused).toContain(`${asks}, and refused those in its URL: check them (not shown).`);
    expect(refused).not.toContain(PROXY_CREDENTIALS.password);
  } finally {
    await refusing.close();
  }
});

test('the suite through HTTP_PROXY, the runner sending ahead: PASS, all via the proxy, no credential', async () => {
  test.setTimeout(90_000);
  const proxy = await startForwardProxy();
  try {
    const target = `http://${TARGET_HOST}:${new URL(reference().url).port}`;
    const run = await runSuiteIn(
      'proxy',
      {
        RSF_TARGET_URL: target,
        RSF_BEARER_TOKEN: secrets.bearer,
        RSF_CHANNEL_TOKEN: secrets.channel,
        RSF_MAX_REQUESTS_PER_SECOND: '0',
        HTTP_PROXY: proxy.url,
      },
      ['prices.spec.ts', 'cart.spec.ts'],
      80_000,
    );
    expect(run.code, run.output.slice(-3000)).toBe(0);
    expect(run.verdict).toMatch(/^Conformance: PASS/);
    // The preflight's, the runner's and the tests': the target's name resolves nowhere, so none went another way.
    expect(proxy.asked.length).toBeGreaterThan(20);
    for (const line of proxy.asked) expect(line).toMatch(new RegExp(`^(GET|POST|PATCH|DELETE) ${target}/v1/`));
    const forms = secretForms(PROXY_CREDENTIALS.password);
    const shown = [...readArtifacts(run.out), { name: 'output', text: run.output }].filter((a) =>
      forms.some((form) => a.text.includes(form)),
    );
    expect(shown.map((a) => a.name)).toEqual([]);
  } finally {
    await proxy.close();
  }
});
