// Ctrl-C, or SIGTERM from a cancelled CI job: the run stops as Playwright stops it (exit 130), every report says
// ERROR (interrupted) instead of the verdict of what had run so far, and nothing is left in the temporary folder.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { startReferenceServer } from '../../reference/server';
import { markInterrupted } from '../../src/http/interrupt';
import { expect, test } from '../../src/playwright/fixtures';
import {
  type GroupRunOptions,
  REPO_ROOT,
  type SuiteRun,
  foldersLeftBy,
  lastLine,
  readReport,
  runInGroup,
  runSuiteIn,
} from './support/child-run';
import { slowFor, startHostileTarget } from './support/hostile-server';
import { scratchDir } from './support/scratch';
import { loopbackUrl } from './support/listening';

test.describe.configure({ mode: 'parallel' });

const RUN_TIMEOUT_MS = 60_000;

/** Resolves once `condition` holds: the moment the test sends its signal. */
function once(condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      if (!condition()) return;
      clearInterval(poll);
      resolve();
    }, 20);
  });
}

/** A target that accepts connections and never answers: its root URL, and how many connections it has had. */
async function silentTarget(): Promise<{ url: string; connections: () => number; close: () => void }> {
  let connections = 0;
  const server = createServer(() => connections++);
  const url = await loopbackUrl(server);
  return { url, connections: () => connections, close: () => server.close() };
}

test('Ctrl-C during the preflight: ERROR before any test ran, exit 130, nothing left behind', async () => {
  const silent = await silentTarget();
  try {
    const run = await runSuiteIn(
      'interrupt-preflight',
      { RSF_TARGET_URL: silent.url, RSF_REQUEST_TIMEOUT_MS: String(RUN_TIMEOUT_MS) },
      [],
      RUN_TIMEOUT_MS,
      { interrupt: { signal: 'SIGINT', when: once(() => silent.connections() > 0) } },
    );
    expect(run.code, run.output).toBe(130);
    expect(run.verdict).toMatch(
      /^Conformance: ERROR — the run was interrupted \(Ctrl-C, or a signal\) before any test/,
    );
    expect(readReport(run.reportsDir).summary.verdict).toBe('ERROR');
    expect(foldersLeftBy(run)).toEqual([]);
  } finally {
    silent.close();
  }
});

/**
 * The suite against a target that, once 20 tests have passed, hangs on every request (a test that waits on one is cut
 * short by the stop, never answered), or, `slow`, answers each 300 ms late (tests still end, and write their lines,
 * without the run ending before the stop). `cut` says how the run is stopped from then on.
 */
async function cutAfterTwentyTests(
  prefix: string,
  cut: (twentyPassed: Promise<void>) => Pick<GroupRunOptions, 'interrupt' | 'closeOutput'>,
  then: 'hang' | 'slow' = 'hang',
): Promise<SuiteRun> {
  const reference = await startReferenceServer();
  let passed = 0;
  const slow = slowFor(/./, () => reference.url, 300);
  const target = await startHostileTarget({
    upstream: reference.url,
    misbehave: (req, res, index) => passed >= 20 && (then === 'hang' || slow(req, res, index)),
  });
  try {
    return await runSuiteIn(
      prefix,
      {
        RSF_TARGET_URL: target.url,
        RSF_REQUEST_TIMEOUT_MS: String(RUN_TIMEOUT_MS),
        RSF_MAX_REQUESTS_PER_SECOND: '0',
      },
      [],
      RUN_TIMEOUT_MS,
      {
        onStdout: (stdout) => (passed = stdout.match(/^ {2}✓/gm)?.length ?? 0),
        ...cut(once(() => passed >= 20)),
      },
    );
  } finally {
    await target.close();
    await reference.close();
  }
}

/** Stopped as on Ctrl-C: exit 130, every report says ERROR for `headline`, nothing left in the temporary folder. */
function expectStoppedAsOnCtrlC(run: SuiteRun, headline: RegExp): void {
  expect(run.code, run.output).toBe(130);
  const { summary } = readReport(run.reportsDir);
  expect(summary.verdict).toBe('ERROR');
  expect(summary.headline).toMatch(headline);
  expect(foldersLeftBy(run)).toEqual([]);
}

test('SIGTERM mid-run, as a cancelled CI job sends it: ERROR, tests cut short not failed, nothing left', async () => {
  const run = await cutAfterTwentyTests('interrupt-mid-run', (when) => ({ interrupt: { signal: 'SIGTERM', when } }));
  const interrupted = /^the run was interrupted \(Ctrl-C, or a signal\) with (\d+) of (\d+) tests/;
  expectStoppedAsOnCtrlC(run, interrupted);
  expect(run.verdict).toMatch(/^Conformance: ERROR — the run was interrupted \(Ctrl-C, or a signal\)/);
  const [, unfinished, total] = interrupted.exec(readReport(run.reportsDir).summary.headline) ?? [];
  expect(Number(unfinished), 'the tests that passed before the signal are not among them').toBeLessThanOrEqual(
    Number(total) - 20,
  );
  expect(run.stdout, 'a test cut short is interrupted, not failed').not.toMatch(/^ {2}\d+ failed$/m);
});

