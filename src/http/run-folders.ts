// The folders a run keeps in the system's temporary folder: the run's shared state, the workers' exchanges, a bundle
// being verified. Each is named after the process that made it, rsf-<kind>-<pid>-<random>, and removed by that
// process at the end. A run killed before then (SIGKILL, a job's time-out) leaves its folders behind: the next run's
// global setup removes those whose process is gone.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const KINDS = ['run', 'exchanges', 'verify'] as const;
export type RunFolderKind = (typeof KINDS)[number];

/** A run folder's name, rsf-<kind>-<pid>-…: its process is the first group. */
const NAME = new RegExp(`^rsf-(?:${KINDS.join('|')})-(\\d+)-`);

/**
 * A folder left this long is not a live run's, even if its process cannot be seen: a run in another PID namespace
 * (a container sharing this temporary folder) has a process this one cannot signal.
 */
export const ABANDONED_AFTER_MS = 24 * 60 * 60_000;

/** A fresh folder of this process, in the system's temporary folder. */
export function makeRunFolder(kind: RunFolderKind): string {
  return mkdtempSync(join(tmpdir(), `rsf-${kind}-${process.pid}-`));
}

/** Whether process `pid` is running (another user's counts: it cannot be signalled, but it is there). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the run folders in `dir` whose process is gone and that were last changed at or after `since` (epoch ms),
 * by default ABANDONED_AFTER_MS ago or earlier. Returns the names removed; one it may not remove is left.
 */
export function removeAbandonedRunFolders(options: { dir?: string; since?: number } = {}): string[] {
  const dir = options.dir ?? tmpdir();
  const cutoff = Date.now() - ABANDONED_AFTER_MS;
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const pid = Number(NAME.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || isRunning(pid)) continue;
    const changed = statSync(join(dir, name), { throwIfNoEntry: false })?.mtimeMs;
    if (changed === undefined) continue;
    if (options.since === undefined ? changed > cutoff : changed < options.since) continue;
    try {
      rmSync(join(dir, name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      // Another user's, in a shared temporary folder: theirs to remove. A run never fails on another run's leftovers.
    }
  }
  return removed;
}
