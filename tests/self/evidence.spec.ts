// Issue 24: the HAR of a run's exchanges, the conformance bundle and its verification. Most cases call the library
// in this process (fast); a few run the CLIs as `npm run bundle` / `npm run verify` do, for their output and exit code.
import { execFile, execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import type { FullConfig } from '@playwright/test';
import { expect, test } from '../../src/playwright/fixtures';
import { gathersRecording } from '../../src/playwright/global-setup';
import { zipSync } from 'fflate';
import { makeBundle, readArchive } from '../../src/evidence/bundle';
import {
  type ExchangeRecord,
  HAR_FILE,
  HarError,
  MAX_HEADER_VALUE_CHARS,
  Recording,
  buildHar,
  parseHar,
  requestFingerprint,
} from '../../src/evidence/har';
import { MANIFEST_FILE, buildManifest, manifestBytes } from '../../src/evidence/manifest';
import { describeCheckout } from '../../src/report/checkout';
import { REPLAY_API_BASE } from '../../src/config/target';
import { outgoingRequest } from '../../src/http/request';
import { sendOnce } from '../../src/http/wire';
import { recordsOf } from '../../src/evidence/exchange-log';
import { OPERATIONS } from '../../src/model/operations';
import { CREDENTIALS } from '../../src/model/send-options';
import { Replay, replayEnvironment } from '../../src/playwright/replay';
import { SIGNATURE_FILE } from '../../src/evidence/sign';
import { type Regrade, verifyBundle } from '../../src/evidence/verify';
import { recordedTestList } from '../../src/evidence/cli-verify';
import { readArtifacts, secretForms } from './support/artifacts';
import { anotherUser } from './support/child-run';
import { rawAnswer, startHostileTarget } from './support/hostile-server';
import { scratchDir } from './support/scratch';

const ROOT = resolve(__dirname, '../..');
const TOKEN = 'chan-tok-9f8e7d6c5b4a3210';
const BEARER = 'bearer-tok-0123456789abcdef';
const SECRETS = [TOKEN, BEARER];

/** The test's redactor: every form of each secret that the leak search looks for. */
const redact = (text: string): string =>
  SECRETS.flatMap((s) => secretForms(s, ['Bearer '])).reduce((out, form) => out.split(form).join('[REDACTED]'), text);

const CREATOR = { name: 'reseller-storefront-conformance', version: '0.1.0' };

function record(overrides: Partial<ExchangeRecord> = {}): ExchangeRecord {
  return {
    method: 'GET',
    url: 'https://shop.example/v1/prices',
    requestHeaders: { authorization: `Bearer ${BEARER}`, accept: 'application/json' },
    status: 200,
    statusText: 'OK',
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: Buffer.from('{"prices":[]}'),
    startedAt: '2026-11-24T08:00:00.000Z',
    durationMs: 12,
    attempt: 1,
    attemptKind: 'first',
    test: { id: 'abc123', title: 'prices › answers with JSON' },
    requirements: ['GEN-JSON-CONTENT-TYPE'],
    ...overrides,
  };
}

/** A run's exchanges: a throttled answer and its retry, operation 15 with the channel token in its path, a cut body. */
function exchanges(): ExchangeRecord[] {
  return [
    record({ status: 429, statusText: 'Too Many Requests', responseHeaders: { 'retry-after': '1' } }),
    record({ attempt: 2, attemptKind: 'throttled-retry' }),
    record({
      method: 'POST',
      url: `https://shop.example/v1/postventa/77/messageChannel/${TOKEN}/5`,
      requestHeaders: { 'content-type': 'application/json' },
      requestBody: JSON.stringify({ message: `token ${TOKEN}` }),
      responseBody: Buffer.from(JSON.stringify({ echo: `Bearer ${BEARER}`, url: encodeURIComponent(TOKEN) })),
      requirements: ['OP15-SEND-MESSAGE'],
    }),
    record({
      url: 'https://shop.example/v1/product/1001?type=1',
      responseHeaders: { 'content-type': 'application/octet-stream' },
      // Invalid UTF-8 around the token: stored as base64, redacted all the same.
      responseBody: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TOKEN), Buffer.alloc(3000, 0x61)]),
      requirements: ['OP8-DETAIL'],
    }),
    record({ status: 0, statusText: '', responseHeaders: {}, responseBody: new Uint8Array(0), error: 'timed out' }),
  ];
}

/** The binary body's size: two bytes that are not UTF-8, the token, 3000 more. */
const BINARY_BYTES = 2 + TOKEN.length + 3000;
const harOptions = { creator: CREATOR, seed: '42', target: 'https://shop.example', redact, maxBodyBytes: 1024 };
/** What a conformance run adds for its replay; without it a recording is read and verified, not re-graded. */
const REPLAY = { apiBase: 'https://shop.example/v1', fcNumRuns: 25, writesEnabled: false, runNonce: '0badcafe' };
const harText = (replay = true) =>
  JSON.stringify(buildHar(exchanges(), { ...harOptions, ...(replay && { replay: REPLAY }) }));

const REPORT = {
  format: 'rsf-conformance/1',
  summary: {
    verdict: 'FAIL',
    exitCode: 1,
    headline: 'OP4-UTILITY-MAX failed',
    target: 'https://shop.example/v1',
    date: '2026-11-24T08:00:00.000Z',
    durationMs: 2500,
    suiteVersion: '0.1.0',
    seed: '42',
    failOn: 'must',
    strict: false,
  },
  requirements: [
    { id: 'GEN-JSON-CONTENT-TYPE', level: 'MUST', status: 'passed' },
    { id: 'OP4-UTILITY-MAX', level: 'MUST', status: 'failed' },
    { id: 'OP8-DETAIL', level: 'MUST', status: 'inconclusive' },
  ],
};
const STATUSES = Object.fromEntries(REPORT.requirements.map((r) => [r.id, r.status]));

function files(har: string | null = harText(), report: object = REPORT): Record<string, Uint8Array> {
  return {
    'conformance.json': Buffer.from(JSON.stringify(report)),
    'conformance.md': Buffer.from('# Conformance: FAIL\n'),
    ...(har !== null && { [HAR_FILE]: Buffer.from(har) }),
  };
}

