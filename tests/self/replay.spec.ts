// Issue 24, items 1, 2 and 4, end to end in child runs: a run records reports/exchanges.har without one copy of a
// token the target echoes; `npm run verify` re-grades a bundle of a faulty run, replaying its recording
// (RSF_TARGET_URL=har:…): it fails on the same requirements as the live run, sending nothing, and the verdict stands
// (exit 0); a changed HAR is refused (exit 2, naming it); and a request the recording lacks is inconclusive in a
// replay by hand, never failed.
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer, request } from 'node:http';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { startReferenceServer } from '../../reference/server';
import { readArchive } from '../../src/evidence/bundle';
import { HAR_FILE, type HarEntryExtension, type RsfHar } from '../../src/evidence/har';
import { expect, test } from '../../src/playwright/fixtures';
import type { ConformanceReport } from '../../src/report/model';
import { secretForms } from './support/artifacts';
import { REPO_ROOT, fakeSecrets, readReport, runInGroup, runPlaywright } from './support/child-run';
import { hang, startHostileTarget } from './support/hostile-server';
import { scratchDir } from './support/scratch';
import { listenOnLoopback } from './support/listening';

const RUN_TIMEOUT_MS = 150_000;
const FAULT = 'op4-utility-unbounded';
const FAULT_REQUIREMENT = 'OP4-UTILITY-MAX';

let dir: string;
test.beforeAll(() => {
  dir = scratchDir('replay');
});

/**
 * `npx playwright test` of the conformance suite (the tests `filters` pick), its reports in `<dir>/<name>`. A live run
 * has two workers, so that its recording is gathered from the files of both.
 */
async function conformance(
  name: string,
  env: Record<string, string>,
  workers = 1,
  filters: string[] = [],
): Promise<ConformanceReport> {
  const reports = join(dir, name);
  const run = await runPlaywright(
    ['test', '--output', join(dir, `${name}-results`), `--workers=${workers}`, ...filters],
    { RSF_REPORTS_DIR: reports, ...env },
    RUN_TIMEOUT_MS,
  );
  try {
    return readReport(reports);
  } catch {
    throw new Error(`no report from the ${name} run (exit ${run.code}):\n${(run.stdout + run.stderr).slice(-3000)}`);
  }
}

/**
 * A live run, writes on and no rate cap, against the target `behind` puts in front of a reference with tokens of its
 * own; both are closed after it. `tokens` are the settings that give a replay the same tokens.
 */
async function liveRunBehind(
  name: string,
  behind: (upstream: string) => Promise<{ url: string; close: () => Promise<unknown> }>,
  env: Record<string, string> = {},
  workers = 1,
): Promise<{ secrets: ReturnType<typeof fakeSecrets>; tokens: Record<string, string>; report: ConformanceReport }> {
  const secrets = fakeSecrets();
  const reference = await startReferenceServer({ bearerToken: secrets.bearer, channelToken: secrets.channel });
  const target = await behind(reference.url);
  const tokens = { RSF_BEARER_TOKEN: secrets.bearer, RSF_CHANNEL_TOKEN: secrets.channel };
  try {
    const live = { ...tokens, RSF_TARGET_URL: target.url, RSF_ALLOW_WRITES: 'true', RSF_MAX_REQUESTS_PER_SECOND: '0' };
    return { secrets, tokens, report: await conformance(name, { ...live, ...env }, workers) };
  } finally {
    await target.close();
    await reference.close();
  }
}

const statuses = (report: ConformanceReport) => Object.fromEntries(report.requirements.map((r) => [r.id, r.status]));
const failing = (report: ConformanceReport) =>
  report.requirements.filter((r) => r.status === 'failed' || r.status === 'warning').map((r) => r.id);

