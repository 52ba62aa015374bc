// Self-test helpers: run Playwright in a child process, the way Playwright tests its own reporters.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { requirements } from '../../../src/model/catalogue';
import { SETTINGS } from '../../../src/config/config';
import { removeAbandonedRunFolders } from '../../../src/http/run-folders';
import { REPO_ROOT } from '../../../src/playwright/collect';
import type { ConformanceReport } from '../../../src/report/model';
import { scratchDir } from './scratch';
import { SELF_TEST_RUN_ENV } from './self-test-run';

export { REPO_ROOT };
const CLI = require.resolve('@playwright/test/cli');

export interface ChildRun {
  /** The child's process ID: a run's folders in the temporary folder are named after its runner's (run-folders.ts). */
  pid?: number;
  /** When it was spawned (epoch ms): a folder of an earlier process with the same ID is older. */
  startedAt: number;
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The parent's environment without what would leak into the child run: Playwright's worker variables, every
 * RSF_ / FAKE_ setting, and GitHub's job summary file (each child's report would be appended to it). Each setting
 * is also set empty, which dotenv does not override, so that a developer's .env
 * (a real RSF_TARGET_URL, say) never reaches a self-test's child run: it gets the defaults, and what `extra` says.
 * In npm test, NODE_OPTIONS also preloads the compile cache of the checkout's modules (withCompileCache).
 */
export function childEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^(PW_|PWTEST_|PLAYWRIGHT_|TEST_|RSF_|FAKE_|FORCE_COLOR$|GITHUB_STEP_SUMMARY$)/.test(k)) env[k] = v;
  for (const setting of Object.values(SETTINGS)) env[setting.name] = '';
  env.FORCE_COLOR = '0';
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  if (process.env[SELF_TEST_RUN_ENV] !== undefined) env.NODE_OPTIONS = withCompileCache(env.NODE_OPTIONS);
  return env;
}

/** Keeps V8's code cache of the checkout's modules for the next process (compile-cache.cjs says why, and how). */
export const COMPILE_CACHE = join(__dirname, 'compile-cache.cjs');

/**
 * NODE_OPTIONS that preload COMPILE_CACHE, for npm test's child runs only: npm run bench's measure what users run,
 * and the suite itself never loads it.
 */
function withCompileCache(nodeOptions: string | undefined): string {
  return [nodeOptions, `--require ${JSON.stringify(COMPILE_CACHE)}`].filter(Boolean).join(' ');
}

/** Kills a child spawned with `detached: true` and its whole process group (Playwright's workers, tsx's server). */
export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * The folders a run left in the temporary folder: run-folders.ts names them `rsf-<kind>-<runner pid>-…`. Process IDs
 * are reused, and a run killed on purpose leaves its folders for a day (run-folders.ts): one made before the run
 * started is another process's.
 */
export function foldersLeftBy({ pid, startedAt }: Pick<ChildRun, 'pid' | 'startedAt'>): string[] {
  return readdirSync(tmpdir()).filter((name) => {
    if (!(name.startsWith('rsf-') && name.includes(`-${pid}-`))) return false;
    const made = statSync(join(tmpdir(), name), { throwIfNoEntry: false });
    return made !== undefined && (made.birthtimeMs || made.mtimeMs) >= startedAt;
  });
}

export interface GroupRun extends ChildRun {
  /** stdout and stderr, interleaved as they came. */
  output: string;
}

export interface GroupRunOptions {
  /** Sees stdout as it comes (the bench times the verdict line by it). */
  onStdout?: (stdoutSoFar: string) => void;
  /**
   * Sends `signal` to the whole group once `when` resolves, as a terminal's Ctrl-C or a cancelled CI job does; or,
   * `alone`, to the process spawned only, as `kill <pid>` does.
   */
  interrupt?: { signal: NodeJS.Signals; when: Promise<unknown>; alone?: boolean };
  /** Closes the pipes of stdout and stderr once this resolves, as `| head` or a pager that quits does. */
  closeOutput?: Promise<unknown>;
  /** The working directory, when not the repository root. */
  cwd?: string;
  /** Another user to run as (the caller must be root): see `anotherUser`. */
  user?: { uid: number; gid: number };
}

/**
 * `nobody`, when this process is root and that user can reach the checkout and each of `folders`, else undefined: a
 * run as that user finds the checkout read-only, as a container image's user often does.
 */