const RUN = {
  target: 'https://shop.example/v1',
  startedAt: '2026-11-24T08:00:00.000Z',
  endedAt: '2026-11-24T08:00:02.500Z',
  verdict: 'FAIL',
  exitCode: 1,
};
const checkout = describeCheckout(ROOT);

function bundle(
  options: { har?: string | null; signingKey?: ReturnType<typeof keys>['privateKey']; report?: object } = {},
) {
  const har = options.har === undefined ? harText() : options.har;
  return makeBundle({
    checkout,
    configuration: { failOn: 'must', seed: '42' },
    run: RUN,
    files: files(har, options.report),
    recording: har === null ? null : HAR_FILE,
    ...(options.signingKey && { signingKey: options.signingKey }),
  }).archive;
}

function keys() {
  return generateKeyPairSync('ed25519');
}

let dir: string;
test.beforeEach(() => {
  dir = scratchDir('evidence');
});

function save(name: string, data: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, data);
  return path;
}

/** A zip written byte by byte, for what no zip library would write: declared sizes that lie, names that escape. */
function craftZip(entries: { name: string; data: Uint8Array; method: 0 | 8; declaredBytes: number }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(e.method, 8);
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.declaredBytes, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(e.method, 10);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(e.data.length, 20);
    central.writeUInt32LE(e.declaredBytes, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, Buffer.from(e.data));
    centrals.push(central, name);
    offset += local.length + name.length + e.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** Where an entry's data starts in an archive, and how long it is, from its local header. */
function entryData(archive: Uint8Array, wanted: string): { start: number; length: number } {
  const b = Buffer.from(archive);
  for (let at = 0; b.readUInt32LE(at) === 0x04034b50; ) {
    const nameLength = b.readUInt16LE(at + 26);
    const start = at + 30 + nameLength + b.readUInt16LE(at + 28);
    const length = b.readUInt32LE(at + 18);
    if (b.toString('utf8', at + 30, at + 30 + nameLength) === wanted) return { start, length };
    at = start + length;
  }
  throw new Error(`${wanted} is not in the archive`);
}

const oneLine = (lines: string[]) => {
  expect(lines).toHaveLength(1);
  expect(lines[0]).not.toContain('\n');
  return lines[0] ?? '';
};

async function expectRefused(archive: Uint8Array, pattern: RegExp, options = {}): Promise<void> {
  const result = await verifyBundle(save('bad.zip', archive), options);
  expect(result.exitCode).toBe(2);
  expect(oneLine(result.lines)).toMatch(pattern);
}

test.describe('HAR', () => {
  test('is a HAR 1.2 log with one entry per exchange, retries and throttled answers included', () => {
    const har = buildHar(exchanges(), harOptions);
    expect(har.log.version).toBe('1.2');
    expect(har.log.creator).toEqual(CREATOR);
    expect(har.log._rsf).toEqual({
      format: 'rsf-har/1',
      suiteVersion: '0.1.0',
      seed: '42',
      target: 'https://shop.example',
    });
    expect(har.log.entries).toHaveLength(5);
    const [throttled, retry, channel, binary, noAnswer] = har.log.entries;
    expect(throttled?._rsf).toMatchObject({ attempt: 1, attemptKind: 'first', throttled: true, seed: '42' });
    expect(retry?._rsf).toMatchObject({ attempt: 2, attemptKind: 'throttled-retry', throttled: false });
    expect(retry?._rsf).toMatchObject({ test: { id: 'abc123' }, requirements: ['GEN-JSON-CONTENT-TYPE'] });
    expect(channel?.request.url).toBe('https://shop.example/v1/postventa/77/messageChannel/[REDACTED]/5');
    expect(binary?.request.queryString).toEqual([{ name: 'type', value: '1' }]);
    expect(binary?.response.content).toMatchObject({ encoding: 'base64', size: BINARY_BYTES });
    expect(binary?.response.content.comment).toBe(
      `body cut at 1024 bytes (RSF_MAX_RESPONSE_BYTES); ${BINARY_BYTES} bytes in all`,
    );
    expect(binary?._rsf).toMatchObject({ responseBodyCut: { limitBytes: 1024, announcedBytes: BINARY_BYTES } });
    expect(noAnswer?.response.status).toBe(0);
    expect(noAnswer?._rsf).toMatchObject({ error: 'timed out' });
  });

  test('redacts a token passed as a secret: not one copy, in any form, in the HAR or the bundle', () => {
    save(HAR_FILE, Buffer.from(harText()));
    save('bundle.zip', bundle());
    const artifacts = readArtifacts(dir);
    expect(artifacts.map((a) => a.name).some((n) => n.endsWith(`bundle.zip!${HAR_FILE}`))).toBe(true);
    for (const secret of SECRETS) {
      for (const form of secretForms(secret, ['Bearer '])) {
        expect(
          artifacts.filter((a) => a.text.includes(form)).map((a) => a.name),
          form,
        ).toEqual([]);
      }
    }
    expect(harText()).toContain('Bearer [REDACTED]');
  });

  test('keeps a byte order mark before a body, as the target sent it, and a replay reads it back', () => {
    // Before, the decoder dropped it: the HAR of an answer that began with EF BB BF showed none (indep97), and a
    // replay re-graded GEN-JSON-UTF8 on other bytes than the run had judged.
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('[{"id":1}]')]);
    const har = buildHar([record({ responseBody: body })], harOptions);
    expect(har.log.entries[0]?.response.content).toMatchObject({ text: '\ufeff[{"id":1}]', size: body.length });
    const replayed = parseHar(JSON.stringify(har)).records[0]?.responseBody;
    expect(Buffer.from(replayed ?? new Uint8Array(0))).toEqual(body);
  });

  test('keeps the name and attributes of a cookie the target sets, never its value', () => {
    const cookies = ['SSO_SESSION=c00k1e-v4lue; Path=/; Secure; HttpOnly', 'lb=node-7', 'bare-v4lue; Max-Age=60'];
    const har = buildHar([record({ responseHeaders: { 'content-type': 'application/json', 'Set-Cookie': cookies } })], {
      ...harOptions,
    });
    const [entry] = har.log.entries;
    expect(entry?.response.headers.filter((h) => h.name === 'Set-Cookie').map((h) => h.value)).toEqual([
      'SSO_SESSION=[REDACTED]; Path=/; Secure; HttpOnly',
      'lb=[REDACTED]',
      '[REDACTED]; Max-Age=60',
    ]);
    expect(JSON.stringify(har)).not.toMatch(/c00k1e-v4lue|node-7|bare-v4lue/);
    expect(entry?.response.headers).toContainEqual({ name: 'content-type', value: 'application/json' });
  });

  test("keeps a long header's value up to a cap, saying how long it was; the headers the checks read whole", () => {
    // 200 KB of policy on every answer made a recording of 106 MB. A token just before the cap is redacted first,
    // so that no part of it is left.
    const policy = `${'x'.repeat(MAX_HEADER_VALUE_CHARS - 5)}Bearer ${BEARER}${"default-src 'self'; ".repeat(10_000)}`;
    const type = `application/json; ${'p=1; '.repeat(2_000)}charset=utf-8`;
    const responseHeaders = { 'content-type': type, 'Content-Security-Policy': policy };
    const har = buildHar([record({ responseHeaders })], harOptions);
    const [entry] = har.log.entries;
    const value = (name: string) => entry?.response.headers.find((h) => h.name === name)?.value ?? '';
    const recorded = value('Content-Security-Policy');
    const redactedLength = redact(policy).length;
    expect(recorded).toBe(
      `${redact(policy).slice(0, MAX_HEADER_VALUE_CHARS)}… (${redactedLength} characters in all; the recording ` +
        `keeps ${MAX_HEADER_VALUE_CHARS})`,
    );
    expect(value('content-type'), 'read by the checks, so by a replay too').toBe(type);
    expect((entry as { _rsf?: { responseHeadersCut?: string[] } })._rsf?.responseHeadersCut).toEqual([
      'Content-Security-Policy',
    ]);
    for (const form of secretForms(BEARER, ['Bearer '])) expect(JSON.stringify(har)).not.toContain(form);
    expect(parseHar(JSON.stringify(har)).records[0]?.responseHeaders['content-type']).toBe(type);
  });

  test('keeps the status line as the target sent it: its HTTP version and reason phrase, redacted', async () => {
    // A legacy server answering in HTTP/1.0, with a reason phrase of its own that echoes the token.
    const legacy = await startHostileTarget({
      misbehave: rawAnswer(`HTTP/1.0 200 Fine ${BEARER}\r\nContent-Length: 2\r\n\r\n[]`),
    });
    const url = `${legacy.url}/v1/prices`;
    try {
      const request = { method: 'GET', url, headers: {} };
      const response = await sendOnce({ ...request, timeoutMs: 5000, maxBodyBytes: 1024 });
      const records = recordsOf(
        request,
        { kind: 'answer', response, attempts: [] },
        {
          requirements: [],
          credentials: 'valid',
        },
      );
      expect(records.map((r) => [r.httpVersion, r.statusText])).toEqual([['HTTP/1.0', `Fine ${BEARER}`]]);
      const [entry] = buildHar(records, harOptions).log.entries;
      expect([entry?.response.httpVersion, entry?.response.statusText]).toEqual(['HTTP/1.0', 'Fine [REDACTED]']);
      // Read back, as a replay and npm run verify read it.
      expect(parseHar(JSON.stringify(buildHar(records, harOptions))).records[0]?.httpVersion).toBe('HTTP/1.0');
    } finally {
      await legacy.close();
    }
  });

  test('reads back into the records, redacted, with the cut body saying so', () => {
    const { records, rsf, creator } = parseHar(harText());
    expect(creator).toEqual(CREATOR);
    // A HAR another tool saved with a byte order mark first (RFC 8259 §8.1 lets a parser ignore it) reads alike.
    expect(parseHar(`\ufeff${harText()}`).records).toEqual(records);
    expect(rsf?.seed).toBe('42');
    expect(records).toHaveLength(5);
    expect(records[1]).toMatchObject({ attempt: 2, attemptKind: 'throttled-retry', status: 200 });
    expect(Buffer.from(records[1]?.responseBody ?? []).toString()).toBe('{"prices":[]}');
    expect(records[2]?.requestBody).toBe('{"message":"token [REDACTED]"}');
    expect(records[3]?.responseBody).toHaveLength(1024 - TOKEN.length + '[REDACTED]'.length);
    expect(records[3]?.truncated).toEqual({ limitBytes: 1024, announcedBytes: BINARY_BYTES });
    expect(records[4]).toMatchObject({ status: 0, error: 'timed out' });
  });

  test('a text that is not a HAR is refused with one line naming the file and the fault', () => {
    const refusal = (text: string) => {
      try {
        parseHar(text);
      } catch (e) {
        expect(e).toBeInstanceOf(HarError);
        return (e as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refusal('{"log": [')).toMatch(/^exchanges\.har is not JSON: [^\n]+$/);
    expect(refusal('{"log": {"version": "1.1"}}')).toBe(
      'exchanges.har is not a HAR 1.2 log: log.version is "1.1", not "1.2"',
    );
    const har = buildHar(exchanges(), harOptions);
    (har.log.entries[2]?.response as { status: unknown }).status = '200';
    expect(refusal(JSON.stringify(har))).toBe(
      'exchanges.har is not a HAR 1.2 log: entry 3: response.status is not a number',
    );
  });

  test('is recorded only when a reporter gathers it: a shard or --reporter=dot leaves no folder behind', () => {
    const run = (...reporters: string[]) =>
      ({ reporter: reporters.map((name) => [name, {}]) }) as unknown as FullConfig;
    const gatherer = resolve(ROOT, 'src/playwright/conformance-reporter.ts');
    expect(gathersRecording(run(resolve(ROOT, 'src/playwright/plan-reporter.ts'), gatherer))).toBe(true);
    expect(gathersRecording(run(gatherer.replace(/\.ts$/, '')))).toBe(true);
    expect(gathersRecording(run('dot'))).toBe(false);
    expect(gathersRecording(run(resolve(ROOT, 'src/playwright/console-reporter.ts'), 'blob'))).toBe(false);
  });

  test('replay finds the answers recorded for a method, path, query and body, in order; nothing else is found', () => {
    const recording = new Recording(parseHar(harText()).records, redact);
    const prices = { method: 'get', url: 'http://elsewhere:8080/v1/prices' };
    expect(recording.find(prices)?.map((r) => r.status)).toEqual([429, 200, 0]);
    expect([recording.take(prices)?.status, recording.take(prices)?.status]).toEqual([429, 200]);
    // The real token in the path finds the entry recorded with it redacted.
    const send = {
      method: 'POST',
      url: `/v1/postventa/77/messageChannel/${TOKEN}/5`,
      body: JSON.stringify({ message: `token ${TOKEN}` }),
    };
    expect(recording.take(send)?.requirements).toEqual(['OP15-SEND-MESSAGE']);
    expect(recording.take(send)).toBeUndefined();
    expect(recording.find({ ...send, body: '{}' })).toBeUndefined();
    expect(recording.find({ method: 'GET', url: '/v1/product/1001?type=2' })).toBeUndefined();
    expect(requestFingerprint({ method: 'GET', url: 'https://a.example/v1/x?q=1' })).toBe(
      requestFingerprint({ method: 'get', url: '/v1/x?q=1', body: '' }),
    );
  });
});

test.describe('bundle and verify', () => {
  test('an intact bundle verifies (exit 0) and says it was not re-graded', async () => {
    const result = await verifyBundle(save('b.zip', bundle()), { checkout });
    expect(result.exitCode).toBe(0);
    expect(result.lines.join('\n')).toContain('intact: 3 files, each with the SHA-256 its manifest gives');
    expect(result.lines).toContain('signature: none (unsigned bundle)');
    expect(result.lines).toContain("inputs: this checkout's lock file, requirements and schemas are the run's");
    // A verifier's checkout at another commit is told the run's, to re-grade with (none outside a git work tree).
    const elsewhere = { ...checkout, inputs: { ...checkout.inputs, 'specs/requirements.json': '0'.repeat(64) } };
    const other = await verifyBundle(save('other.zip', bundle()), { checkout: elsewhere });
    const differs = "inputs: this checkout differs from the run's: specs/requirements.json: differs";
    const commit = checkout.git?.commit.slice(0, 12);
    const dirty = checkout.git?.dirty ? ', with changes it had not committed' : '';
    const runs = `. The run's suite was commit ${commit}${dirty}`;
    expect(other.lines).toContain(
      commit === undefined ? differs : `${differs}${runs}: a checkout of it (git checkout ${commit}) re-grades with it`,
    );
    expect(result.lines).toContain(`recording: ${HAR_FILE}, 5 exchanges, a well-formed HAR 1.2 log`);
    expect(result.lines.at(-1)).toMatch(/^re-grade: not available/);
    const noHar = await verifyBundle(save('c.zip', bundle({ har: null })));
    expect(noHar.exitCode).toBe(0);
    expect(noHar.lines.at(-1)).toBe(
      'recording: none, so the verdict cannot be re-graded: the bundle proves integrity only',
    );
  });

  test('the manifest names the commit of a checkout another user owns, as in a container image run as its own', () => {
    // git refuses to read such a repository ("dubious ownership"), and the manifest said git: null, as outside one.
    const user = anotherUser();
    test.skip(!user, 'needs root, to give the checkout to nobody');
    const repo = scratchDir('owned-by-another');
    writeFileSync(join(repo, 'package.json'), '{ "name": "suite", "version": "1.0.0" }');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=Suite', '-c', 'user.email=suite@example.test', ...args], { cwd: repo });
    git('init', '--quiet');
    git('add', 'package.json');
    git('commit', '--quiet', '-m', 'suite');
    const commit = git('rev-parse', 'HEAD').toString().trim();
    execFileSync('chown', ['-R', `${user?.uid}:${user?.gid}`, repo]);
    expect(describeCheckout(repo).git).toEqual({ commit, dirty: false });
  });

  test('the manifest records the suite, the inputs, the run and every file', () => {
    const entries = readArchive(bundle());
    expect([...entries.keys()]).toEqual([MANIFEST_FILE, 'conformance.json', 'conformance.md', HAR_FILE]);
    const manifest = JSON.parse(Buffer.from(entries.get(MANIFEST_FILE) ?? []).toString());
    expect(manifest).toMatchObject({ format: 'rsf-bundle/1', suite: CREATOR, run: RUN, recording: HAR_FILE });
    expect(Object.keys(manifest.inputs)).toEqual(
      expect.arrayContaining(['package-lock.json', 'specs/requirements.json']),
    );
    expect(Object.keys(manifest.inputs).filter((f) => f.startsWith('schemas/'))).toHaveLength(
      readdirSync(join(ROOT, 'schemas')).filter((f) => f.endsWith('.json')).length,
    );
    expect(Object.keys(manifest.files)).toEqual(['conformance.json', 'conformance.md', HAR_FILE]);
  });

  test('a truncated archive: exit 2, one line', async () => {
    const archive = bundle();
    await expectRefused(
      archive.subarray(0, archive.length - 30),
      /^not a readable zip archive \(truncated or damaged\)/,
    );
    await expectRefused(archive.subarray(0, 100), /^not a readable zip archive/);
  });

  test('a HAR that is not JSON: exit 2, one line naming it', async () => {
    await expectRefused(bundle({ har: '{"log": {"entries": [' }), /^exchanges\.har is not JSON: /);
  });

  test('a manifest that names a missing file: exit 2, one line naming it', async () => {
    const all = files();
    const manifest = buildManifest({ checkout, configuration: {}, run: RUN, files: all, recording: HAR_FILE });
    const { 'conformance.md': _missing, ...rest } = all;
    const archive = zipSync({ [MANIFEST_FILE]: manifestBytes(manifest), ...rest });
    await expectRefused(archive, /^manifest\.json names "conformance\.md", which the bundle lacks$/);
  });

  test('an entry with .. in its name, an absolute one or a backslash: exit 2 before anything is written', async () => {
    const out = join(dir, 'out');
    const regrade: Regrade = async () => ({ requirements: STATUSES });
    for (const name of ['../escape.txt', 'a/../../escape.txt', '/etc/escape.txt', 'a\\..\\escape.txt']) {
      const archive = zipSync({
        [MANIFEST_FILE]: manifestBytes(
          buildManifest({ checkout, configuration: {}, run: RUN, files: files(), recording: HAR_FILE }),
        ),
        ...files(),
        [name]: Buffer.from('x'),
      });
      await expectRefused(archive, /^archive entry ".+" refused: /, { outDir: out, regrade });
    }
    expect(readdirSync(dir).sort()).toEqual(['bad.zip']);
    expect(existsSync(resolve(dir, '../escape.txt'))).toBe(false);
  });

  test('a 1 GB declared entry is refused from the directory, without inflating or allocating it', async () => {
    // Its data is no DEFLATE stream at all: inflating it would fail with another message. That message, not a clock,
    // shows that nothing was inflated.
    const huge = craftZip([
      { name: HAR_FILE, data: Buffer.from('not deflate data'), method: 8, declaredBytes: 2 ** 30 },
    ]);
    const before = process.memoryUsage().arrayBuffers;
    await expectRefused(
      huge,
      new RegExp(
        '^archive entry "exchanges\\.har" declares 1073741824 bytes, over the limit of 268435456: ' +
          'refused without inflating it$',
      ),
    );
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024 * 1024);
  });

  test('an entry that inflates beyond its declared size is stopped there', async () => {
    const bomb = deflateRawSync(Buffer.alloc(16 * 1024 * 1024));
    const archive = craftZip([{ name: HAR_FILE, data: bomb, method: 8, declaredBytes: 1000 }]);
    await expectRefused(archive, /^archive entry "exchanges\.har" inflates beyond the 1000 bytes it declares$/);
  });

  test('a flipped byte in the HAR: exit 2, naming the HAR', async () => {
    const archive = bundle();
    const { start, length } = entryData(archive, HAR_FILE);
    const flipped = Buffer.from(archive);
    const at = start + Math.floor(length / 2);
    flipped[at] = (flipped[at] ?? 0) ^ 0x10;
    await expectRefused(flipped, /"exchanges\.har"/);
    // Changed and packed again, as a careful forger would: the digest names it.
    const entries = readArchive(archive);
    entries.set(HAR_FILE, Buffer.from(harText().replace('"status":429', '"status":200')));
    await expectRefused(
      zipSync(Object.fromEntries(entries)),
      /^"exchanges\.har" is damaged or was changed: its SHA-256 is not the manifest's$/,
    );
  });

  test('a file the manifest does not list: exit 2', async () => {
    const entries = readArchive(bundle());
    entries.set('extra.txt', Buffer.from('x'));
    await expectRefused(
      zipSync(Object.fromEntries(entries)),
      /^"extra\.txt" is in the bundle but not in its manifest$/,
    );
  });

  test('a re-grade: the same statuses stand (exit 0); others are named by kind (exit 1)', async () => {
    const out = join(dir, 'out');
    const path = save('b.zip', bundle());
    let seen: string | undefined;
    const same: Regrade = async (harPath, manifest) => {
      seen = readFileSync(harPath, 'utf8');
      expect(manifest.recording).toBe(HAR_FILE);
      return { requirements: STATUSES };
    };
    const stands = await verifyBundle(path, { outDir: out, regrade: same });
    expect(stands.exitCode).toBe(0);
    expect(seen).toBe(harText());
    expect(stands.lines.at(-1)).toBe('re-grade: the verdict stands (FAIL): all 3 requirements have the same status');
    const other: Regrade = async () => ({
      requirements: { 'GEN-JSON-CONTENT-TYPE': 'failed', 'OP4-UTILITY-MAX': 'passed', 'OP8-DETAIL': 'inconclusive' },
    });
    const differs = await verifyBundle(path, { outDir: join(dir, 'out2'), regrade: other });
    expect(differs.exitCode).toBe(1);
    expect(differs.lines.slice(-4)).toEqual([
      're-grade: the verdict does not stand: 2 of 3 requirements changed',
      '  same: 1',
      '  newly failing (1): GEN-JSON-CONTENT-TYPE (passed → failed)',
      '  newly passing (1): OP4-UTILITY-MAX (failed → passed)',
    ]);
    // Tests of the run this checkout lacks are named, as a reason their requirements may have changed.
    const renamed: Regrade = async () => ({ requirements: STATUSES, notInThisCheckout: ['a › t', 'b', 'c', 'd'] });
    const named = await verifyBundle(path, { outDir: join(dir, 'out4'), regrade: renamed });
    expect(named.exitCode).toBe(0);
    expect(named.lines.at(-1)).toBe(
      '  not re-graded: 4 tests of the run are not in this checkout (renamed or removed since): "a › t", "b", "c" ' +
        'and 1 more; a replay by hand (RSF_TARGET_URL=har:…) shows what this checkout makes of the recording',
    );
    const missing: Regrade = async () => ({ requirements: { 'GEN-JSON-CONTENT-TYPE': 'passed' } });
    const gone = await verifyBundle(path, { outDir: join(dir, 'out3'), regrade: missing });
    expect(gone.exitCode).toBe(1);
    expect(gone.regraded?.changed.map((c) => c.id)).toEqual(['OP4-UTILITY-MAX', 'OP8-DETAIL']);
  });

  test('a requirement the run waived is re-graded as the run judged it, the failure its waiver hid', async () => {
    const waive = (r: (typeof REPORT.requirements)[number]) =>
      r.id === 'OP4-UTILITY-MAX' ? { ...r, status: 'waived', waivedStatus: 'failed' } : r;
    const path = save('w.zip', bundle({ report: { ...REPORT, requirements: REPORT.requirements.map(waive) } }));
    const result = await verifyBundle(path, {
      outDir: join(dir, 'out'),
      regrade: async () => ({ requirements: STATUSES }),
    });
    expect(result.exitCode).toBe(0);
    expect(result.lines.at(-1)).toBe(
      're-grade: the verdict stands (FAIL): all 3 requirements have the same status; ' +
        'waived in the run, and judged as the run judged them: OP4-UTILITY-MAX (failed)',
    );
  });

  test("a re-grade runs the recorded run's finished tests alone, as Playwright's --test-list reads them", () => {
    const ref = (title: string, outcome = 'passed', project = '') => ({
      title: `GET /prices · operation 9 · §4.9 › ${title}`,
      file: 'tests/conformance/prices.spec.ts',
      project,
      outcome,
    });
    const rows = [
      { tests: [ref('lists prices'), ref('cut short', 'interrupted')] },
      { tests: [ref('lists prices'), ref('in a project', 'failed', 'p'), ref('never began', 'not run')] },
      { tests: [ref('two\n# lines')] },
    ];
    const requirements = rows as unknown as Parameters<typeof recordedTestList>[0]['requirements'];
    const list = (breakerOpened: boolean) => recordedTestList({ requirements }, breakerOpened);
    // Each test once, its file relative to the suite's testDir, where the test list looks for it.
    expect(list(false)).toEqual([
      'prices.spec.ts › GET /prices · operation 9 · §4.9 › lists prices',
      '[p] › prices.spec.ts › GET /prices · operation 9 · §4.9 › in a project',
      // A line break in a title handed over does not start a line of its own.
      'prices.spec.ts › GET /prices · operation 9 · §4.9 › two # lines',
    ]);
    // After the breaker opened, a test not run was one it stopped: its replay is not run again, as it was.
    expect(list(true)).toContain('prices.spec.ts › GET /prices · operation 9 · §4.9 › never began');
    expect(list(true)).not.toContain('prices.spec.ts › GET /prices · operation 9 · §4.9 › cut short');
  });

  test('nothing is written outside the output folder, and a link planted in it is not followed', async () => {
    const path = save('b.zip', bundle());
    const out = join(dir, 'out');
    const regrade: Regrade = async () => ({ requirements: STATUSES });
    expect((await verifyBundle(path, { outDir: out, regrade })).exitCode).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['b.zip', 'out']);
    expect(readdirSync(out).sort()).toEqual(['conformance.json', 'conformance.md', HAR_FILE, MANIFEST_FILE].sort());
    // A folder holding a link named like a bundle file: refused, and the link's target is left alone.
    const trap = join(dir, 'trap');
    mkdirSync(trap);
    symlinkSync(join(dir, 'victim.txt'), join(trap, HAR_FILE));
    const refused = await verifyBundle(path, { outDir: trap, regrade });
    expect(refused.exitCode).toBe(2);
    expect(oneLine(refused.lines)).toBe(`the output folder ${trap} is not empty`);
    expect(existsSync(join(dir, 'victim.txt'))).toBe(false);
  });
});