/** The npm scripts as `npm run` starts them, minus npm: tsx loads the TypeScript. */
const cli = (script: string, args: string[], env: Record<string, string> = {}) =>
  runInGroup(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src/evidence', script), ...args], env, 200_000);

/** The session cookie the echoing target sets on every answer, as an SSO gateway would. */
const SESSION_COOKIE = `sso-${randomBytes(12).toString('hex')}`;

/**
 * A target that echoes its secrets: the embedded reference behind a proxy that adds the request's Authorization
 * header and URL to every JSON object it answers, and as a header, raw and in base64; it also sets a session cookie.
 */
async function echoingTarget(upstream: string) {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const headers = { ...req.headers };
    delete headers['accept-encoding'];
    const outgoing = request(`${upstream}${req.url ?? ''}`, { method: req.method, headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (c: Buffer) => chunks.push(c));
      answer.on('end', () => {
        const echo = `${req.headers.authorization ?? ''} ${req.url ?? ''} ${decodeURIComponent(req.url ?? '')}`;
        let body = Buffer.concat(chunks);
        try {
          const value = JSON.parse(body.toString('utf8')) as unknown;
          if (typeof value === 'object' && value !== null && !Array.isArray(value))
            body = Buffer.from(JSON.stringify({ ...value, echo }));
        } catch {}
        const out = { ...answer.headers, 'content-length': String(body.length) };
        res.writeHead(answer.statusCode ?? 502, {
          ...out,
          // A header carries Latin-1 only: the tokens stay whole, a path's other characters become '?'.
          'x-echo': echo.replace(/[^\x20-\x7e]/g, '?'),
          'x-echo-base64': Buffer.from(echo).toString('base64'),
          'set-cookie': [`SSO_SESSION=${SESSION_COOKIE}; Path=/; HttpOnly`, 'lb=node-7'],
        });
        res.end(body);
      });
    });
    outgoing.on('error', () => res.destroy());
    req.pipe(outgoing);
  });
  const port = await listenOnLoopback(server);
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

test.describe.configure({ mode: 'serial' });

test('the HAR of a run against a target that echoes the tokens holds no copy of them, in any form', async () => {
  test.setTimeout(RUN_TIMEOUT_MS + 20_000);
  const { secrets } = await liveRunBehind('echo', echoingTarget);
  const text = readFileSync(join(dir, 'echo', HAR_FILE), 'utf8');
  const har = JSON.parse(text) as RsfHar;
  expect(har.log.entries.length).toBeGreaterThan(100);
  // The target did echo (a header, and a field of JSON bodies), and the echo was redacted; so was operation 15's path.
  expect(text.includes('\\"echo\\":\\"Bearer [REDACTED] /v1/')).toBe(true);
  expect(text.includes('/messageChannel/[REDACTED]/')).toBe(true);
  const forms = [...secretForms(secrets.bearer, ['Bearer ', 'Bearer%20']), ...secretForms(secrets.channel)];
  for (const form of forms) expect(text.split(form).length - 1, `copies of ${form}`).toBe(0);
  // The target's session cookie: named, its value not kept.
  expect(text).toContain('"value":"SSO_SESSION=[REDACTED]; Path=/; HttpOnly"');
  expect(text).not.toContain(SESSION_COOKIE);
});

const bundles = new Map<string, Promise<string>>();

/** `npm run bundle` of the reports in `<dir>/<name>`, once a name: the bundle's path. */
function bundleOf(name: string): Promise<string> {
  const made =
    bundles.get(name) ??
    (async () => {
      const out = join(dir, `${name}-bundle`);
      const run = await cli('cli-bundle.ts', ['--reports', join(dir, name), '--out', out]);
      expect(run.code, run.output).toBe(0);
      return join(out, readdirSync(out)[0] ?? '');
    })();
  bundles.set(name, made);
  return made;
}

/**
 * `npm run verify` of the bundle of the reports in `<dir>/<name>`, which keeps the re-grade's reports: a replay of
 * the recording, on the tests the run ran, as a verifier gets it. `env` is the verifier's.
 */
async function bundleAndVerify(name: string, env: Record<string, string> = {}) {
  const reports = join(dir, `${name}-regraded`);
  const verified = await cli('cli-verify.ts', [await bundleOf(name), '--regrade-reports', reports], env);
  expect(verified.stdout).toContain(`re-grade's reports: ${join(reports, 'conformance.html')}`);
  return { ...verified, regraded: () => readReport(reports) };
}