test('output closed mid-run (`| head`, a pager quit): the run stops as on Ctrl-C, its reports say why', async () => {
  // Before, the runner's next write failed (EPIPE), and it ended with a stack trace, exit 1 and no report. A closed
  // output shows only when the runner next writes: the tests go on ending, slowly.
  const run = await cutAfterTwentyTests('output-closed', (when) => ({ closeOutput: when }), 'slow');
  expectStoppedAsOnCtrlC(
    run,
    /^the run was interrupted \(its output was closed \(a pager quit, or `\| head`\)\) with \d+ of \d+ tests/,
  );
});

test('SIGHUP to the group (a terminal closed, SSH dropped): it stops as on Ctrl-C, its reports say why', async () => {
  // Before, SIGHUP ended the runner and its workers at once: no report, and an earlier run's reports stood.
  const run = await cutAfterTwentyTests('terminal-closed', (when) => ({ interrupt: { signal: 'SIGHUP', when } }));
  expectStoppedAsOnCtrlC(run, /^the run was interrupted \(its terminal was closed \(SIGHUP\)\) with \d+ of \d+ tests/);
});

// `npm run conformance` starts Playwright under `sh -c`, and dash passes no signal on: a SIGTERM to npm alone (`docker
// stop` with npm as the container's first process) ended npm and its shell, and left the run going (launcher-gone.ts).
test('SIGTERM to npm alone, as docker stop sends it: the run stops as on Ctrl-C, ERROR', async () => {
  const silent = await silentTarget(); // the run ends only if stopped
  const out = scratchDir('interrupt-npm');
  const reportsDir = join(out, 'reports');
  try {
    const run = await runInGroup(
      'npm',
      ['run', '--silent', 'conformance', '--', '--output', join(out, 'results')],
      {
        RSF_TARGET_URL: silent.url,
        RSF_REQUEST_TIMEOUT_MS: String(RUN_TIMEOUT_MS),
        RSF_REPORTS_DIR: reportsDir,
      },
      // Killed before the test's own time-out, so that a run that went on fails on what it printed.
      RUN_TIMEOUT_MS / 2,
      { interrupt: { signal: 'SIGTERM', when: once(() => silent.connections() > 0), alone: true } },
    );
    expect(lastLine(run.stdout), run.output).toMatch(
      /^Conformance: ERROR — the run was interrupted \(Ctrl-C, or a signal\) before any test/,
    );
    expect(readReport(reportsDir).summary.verdict).toBe('ERROR');
  } finally {
    silent.close();
  }
});

// Playwright's stop interrupts the test a worker runs, but not one that starts as the stop arrives (between two of its
// phases): that test then waited on its request to a hanging target until RSF_REQUEST_TIMEOUT_MS, and the run with it.
// A signal to the process group reaches the workers too; a SIGTERM to the runner alone (`kill <pid>`) reaches them as
// the runner's mark in the run directory. Either way a worker cuts its requests short itself.
for (const how of ['SIGTERM to the group', "the runner's mark"] as const) {
  test(`a worker cuts its requests in flight short and sends no more, time-out or not: ${how}`, async () => {
    const silent = await silentTarget();
    const url = `${silent.url}/v1/prices`;
    const runDir = scratchDir('run');
    // A worker's two requests, the first in flight as the signal comes, with a time-out longer than this test's.
    const script = join(scratchDir('worker'), 'worker.ts');
    writeFileSync(
      script,
      `import { interruptOnSignals } from ${JSON.stringify(join(REPO_ROOT, 'src/http/interrupt'))};
import { wire } from ${JSON.stringify(join(REPO_ROOT, 'src/http/wire'))};
interruptOnSignals(${JSON.stringify(runDir)});
const send = wire({ timeoutMs: 600_000, maxBodyBytes: 1024 });
const request = { method: 'GET', url: ${JSON.stringify(url)}, headers: {} };
void (async () => {
  const kinds = [];
  for (const _ of [1, 2]) {
    const sent = await send(request);
    kinds.push(sent.kind === 'no-answer' ? sent.failure.kind : sent.kind);
  }
  console.log(JSON.stringify(kinds));
})();
`,
    );
    const inFlight = once(() => silent.connections() > 0);
    try {
      const byMark = how === "the runner's mark";
      if (byMark) void inFlight.then(() => markInterrupted(runDir));
      const options = byMark ? {} : { interrupt: { signal: 'SIGTERM' as const, when: inFlight } };
      const run = await runInGroup('node', ['--import', 'tsx', script], {}, 50_000, options);
      expect(run.code, run.output).toBe(0);
      expect(JSON.parse(run.stdout), 'each request, as the script saw it').toEqual(['interrupted', 'interrupted']);
      expect(silent.connections(), 'the second request was not sent').toBe(1);
    } finally {
      silent.close();
    }
  });
}