test.describe('signature', () => {
  function keyFiles() {
    const { privateKey, publicKey } = keys();
    const other = keys().publicKey;
    const privatePath = save('private.pem', Buffer.from(privateKey.export({ type: 'pkcs8', format: 'pem' })));
    const publicPath = save('public.pem', Buffer.from(publicKey.export({ type: 'spki', format: 'pem' })));
    const otherPath = save('other.pem', Buffer.from(other.export({ type: 'spki', format: 'pem' })));
    return { privateKey, privatePath, publicPath, otherPath };
  }

  test("good with the signer's key; wrong key, changed signature, or no signature: exit 2", async () => {
    const { privateKey, publicPath, otherPath } = keyFiles();
    const signed = bundle({ signingKey: privateKey });
    const path = save('signed.zip', signed);
    const good = await verifyBundle(path, { publicKeyPath: publicPath });
    expect(good.exitCode).toBe(0);
    expect(good.lines).toContain(`signature: good (Ed25519, the key of ${publicPath})`);
    const unchecked = await verifyBundle(path);
    expect(unchecked.exitCode).toBe(0);
    expect(unchecked.lines.find((l) => l.startsWith('signature:'))).toMatch(/^signature: present .* not checked/);

    const wrongKey = await verifyBundle(path, { publicKeyPath: otherPath });
    expect(wrongKey.exitCode).toBe(2);
    expect(oneLine(wrongKey.lines)).toBe(
      `${SIGNATURE_FILE} does not verify with ${otherPath}: ${MANIFEST_FILE} was changed, or signed with another key`,
    );

    const entries = readArchive(signed);
    const signature = JSON.parse(Buffer.from(entries.get(SIGNATURE_FILE) ?? []).toString());
    const raw = Buffer.from(signature.signature, 'base64');
    raw[0] = (raw[0] ?? 0) ^ 1;
    entries.set(SIGNATURE_FILE, Buffer.from(JSON.stringify({ ...signature, signature: raw.toString('base64') })));
    await expectRefused(zipSync(Object.fromEntries(entries)), /^manifest\.sig\.json does not verify with /, {
      publicKeyPath: publicPath,
    });
    await expectRefused(bundle(), /^the bundle is not signed, and .* was given to check it with$/, {
      publicKeyPath: publicPath,
    });
  });

  test('a manifest changed after signing fails the signature even with its digests made to match', async () => {
    const { privateKey, publicPath } = keyFiles();
    const entries = readArchive(bundle({ signingKey: privateKey }));
    const manifest = JSON.parse(Buffer.from(entries.get(MANIFEST_FILE) ?? []).toString());
    manifest.run.verdict = 'PASS';
    entries.set(MANIFEST_FILE, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
    await expectRefused(zipSync(Object.fromEntries(entries)), /^manifest\.sig\.json does not verify with /, {
      publicKeyPath: publicPath,
    });
  });
});

test.describe('CLIs', () => {
  /** Runs a CLI as npm run does, minus npm: tsx loads the TypeScript. */
  function cli(script: string, args: string[], env: NodeJS.ProcessEnv = {}) {
    return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', join(ROOT, 'src/evidence', script), ...args],
        // From the checkout, where tsx resolves; every path given is absolute.
        { cwd: ROOT, env: { ...process.env, RSF_BUNDLE_SIGNING_KEY: '', ...env } },
        (error, stdout, stderr) => done({ code: error ? Number(error.code) : 0, stdout, stderr }),
      );
    });
  }

  test('npm run bundle writes one signed archive into the output folder; npm run verify checks it', async () => {
    const reports = join(dir, 'reports');
    const out = join(dir, 'out');
    mkdirSync(reports);
    // A HAR of another tool: verified, not re-graded (the re-grade of a run's own HAR: tests/self/replay.spec.ts).
    for (const [name, data] of Object.entries(files(harText(false)))) writeFileSync(join(reports, name), data);
    const { privateKey, publicKey } = keys();
    const keyPath = save('key.pem', Buffer.from(privateKey.export({ type: 'pkcs8', format: 'pem' })));
    const publicPath = save('pub.pem', Buffer.from(publicKey.export({ type: 'spki', format: 'pem' })));
    const made = await cli('cli-bundle.ts', ['--reports', reports, '--out', out], { RSF_BUNDLE_SIGNING_KEY: keyPath });
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    const [archive, ...others] = readdirSync(out);
    expect(others).toEqual([]);
    expect(archive).toMatch(/^conformance-bundle-\d{8}T\d{6}Z\.zip$/);
    expect(made.stdout).toContain(`Bundle: ${join(out, archive ?? '')}`);
    expect(made.stdout).toContain(`Signed with the Ed25519 key ${keyPath}`);
    expect(readdirSync(dir).sort()).toEqual(['key.pem', 'out', 'pub.pem', 'reports']);

    const path = join(out, archive ?? '');
    const [intact, wrongKey, damaged, folder] = await Promise.all([
      cli('cli-verify.ts', [path, '--public-key', publicPath]),
      cli('cli-verify.ts', [path, '--public-key', keyPath.replace('key.pem', 'nope.pem')]),
      cli('cli-verify.ts', [save('half.zip', readFileSync(path).subarray(0, 200))]),
      cli('cli-verify.ts', [out]),
    ]);
    expect(intact).toMatchObject({ code: 0, stderr: '' });
    expect(intact.stdout).toContain('signature: good');
    expect(intact.stdout).toContain('re-grade: not possible: the recording has no log._rsf.replay');
    expect(wrongKey.code).toBe(2);
    expect(wrongKey.stderr).toMatch(/^verify: public key .*nope\.pem cannot be read: ENOENT\n$/);
    expect(damaged.code).toBe(2);
    expect(damaged.stderr).toMatch(/^verify: not a readable zip archive \(truncated or damaged\): [^\n]+\n$/);
    expect(damaged.stdout).toBe('');
    // The folder that --out named, given for its bundle: verify names the bundle in it.
    expect(folder.code).toBe(2);
    expect(folder.stderr).toBe(`verify: ${out} is a folder, not a bundle: it holds ${path}\n`);
  });

  test('bundle and verify print their usage on --help, and with it refuse an unknown option', async () => {
    // The re-grade's reports go to a new or empty folder only: another run's would be overwritten or mixed in.
    const taken = join(dir, 'taken');
    mkdirSync(taken);
    writeFileSync(join(taken, 'conformance.json'), '{}');
    const [bundleHelp, verifyHelp, bundleTypo, verifyTypo, reportsTaken] = await Promise.all([
      cli('cli-bundle.ts', ['--help']),
      cli('cli-verify.ts', ['-h']),
      cli('cli-bundle.ts', ['--sign-key', 'key.pem']),
      cli('cli-verify.ts', ['bundle.zip', '--publickey', 'pub.pem']),
      cli('cli-verify.ts', ['bundle.zip', '--regrade-reports', taken]),
    ]);
    expect(reportsTaken.code).toBe(2);
    expect(reportsTaken.stderr).toBe(`verify: --regrade-reports "${taken}" is not empty: name a new or empty folder\n`);
    expect(readFileSync(join(taken, 'conformance.json'), 'utf8'), 'untouched').toBe('{}');
    expect([bundleHelp.code, verifyHelp.code]).toEqual([0, 0]);
    expect(bundleHelp.stdout).toMatch(/^usage: npm run bundle .*--signing-key PATH/s);
    expect(verifyHelp.stdout).toMatch(/^usage: npm run verify -- BUNDLE .*Exit 0: intact/s);
    expect([bundleTypo.code, verifyTypo.code]).toEqual([2, 2]);
    expect(bundleTypo.stderr).toMatch(/^bundle: Unknown option '--sign-key'.*\n\nusage: npm run bundle /s);
    expect(verifyTypo.stderr).toMatch(/^verify: Unknown option '--publickey'.*\n\nusage: npm run verify /s);
  });

  test("npm run bundle from a checkout moved on since the run: the manifest names the run's suite", async () => {
    // The run's suite as the reporter recorded it: another commit, one schema of its own, the lock file as it was.
    const older = {
      ...checkout,
      git: { commit: 'a'.repeat(40), dirty: false },
      inputs: { ...checkout.inputs, 'schemas/gone.schema.json': 'b'.repeat(64) },
    };
    const reports = join(dir, 'reports');
    mkdirSync(reports);
    for (const [name, data] of Object.entries(files(harText(false), { ...REPORT, checkout: older })))
      writeFileSync(join(reports, name), data);
    const made = await cli('cli-bundle.ts', ['--reports', reports]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(
      `The reports were written by ${checkout.suite.name} ${checkout.suite.version} at commit aaaaaaaaaaaa, and this ` +
        `checkout is at ${checkout.git ? `commit ${checkout.git.commit.slice(0, 12)}` : 'no commit'}`,
    );
    expect(made.stdout).toContain("(1 inputs differ): the manifest names the run's suite");
    const archive = readdirSync(reports).find((f) => f.endsWith('.zip')) ?? '';
    const manifest = JSON.parse(
      Buffer.from(readArchive(readFileSync(join(reports, archive))).get(MANIFEST_FILE) ?? []).toString(),
    );
    expect(manifest).toMatchObject({ git: older.git, inputs: older.inputs });
  });

  test('npm run bundle without a HAR says the bundle is integrity-only', async () => {
    const reports = join(dir, 'reports');
    mkdirSync(reports);
    for (const [name, data] of Object.entries(files(null))) writeFileSync(join(reports, name), data);
    const made = await cli('cli-bundle.ts', ['--reports', reports]);
    expect(made.code).toBe(0);
    expect(made.stdout).toContain(`No ${HAR_FILE} in ${reports}: the bundle carries no recording`);
    expect(readdirSync(reports).filter((f) => f.endsWith('.zip'))).toHaveLength(1);
  });
});