export function anotherUser(...folders: string[]): GroupRunOptions['user'] {
  if (process.getuid?.() !== 0) return undefined;
  const entry = /^nobody:[^:]*:(\d+):(\d+):/m.exec(readFileSync('/etc/passwd', 'utf8'));
  if (!entry) return undefined;
  for (const folder of [REPO_ROOT, ...folders]) {
    for (let dir = folder; dir !== dirname(dir); dir = dirname(dir)) {
      if ((statSync(dir).mode & 0o005) !== 0o005) return undefined; // not listed and entered by others (a umask 077)
    }
  }
  const user = { uid: Number(entry[1]), gid: Number(entry[2]) };
  // A root that may not become that user (a user namespace that does not map it, no CAP_SETUID) cannot run as it.
  return spawnSync(process.execPath, ['-e', ''], user).status === 0 ? user : undefined;
}

/**
 * Runs `command args` from the repository root (or `cwd`) in a process group of its own, with `childEnv(extraEnv)`;
 * the whole group is killed after timeoutMs.
 */
export function runInGroup(
  command: string,
  args: string[],
  extraEnv: Record<string, string | undefined>,
  timeoutMs: number,
  { onStdout, interrupt, closeOutput, cwd = REPO_ROOT, user }: GroupRunOptions = {},
): Promise<GroupRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      cwd,
      ...user,
      env: childEnv(extraEnv),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      output += d.toString('utf8');
      onStdout?.(stdout);
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
      output += d.toString('utf8');
    });
    const started = Date.now();
    let killed = false;
    const timer = setTimeout(() => {
      stderr += `\n[child-run] killed after ${timeoutMs} ms\n`;
      output += `\n[child-run] killed after ${timeoutMs} ms\n`;
      killed = true;
      killGroup(child);
    }, timeoutMs);
    void closeOutput?.then(() => {
      child.stdout.destroy();
      child.stderr.destroy();
    });
    void interrupt?.when.then(() => {
      if (child.pid !== undefined && child.exitCode === null)
        process.kill(interrupt.alone ? child.pid : -child.pid, interrupt.signal);
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      // A run killed here had no global teardown: its folders in the temporary folder go with it.
      if (killed) removeAbandonedRunFolders({ since: started });
      resolvePromise({
        ...(child.pid !== undefined && { pid: child.pid }),
        startedAt: started,
        code,
        stdout,
        stderr,
        output,
      });
    });
  });
}

/**
 * A run of the conformance suite (`test` without --config) gets one worker unless its args name a number, and 10
 * runs per property unless its environment names a number. npm test runs four such child runs at once on the 2
 * cores it targets: a second worker each would cost more CPU to start than it saves, and a child run checks what
 * its test is about, not the properties' reach (the matrix and properties-replay.spec.ts run them at full length).
 * A test about what the workers share (the breaker, a refreshed token, the recording) names its own number.
 */
function conformanceDefaults(
  args: string[],
  env: Record<string, string | undefined>,
): [string[], Record<string, string | undefined>] {
  if (args[0] !== 'test' || args.includes('--config')) return [args, env];
  const named = args.some((arg) => arg.startsWith('--workers') || arg === '-j');
  return [named ? args : [...args, '--workers=1'], { RSF_FC_NUM_RUNS: '10', ...env }];
}

/** `npx playwright <args>` from the repository root; the whole process group is killed after timeoutMs. */
export async function runPlaywright(
  args: string[],
  extraEnv: Record<string, string | undefined>,
  timeoutMs: number,
  options: GroupRunOptions = {},
): Promise<ChildRun> {
  const [runArgs, env] = conformanceDefaults(args, extraEnv);
  const run = await runInGroup(process.execPath, [CLI, ...runArgs], env, timeoutMs, options);
  const { pid, startedAt, code, stdout, stderr } = run;
  return { ...(pid !== undefined && { pid }), startedAt, code, stdout, stderr };
}

/** A run of the suite in an output folder of its own: where its results and reports went, and what it printed. */
export interface SuiteRun extends ChildRun {
  /** The run's folder: results/, reports/ and an empty waivers file. */
  out: string;
  reportsDir: string;
  /** stdout and stderr together. */
  output: string;
  /** The verdict line: the last line of stdout. */
  verdict: string;
}

/**
 * `npx playwright test <args>` with its results and reports in a fresh folder named after `prefix`, and no
 * waivers; `env` adds the run's settings.
 */
