// Two runs into one reports folder: the second would remove the first's reports as it starts, and the last to end
// would leave a mix of both. The first holds a lock there until its reports are written (src/report/reports-dir.ts);
// the second stops before any test, in ERROR, naming the setting, and writes nothing.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { LOCK_STALE_AFTER_MS, REPORTS_LOCK, reportsLockProblem, takeReportsLock } from '../../src/report/reports-dir';
import { expect, test } from '../../src/playwright/fixtures';
import { lastLine, runPlaywright } from './support/child-run';
import { scratchDir } from './support/scratch';

test.describe.configure({ mode: 'parallel' });

/** A reports folder whose lock names `pid` on `host`, marked `ageMs` ago. */
function lockedFolder(pid: number, host = hostname(), ageMs = 0): string {
  const dir = scratchDir('reports-lock');
  const file = join(dir, REPORTS_LOCK);
  writeFileSync(file, JSON.stringify({ pid, host, since: '2026-11-29T00:00:00.000Z' }));
  const markedAt = new Date(Date.now() - ageMs);
  utimesSync(file, markedAt, markedAt);
  return dir;
}

/** The ID of a process that has ended. */
const endedPid = (): number => Number(spawnSync(process.execPath, ['-p', 'process.pid']).stdout.toString());

test('a lock held by a live run refuses this one; one left by an ended run, or not marked, is taken over', () => {
  // The self-tests' runner lives as long as this test: another run on this machine.
  const live = lockedFolder(process.ppid);
  const held = takeReportsLock(live);
  expect(held).toEqual({
    problem:
      `RSF_REPORTS_DIR: another run is writing its reports to ${live} (process ${process.ppid} on this machine, ` +
      'since 2026-11-29T00:00:00.000Z): wait for it to end, or give this run a folder of its own (RSF_REPORTS_DIR)',
  });
  expect(reportsLockProblem(live)).toBe((held as { problem: string }).problem);
  expect(reportsLockProblem(lockedFolder(process.ppid, 'ci-runner-7'))).toContain('on the machine ci-runner-7');

  for (const [why, dir] of [
    ['its process ended', lockedFolder(endedPid())],
    ['not marked for longer than a run marks it', lockedFolder(process.ppid, hostname(), LOCK_STALE_AFTER_MS + 5000)],
    ['on another machine, not marked', lockedFolder(process.ppid, 'ci-runner-7', LOCK_STALE_AFTER_MS + 5000)],
    ['cut short as it was written', lockedFolder(process.ppid)],
  ] as const) {
    if (why === 'cut short as it was written') writeFileSync(join(dir, REPORTS_LOCK), '{"pid":');
    expect(reportsLockProblem(dir), why).toBeUndefined();
    const lock = takeReportsLock(dir);
    expect(lock, why).not.toHaveProperty('problem');
    expect(JSON.parse(readFileSync(join(dir, REPORTS_LOCK), 'utf8')), why).toMatchObject({ pid: process.pid });
    (lock as { release(): void }).release();
    expect(existsSync(join(dir, REPORTS_LOCK)), `${why}: released`).toBe(false);
  }
});

test('a run into a folder another run writes to: ERROR before any test, said once, its reports untouched', async () => {
  const reportsDir = lockedFolder(process.ppid);
  const theirs = '{"written by":"the other run"}\n';
  writeFileSync(join(reportsDir, 'conformance.json'), theirs);
  const run = await runPlaywright(
    ['test', 'tests/conformance/prices.spec.ts', '--output', join(reportsDir, '..', 'results')],
    { RSF_REPORTS_DIR: reportsDir },
    60_000,
  );
  const output = run.stdout + run.stderr;
  expect(run.code, output).toBe(2);
  const problem = `RSF_REPORTS_DIR: another run is writing its reports to ${reportsDir} (process ${process.ppid}`;
  const verdict = lastLine(run.stdout);
  expect(verdict.startsWith(`Conformance: ERROR — the configuration is invalid: ${problem}`), verdict).toBe(true);
  expect(verdict).toMatch(/\(no report written\)$/);
  expect(output.replace(verdict, '').split(problem), 'said once').toHaveLength(2);
  expect(output, 'no test ran').not.toMatch(/^\s*\d+ (passed|failed)/m);
  expect(readFileSync(join(reportsDir, 'conformance.json'), 'utf8'), 'not removed, not written').toBe(theirs);
  expect(JSON.parse(readFileSync(join(reportsDir, REPORTS_LOCK), 'utf8')), 'still theirs').toMatchObject({
    pid: process.ppid,
  });
});