test('src/evidence imports the model, the report and node only; of src/http, types, run folders, headers', () => {
  const dirPath = join(ROOT, 'src/evidence');
  for (const file of readdirSync(dirPath)) {
    const source = readFileSync(join(dirPath, file), 'utf8');
    for (const [, typeOnly, from] of source.matchAll(/^import (type )?[^;]*? from '([^']+)';/gms)) {
      const allowed =
        from?.startsWith('node:') ||
        from?.startsWith('./') ||
        from?.startsWith('../model/') ||
        from?.startsWith('../report/') ||
        (typeOnly && (from?.startsWith('../http/') || from === 'har-format')) ||
        from === '../http/run-folders' ||
        // What the client adds to every request, constants: the recording shows them as sent.
        from === '../http/client-headers' ||
        from === 'fflate' ||
        from === 'dotenv';
      expect(allowed, `${file} imports ${from}`).toBe(true);
    }
  }
});

test("a replay takes over the recorded run's settings, only those that decide what it sends and judges", () => {
  const settings = { RSF_PRODUCT_ID: '48213', RSF_REJECTION_TEXT: 'rechaz', RSF_BEARER_TOKEN_COMMAND: 'touch /tmp/x' };
  const path = save(
    'settings.har',
    Buffer.from(JSON.stringify(buildHar([], { ...harOptions, replay: { ...REPLAY, settings } }))),
  );
  const env = replayEnvironment(path);
  expect(env).toMatchObject({ RSF_PRODUCT_ID: '48213', RSF_REJECTION_TEXT: 'rechaz', RSF_FC_NUM_RUNS: '25' });
  // A HAR handed over must not run a command, or point the run elsewhere, on the machine that replays it.
  expect(env).not.toHaveProperty('RSF_BEARER_TOKEN_COMMAND');
  const wrong = { ...REPLAY, settings: { RSF_PRODUCT_ID: 7 } };
  const refused = save(
    'wrong.har',
    Buffer.from(JSON.stringify(buildHar([], { ...harOptions, replay: wrong as never }))),
  );
  expect(() => replayEnvironment(refused)).toThrow('log._rsf.replay.settings.RSF_PRODUCT_ID is not a string');
});

