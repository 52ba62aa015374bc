// The reports folder (RSF_REPORTS_DIR). One it cannot make or write to is a configuration error: the global setup
// finds it before any request, and the reporter, which finds it again, writes nothing and ends the run in ERROR. So is
// one that another run is writing to: the reporter takes a lock in it as the run starts (REPORTS_LOCK).
import { accessSync, constants, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isRunning } from '../http/run-folders';
import { firstLines } from '../model/text';

/** Why the reports cannot be written to `dir` (made if it is missing); undefined when they can. */
export function reportsDirProblem(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    return undefined;
  } catch (e) {
    return `RSF_REPORTS_DIR: the reports cannot be written to ${dir} (${firstLines((e as Error).message)})`;
  }
}

/** In the reports folder while a run writes its reports there: which run, so that a second one into it is refused. */
export const REPORTS_LOCK = '.rsf-run.lock';
/** How often the run holding the lock marks it as still in use (its mtime). */
const LOCK_REFRESH_MS = 20_000;
/**
 * A lock not marked for this long is a run's that ended without removing it (killed, or on another machine sharing
 * the folder), or whose process ID another process now has.
 */
export const LOCK_STALE_AFTER_MS = 6 * LOCK_REFRESH_MS;

interface LockHolder {
  pid: number;
  host: string;
  since: string;
}

/** The lock of the run holding the folder: `release` it once its reports are written. */
export interface ReportsLock {
  release(): void;
}

const isOurs = (holder: LockHolder): boolean => holder.pid === process.pid && holder.host === hostname();

/** The run holding `dir`'s lock, if a live one does: not this process, not a lock left by a run that ended. */
function otherHolder(dir: string): LockHolder | undefined {
  const file = join(dir, REPORTS_LOCK);
  let holder: LockHolder;
  let markedAt: number;
  try {
    holder = JSON.parse(readFileSync(file, 'utf8')) as LockHolder;
    markedAt = statSync(file).mtimeMs;
  } catch {
    return undefined; // none, or one cut short as it was written: no run to wait for
  }
  if (!Number.isInteger(holder.pid) || typeof holder.host !== 'string' || isOurs(holder)) return undefined;
  if (Date.now() - markedAt > LOCK_STALE_AFTER_MS) return undefined;
  if (holder.host === hostname() && !isRunning(holder.pid)) return undefined;
  return holder;
}

function heldMessage(dir: string, holder: LockHolder): string {
  const where = holder.host === hostname() ? 'this machine' : `the machine ${holder.host}`;
  return (
    `RSF_REPORTS_DIR: another run is writing its reports to ${dir} (process ${holder.pid} on ${where}, since ` +
    `${holder.since}): wait for it to end, or give this run a folder of its own (RSF_REPORTS_DIR)`
  );
}

/** For the global setup: why this run may not write to `dir`, another run holding it; undefined when it may. */
export function reportsLockProblem(dir: string): string | undefined {
  const holder = otherHolder(dir);
  return holder && heldMessage(dir, holder);
}

/**
 * Takes `dir`'s lock for this process, marked as in use until released: the lock, or why another run holds it.
 * A folder that cannot be written to gets a lock that holds nothing (reportsDirProblem says why).
 */
export function takeReportsLock(dir: string): ReportsLock | { problem: string } {
  const file = join(dir, REPORTS_LOCK);
  const holder: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, `${JSON.stringify(holder)}\n`, { flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return { release: () => {} };
      const other = otherHolder(dir);
      if (other) return { problem: heldMessage(dir, other) };
      rmSync(file, { force: true }); // left by a run that ended; of two runs that find it so, `wx` lets one in
      continue;
    }
    const refresh = setInterval(() => {
      const now = new Date();
      try {
        utimesSync(file, now, now);
      } catch {}
    }, LOCK_REFRESH_MS).unref();
    return {
      release: () => {
        clearInterval(refresh);
        try {
          if (isOurs(JSON.parse(readFileSync(file, 'utf8')) as LockHolder)) rmSync(file, { force: true });
        } catch {}
      },
    };
  }
  return { release: () => {} };
}
