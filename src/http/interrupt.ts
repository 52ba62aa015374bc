// Ctrl-C, or SIGTERM from a cancelled CI job, in a worker: its requests in flight are cut short and no more go out.
// Playwright stops a worker by interrupting the test it runs, but a stop that comes between two of a test's phases
// (as the next test starts) interrupts nothing, and that test then waits on its requests to the end of their
// time-out: against a target that hangs, RSF_REQUEST_TIMEOUT_MS. A signal to the run's process group (a terminal's
// Ctrl-C, a cancelled job) reaches the workers too, and ends such a wait here, at once. A SIGTERM to the runner alone
// (`kill <pid>`) reaches them through a file the runner leaves in the run directory (markInterrupted), which a worker
// looks for while it has requests in flight.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What this process cuts short when interrupted: each request in flight registers how. */
const inFlight = new Set<() => void>();
let interrupted = false;
let listening = false;
/** The runner's mark, once this process listens for it. */
let marker: string | undefined;
let looking: NodeJS.Timeout | undefined;
/** How often a worker with requests in flight looks for the runner's mark: a stat, a few times a second. */
const LOOK_EVERY_MS = 200;
/** The runner's mark in the run directory: the run was interrupted. */
const MARKER_FILE = 'interrupted';

/**
 * Calls `cutShort` if this process is interrupted while the request is in flight (at once, if it already was); the
 * returned function unregisters it, once the request is settled.
 */
export function whenInterrupted(cutShort: () => void): () => void {
  if (interrupted) {
    cutShort();
    return () => {};
  }
  inFlight.add(cutShort);
  if (marker !== undefined && looking === undefined) {
    const file = marker;
    looking = setInterval(() => {
      if (existsSync(file)) interruptRequests();
    }, LOOK_EVERY_MS);
    looking.unref();
  }
  return () => {
    inFlight.delete(cutShort);
    if (inFlight.size === 0) stopLooking();
  };
}

function stopLooking(): void {
  clearInterval(looking);
  looking = undefined;
}

/** Cuts every request in flight short, and refuses the next ones. */
function interruptRequests(): void {
  interrupted = true;
  stopLooking();
  for (const cutShort of [...inFlight]) cutShort();
  inFlight.clear();
}

/**
 * In a worker only: Playwright's workers already ignore SIGINT and SIGTERM (their runner stops them), so listening
 * changes nothing else, and SIGHUP no longer ends one at once; in the runner, a listener of SIGINT would keep Node
 * from ending a process that Playwright no longer watches. `runDir`: the run directory, where the runner marks a
 * SIGTERM it got alone (markInterrupted).
 */
export function interruptOnSignals(runDir?: string): void {
  if (listening) return;
  listening = true;
  process.once('SIGINT', interruptRequests);
  process.once('SIGTERM', interruptRequests);
  // A closed terminal's SIGHUP to the group would end the worker at once: the runner stops the run (console-gone.ts).
  process.once('SIGHUP', interruptRequests);
  if (runDir !== undefined) marker = join(runDir, MARKER_FILE);
}

/** In the runner, on SIGTERM: the workers' requests in flight are cut short, whether the signal reached them or not. */
export function markInterrupted(runDir: string): void {
  try {
    writeFileSync(join(runDir, MARKER_FILE), '');
  } catch {
    // The run directory is gone (the run was ending): nothing is in flight.
  }
}