test("a replay keeps a redirect within the target's host, and one to another host away from it", () => {
  const apiBase = 'https://staging.example/api/v1';
  const rsf = { format: 'rsf-har/1' as const, suiteVersion: '', seed: '1' };
  const replayOf = { apiBase, fcNumRuns: 1, writesEnabled: false };
  const har = { creator: { name: '', version: '' }, rsf: { ...rsf, replay: replayOf }, records: [] };
  const tokens = { bearerToken: 'Token-of-the-run-1', invalidBearerToken: 'invalid-0001' };
  const replay = new Replay(har, { tokens, redact: (text) => text, testId: () => undefined });
  const within = replay.replayedLocation('https://staging.example/api/v1/prices/');
  expect(new URL(within).host).toBe(new URL(REPLAY_API_BASE).host);
  expect(new URL(within).pathname).toBe('/api/v1/prices/');
  expect(replay.replayedLocation('/api/v1/prices/')).toBe('/api/v1/prices/');
  const away = 'https://sso.example/authorize?rd=%2Fapi';
  expect(replay.replayedLocation(away)).toBe(away);
});

/** A recorded GET /prices of `test`, answered `status` with an empty body, sent with `credentials`. */
function pricesRecord(apiBase: string, status: number, credentials: string, test: { id: string; title: string }) {
  return {
    method: 'GET',
    url: `${apiBase}/prices`,
    requestHeaders: {},
    status,
    responseHeaders: {},
    responseBody: new Uint8Array(0),
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
    attempt: 1,
    attemptKind: 'first',
    requirements: [],
    credentials,
    test,
  } satisfies ExchangeRecord;
}

