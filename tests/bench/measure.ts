// The measuring instruments of `npm run bench`: timed child commands, the reference server as a process of its own,
// raw fetch at a given concurrency. Every child runs in a process group of its own and is killed after its time-out.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { childEnv, killGroup, runInGroup } from '../self/support/child-run';

export const REPO_ROOT = `${__dirname}/../..`;

/** The conformance reporter's last line: `Conformance: PASS — …`. */
const VERDICT = /^Conformance: (PASS|FAIL|ERROR)\b.*$/m;

export interface TimedRun {
  /** From spawning the command to its verdict line, or to its exit when it printed none. */
  toVerdictMs: number;
  toExitMs: number;
  exitCode: number | null;
  verdict?: string;
  /** The verdict line, or the output's last lines when there is none: what to show when a run went wrong. */
  summary: string;
  /** stdout and stderr, interleaved as they came. */
  output: string;
}

/**
 * Runs `command args` from the repository root, as a fresh clone would: every RSF_ setting empty (no developer .env
 * reaches it), then `env`. Resolves when it exits or, killed, after timeoutMs.
 */
export async function timedRun(
  command: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<TimedRun> {
  const started = performance.now();
  let verdictAt: number | undefined;
  const run = await runInGroup(command, args, env, timeoutMs, {
    onStdout: (stdout) => {
      if (verdictAt === undefined && VERDICT.test(stdout)) verdictAt = performance.now();
    },
  });
  const exitedAt = performance.now();
  const match = VERDICT.exec(run.output);
  return {
    toVerdictMs: (verdictAt ?? exitedAt) - started,
    toExitMs: exitedAt - started,
    exitCode: run.code,
    verdict: match?.[1],
    summary: match?.[0] ?? run.output.trimEnd().split('\n').slice(-15).join('\n'),
    output: run.output,
  };
}

export interface ReferenceProcess {
  /** Root URL, without /v1. */
  url: string;
  stop(): void;
}

/** `npm run reference`'s entry point on a free port, as a process of its own (so that no client shares its CPU). */
export function startReferenceProcess(env: Record<string, string>, timeoutMs = 30_000): Promise<ReferenceProcess> {
  return new Promise((resolve, reject) => {
    const tsx = require.resolve('tsx/cli');
    const child = spawn(process.execPath, [tsx, 'reference/main.ts'], {
      cwd: REPO_ROOT,
      env: childEnv({ ...env, RSF_REFERENCE_PORT: '0' }),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const stop = () => killGroup(child);
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`the reference server did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /Reference server at (http:\/\/\S+)\/v1/.exec(output);
      if (!match?.[1]) return;
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      resolve({ url: match[1], stop });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the reference server exited (${code}) before it answered:\n${output}`));
    });
  });
}

export interface RawFetchResult {
  requests: number;
  concurrency: number;
  elapsedMs: number;
  /** Answers with a status other than expected: a sign the comparison is off. */
  unexpected: number;
}

/** `count` GET requests to `url`, `concurrency` at a time, each body read whole: HTTP with nothing around it. */
export async function rawFetch(
  url: string,
  headers: Record<string, string>,
  count: number,
  concurrency: number,
): Promise<RawFetchResult> {
  let next = 0;
  let unexpected = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < count) {
      next++;
      const response = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
      await response.arrayBuffer();
      if (response.status !== 200) unexpected++;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane));
  return { requests: count, concurrency, elapsedMs: performance.now() - started, unexpected };
}

export interface TestDuration {
  file: string;
  title: string;
  outcome: 'passed' | 'failed' | 'skipped';
  ms: number;
}

const OUTCOMES: Record<string, TestDuration['outcome']> = { '✓': 'passed', '✘': 'failed', '-': 'skipped' };

/**
 * Durations of the tests as Playwright's list reporter prints them:
 * `  ✓  12 [project] › file:3:1 › title (1.2s)`.
 */
export function listedDurations(output: string): TestDuration[] {
  // Two spaces: the run's own lines; a child run's, quoted in a failure message, are indented further.
  const line = /^ {2}(✓|✘|-)\s+\d+\s+(?:\[[^\]]*\] › )?(\S+?):\d+:\d+ › (.*) \((\d+(?:\.\d+)?)(ms|s|m)\)\s*$/;
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };
  return output.split('\n').flatMap((text) => {
    const m = line.exec(text);
    const [, mark = '', file = '', title = '', amount = '', unitName = 'ms'] = m ?? [];
    const outcome = OUTCOMES[mark] ?? 'failed';
    return m ? [{ file, title, outcome, ms: Number(amount) * (unit[unitName] ?? 1) }] : [];
  });
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const at = (i: number): number => sorted[i] ?? Number.NaN;
  return sorted.length % 2 === 1 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
}
