// Ctrl-C, or SIGTERM from a cancelled CI job, in a worker: its requests in flight are cut short and no more go out.
// Playwright stops a worker by interrupting the test it runs, but a stop that comes between two of a test's phases
// (as the next test starts) interrupts nothing, and that test then waits on its requests to the end of their
// time-out: against a target that hangs, RSF_REQUEST_TIMEOUT_MS. A signal to the run's process group (a terminal's
// Ctrl-C, a cancelled job) reaches the workers too, and ends such a wait here, at once.

/** What this process cuts short when interrupted: each request in flight registers how. */
const inFlight = new Set<() => void>();
let interrupted = false;
let listening = false;

/** Whether the run was interrupted in this process: nothing more is sent. */
export function isInterrupted(): boolean {
  return interrupted;
}

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
  return () => inFlight.delete(cutShort);
}

/** Cuts every request in flight short, and refuses the next ones. */
export function interruptRequests(): void {
  interrupted = true;
  for (const cutShort of [...inFlight]) cutShort();
  inFlight.clear();
}

/**
 * In a worker only: Playwright's workers already ignore both signals (their runner stops them), so listening changes
 * nothing else; in the runner, a listener of SIGINT would keep Node from ending a process that Playwright no longer
 * watches.
 */
export function interruptOnSignals(): void {
  if (listening) return;
  listening = true;
  process.once('SIGINT', interruptRequests);
  process.once('SIGTERM', interruptRequests);
}