test('a replay of a run the target refused mid-run: a test with nothing recorded is not run, saying why', async () => {
  // The token stopped being accepted, or a gateway's quota refused every request (api-client.ts): the recorded run
  // sent nothing more for its later tests. Before, its bundle re-graded as "does not stand" (42 of 90 requirements).
  const reason = 'operation 1 (PATCH /v1/client, §4.1) answered HTTP 403 (…), and so did GET /v1/prices …';
  const apiBase = 'http://target.example/v1';
  const tokens = { bearerToken: 'Token-of-the-run-1', invalidBearerToken: 'invalid-0001' };
  const record = pricesRecord(apiBase, 200, 'valid', { id: 'an-earlier-test', title: 'lists prices' });
  const rsf = { format: 'rsf-har/1' as const, suiteVersion: '', seed: '1' };
  const har = {
    creator: { name: '', version: '' },
    rsf: { ...rsf, replay: { apiBase, fcNumRuns: 1, writesEnabled: false, refused: reason } },
    records: [record],
  };
  const replay = new Replay(har, { tokens, redact: (text) => text, testId: () => 'a-later-test' });
  const request = outgoingRequest(OPERATIONS.listPrices, {}, tokens, REPLAY_API_BASE);
  // Not another test's answer, as a renamed test would get: nothing, and why.
  expect(replay.take(request)).toBeUndefined();
  const sent = await replay.send()(request);
  expect(sent.kind === 'no-answer' && [sent.failure.kind, sent.failure.message]).toEqual([
    'stopped-in-recording',
    reason,
  ]);
  // The recording says so, and reads back so.
  const text = JSON.stringify({ log: { version: '1.2', creator: har.creator, entries: [], _rsf: har.rsf } });
  expect(parseHar(text).rsf?.replay?.refused).toBe(reason);
});