export async function runSuiteIn(
  prefix: string,
  env: Record<string, string | undefined>,
  args: string[],
  timeoutMs: number,
  options: GroupRunOptions = {},
): Promise<SuiteRun> {
  const out = scratchDir(prefix);
  writeFileSync(join(out, 'no-waivers.json'), '[]');
  const reportsDir = join(out, 'reports');
  const run = await runPlaywright(
    ['test', '--output', join(out, 'results'), ...args],
    { RSF_REPORTS_DIR: reportsDir, RSF_WAIVERS_FILE: join(out, 'no-waivers.json'), ...env },
    timeoutMs,
    options,
  );
  return { ...run, out, reportsDir, output: `${run.stdout}\n${run.stderr}`, verdict: lastLine(run.stdout) };
}

/** Recognisable secrets, unique per call; the channel token has characters that percent-encoding changes. */
export function fakeSecrets(): { bearer: string; channel: string } {
  const tag = randomBytes(6).toString('hex');
  // Letters in both cases whatever the tag (all digits, 1 time in 280): a token in one case has no other-case probe.
  return { bearer: `ZZSECRETBEARERZZ-x${tag}`, channel: `ZZSECRETCHANNELZZ+x${tag}=` };
}

export function readReport(dir: string): ConformanceReport {
  return JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as ConformanceReport;
}

export const FAKE_SUITE_CONFIG = 'tests/self/fixtures/reporter-suite/playwright.config.ts';
/** A fake run takes seconds; the margin is for a loaded machine. Tests that run it set a longer timeout. */
export const FAKE_RUN_TIMEOUT_MS = 100_000;

export interface FakeRun extends ChildRun {
  reportsDir: string;
  /** The tokens the run was given, which the fake checks put unredacted in their evidence. */
  secrets: { bearer: string; channel: string };
  report: () => ConformanceReport;
  file: (name: string) => string;
}

/** A finished fake run's outputs under `outDir`, with what it printed. */
export function fakeRunIn(outDir: string, run: ChildRun, secrets: FakeRun['secrets']): FakeRun {
  const reportsDir = join(outDir, 'reports');
  if (!existsSync(join(reportsDir, 'conformance.json')))
    throw new Error(`the fake suite wrote no report (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  return {
    ...run,
    reportsDir,
    secrets,
    report: () => readReport(reportsDir),
    file: (name) => readFileSync(join(reportsDir, name), 'utf8'),
  };
}

/**
 * Runs the fake reporter-suite with its outputs under outDir. Unless env says otherwise: no waivers, and fresh
 * secrets (which the fake checks put, unredacted, in their evidence).
 */
export async function runFakeSuite(
  outDir: string,
  opts: { env?: Record<string, string | undefined>; args?: string[] } = {},
): Promise<FakeRun> {
  const secrets = fakeSecrets();
  const env = {
    RSF_WAIVERS_FILE: join(outDir, 'no-waivers.json'),
    RSF_BEARER_TOKEN: secrets.bearer,
    RSF_CHANNEL_TOKEN: secrets.channel,
    ...opts.env,
    FAKE_OUT_DIR: outDir,
  };
  const run = await runPlaywright(
    ['test', '--config', FAKE_SUITE_CONFIG, ...(opts.args ?? [])],
    env,
    FAKE_RUN_TIMEOUT_MS,
  );
  return fakeRunIn(outDir, run, { bearer: env.RSF_BEARER_TOKEN ?? '', channel: env.RSF_CHANNEL_TOKEN ?? '' });
}

/**
 * What the fake reporter-suite makes of the catalogue, per level: the statuses its tests produce, and `untested`
 * for every other requirement, so that the expectations follow the catalogue as it grows.
 */
export function fakeSuiteCounts(): Record<'MUST' | 'SHOULD' | 'INFO', { total: number; untested: number }> {
  const total = (level: string): number => requirements().filter((r) => r.level === level).length;
  const notObservable = requirements().filter((r) => r.level === 'MUST' && r.observable === false).length;
  // The fake suite touches 8 MUST (3 failed, 1 skipped, 4 passed), 3 SHOULD (2 warnings, 1 passed)
  // and 1 INFO requirement.
  return {
    MUST: { total: total('MUST'), untested: total('MUST') - 8 - notObservable },
    SHOULD: { total: total('SHOULD'), untested: total('SHOULD') - 3 },
    INFO: { total: total('INFO'), untested: total('INFO') - 1 },
  };
}

/** The workers a run said it used (`Running 210 tests using 1 worker`); NaN when it said none. */
export function workersUsed(stdout: string): number {
  return Number(/Running \d+ tests? using (\d+) workers?/.exec(stdout)?.[1]);
}

/** The last non-empty line of a text. */
export function lastLine(text: string): string {
  return text.trimEnd().split('\n').at(-1) ?? '';
}