test('a run whose target died mid-run replays alike: the tests it left unsent are not run again', async () => {
  test.setTimeout(RUN_TIMEOUT_MS + 20_000);
  const dying = (upstream: string) => startHostileTarget({ upstream, after: 60, misbehave: hang });
  const { tokens, report: died } = await liveRunBehind('died', dying, { RSF_REQUEST_TIMEOUT_MS: '1000' }, 2);
  const env = { ...tokens, RSF_ALLOW_WRITES: 'true' };
  const har = join(dir, 'died', HAR_FILE);
  const recorded = JSON.parse(readFileSync(har, 'utf8')) as RsfHar;
  const { verdict, headline } = died.summary;
  expect(recorded.log._rsf.replay?.breaker?.cause, `the live run: ${verdict}, ${headline}`).toBe('no-answer');
  expect(died.summary.verdict).toBe('ERROR');
  expect(Object.values(statuses(died))).toContain('not run');
  // Re-graded, the tests the breaker stopped are in the test list, and not run again, as they were.
  const verified = await bundleAndVerify('died', env);
  expect(verified.code, verified.output).toBe(0);
  expect(verified.stdout).toMatch(/re-grade: the verdict stands \(ERROR\)/);
  const replayed = verified.regraded();
  expect(replayed.summary.verdict).toBe('ERROR');
  expect(statuses(replayed)).toEqual(statuses(died));
});

test('a run of some tests (--grep) is re-graded on those alone: the verdict stands', async () => {
  test.setTimeout(2 * RUN_TIMEOUT_MS);
  const partial = await conformance('some', { RSF_REFERENCE_FAULT: FAULT }, 1, ['--grep', `@${FAULT_REQUIREMENT}\\b`]);
  expect(partial.summary.verdict).toBe('FAIL');
  expect(partial.summary.counts.MUST.untested).toBeGreaterThan(50);
  const verified = await bundleAndVerify('some');
  expect(verified.code, verified.output).toBe(0);
  expect(verified.stdout).toMatch(/re-grade: the verdict stands \(FAIL\): all \d+ requirements have the same status/);
});

test('a run its preflight stopped replays alike, and its bundle verifies: the verdict stands (ERROR)', async () => {
  test.setTimeout(2 * RUN_TIMEOUT_MS);
  const secrets = fakeSecrets();
  const reference = await startReferenceServer({ bearerToken: secrets.bearer, channelToken: secrets.channel });
  let stopped: ConformanceReport;
  try {
    // A token the target does not accept, as an expired one: the preflight stops the run before any test.
    stopped = await conformance('stopped', { RSF_TARGET_URL: reference.url, RSF_BEARER_TOKEN: fakeSecrets().bearer });
  } finally {
    await reference.close();
  }
  const har = join(dir, 'stopped', HAR_FILE);
  const recorded = JSON.parse(readFileSync(har, 'utf8')) as RsfHar;
  expect(stopped.summary.verdict).toBe('ERROR');
  expect(recorded.log._rsf.replay?.stoppedBeforeTests).toMatch(/^Preflight failed, so no test was run\.\n.*HTTP 401/s);
  // Before, the replay judged every test on a recording that held none of their requests: "does not stand".
  const verified = await bundleAndVerify('stopped');
  expect(verified.code, verified.output).toBe(0);
  expect(verified.stdout).toMatch(/re-grade: the verdict stands \(ERROR\): all \d+ requirements have the same status/);
  const replayed = verified.regraded();
  expect(replayed.summary.verdict).toBe('ERROR');
  expect(replayed.summary.errors.join('\n')).toContain('The recorded run stopped before its first test');
  expect(statuses(replayed)).toEqual(statuses(stopped));
});

/**
 * Test data other than the defaults, as a vendor's .env sets it: its replays and re-grade are not given them, as a
 * machine without that .env would not be; the recording carries them (log._rsf.replay.settings).
 */