test('a replay hands each test its own answer under every kind of credentials, the near misses too', () => {
  // With the recorded breaker open, a replay answers only from the test's own records (no other test's): a request
  // whose credentials it read wrongly would come out "not run" (a run that died mid-run, replayed).
  const tokens = { bearerToken: 'Token-of-the-run-1', invalidBearerToken: 'invalid-0001', channelToken: 'channel-7' };
  const apiBase = 'http://target.example/v1';
  const records: ExchangeRecord[] = CREDENTIALS.map((credentials) =>
    pricesRecord(apiBase, 401, credentials, { id: 'the-test', title: credentials }),
  );
  const trip = { since: '', openedAt: '', lastRequest: 'GET /v1/prices', cause: 'no-answer' as const };
  const rsf = { format: 'rsf-har/1' as const, suiteVersion: '', seed: '1' };
  const har = {
    creator: { name: '', version: '' },
    rsf: { ...rsf, replay: { apiBase, fcNumRuns: 1, writesEnabled: false, breaker: trip } },
    records,
  };
  const replay = new Replay(har, { tokens, redact: (text) => text, testId: () => 'the-test' });
  for (const credentials of CREDENTIALS) {
    const request = outgoingRequest(OPERATIONS.listPrices, { credentials }, tokens, REPLAY_API_BASE);
    expect(replay.take(request)?.credentials, credentials).toBe(credentials);
  }
});