const LIVE_DATA = { RSF_PRODUCT_ID: '1002', RSF_CART_AMOUNT: '2' };

test.describe('a faulty run and its replay', () => {
  let live: ConformanceReport;
  test.beforeAll(async () => {
    test.setTimeout(RUN_TIMEOUT_MS + 20_000);
    live = await conformance('live', { RSF_REFERENCE_FAULT: FAULT, ...LIVE_DATA }, 2);
  });

  test('re-graded, the run fails on the same requirements, every status alike, sending nothing', async () => {
    test.setTimeout(2 * RUN_TIMEOUT_MS);
    const recorded = JSON.parse(readFileSync(join(dir, 'live', HAR_FILE), 'utf8')) as RsfHar;
    expect(recorded.log._rsf.seed).toBe(live.summary.seed);
    expect(recorded.log._rsf.replay?.settings).toMatchObject(LIVE_DATA);
    expect(recorded.log.entries.some((e) => e.request.url.includes(`/_faults/${FAULT}/v1/`))).toBe(true);
    expect(live.summary.verdict).toBe('FAIL');
    expect(failing(live)).toContain(FAULT_REQUIREMENT);
    // The verifier's own waivers do not apply: the re-grade judges, and the run's waivers are in its report.
    const waivers = join(dir, 'verifier-waivers.json');
    writeFileSync(waivers, JSON.stringify([{ id: FAULT_REQUIREMENT, reason: "the verifier's own" }]));
    const verified = await bundleAndVerify('live', { RSF_WAIVERS_FILE: waivers });
    expect(verified.code, verified.output).toBe(0);
    expect(verified.stdout).toContain('run: FAIL against embedded reference server');
    expect(verified.stdout).toMatch(/re-grade: the verdict stands \(FAIL\): all \d+ requirements have the same status/);
    const replayed = verified.regraded();
    // Its requests go to recording.invalid, which resolves nowhere: one sent would be inconclusive here.
    expect(replayed.summary.target).toMatch(new RegExp(`^recording \\S+/${HAR_FILE}$`));
    expect(replayed.summary.verdict).toBe('FAIL');
    expect(statuses(replayed)).toEqual(statuses(live));
  });

  test('a request the recording lacks makes its check inconclusive (not in the recording), never failed', async () => {
    test.setTimeout(RUN_TIMEOUT_MS + 20_000);
    const recorded = JSON.parse(readFileSync(join(dir, 'live', HAR_FILE), 'utf8')) as RsfHar;
    const judges = (e: (typeof recorded.log.entries)[number]) =>
      (e._rsf as HarEntryExtension).requirements.includes(FAULT_REQUIREMENT);
    recorded.log.entries = recorded.log.entries.filter((e) => !judges(e));
    const partial = join(dir, 'partial.har');
    writeFileSync(partial, JSON.stringify(recorded));
    const replayed = await conformance('partial', { RSF_TARGET_URL: `har:${partial}` });
    expect(statuses(replayed)[FAULT_REQUIREMENT]).toBe('inconclusive');
    expect(JSON.stringify(replayed.requirements)).toContain('not in the recording');
    for (const id of failing(replayed)) expect(failing(live)).toContain(id);
  });

  test('npm run verify refuses a bundle whose HAR was changed: exit 2, naming it', async () => {
    test.setTimeout(RUN_TIMEOUT_MS);
    const entries = readArchive(readFileSync(await bundleOf('live')));
    const har = Buffer.from(entries.get(HAR_FILE) ?? []);
    const at = Math.floor(har.length / 2);
    har[at] = (har[at] ?? 0) ^ 0x01; // one byte of the HAR flipped, the archive packed again
    entries.set(HAR_FILE, har);
    const changed = join(dir, 'changed.zip');
    writeFileSync(changed, zipSync(Object.fromEntries(entries)));
    const refused = await cli('cli-verify.ts', [changed]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`verify: "${HAR_FILE}" is damaged or was changed: its SHA-256 is not the manifest's\n`);
  });
});
