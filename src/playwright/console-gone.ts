// The run's console went away while its tests ran: what read its output went (`npm run conformance | head`, a pager
// quit), or its terminal closed (an SSH session dropped: SIGHUP to the run's process group). The next write failed
// (EPIPE, or EIO from a closed terminal) with an 'error' event nothing listened to, or SIGHUP's default action ended
// the runner and its workers: no report, and an earlier run's reports stood. As a shell pipeline stops a writer whose
// reader has gone, the run stops as on Ctrl-C, and its reports say why.

/** What the reports say stopped the run (conformance-reporter.ts). */
export const OUTPUT_CLOSED = 'its output was closed (a pager quit, or `| head`)';
export const TERMINAL_CLOSED = 'its terminal was closed (SIGHUP)';

let cause: string | undefined;

/** Why the console went while the tests ran, if it did: the reason the run was interrupted. */
export function consoleGoneCause(): string | undefined {
  return cause;
}

/** A failed write that says nothing reads this process's output any more. */
const GONE = new Set(['EPIPE', 'EIO', 'ERR_STREAM_DESTROYED']);

/** Calls `gone` on a failed write of stdout or stderr that says nothing reads it; another is thrown, as Node would. */
function onFailedWrite(gone: () => void): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (!GONE.has(error.code ?? '')) throw error;
      gone();
    });
  }
}

/**
 * For a merge of shards, which sends nothing and ends in moments: without its console, it writes its reports and ends
 * with the verdict's code (it used to end on the failed write, with exit 1).
 */
export function mergeWithoutConsole(): void {
  onFailedWrite(() => {});
}

/**
 * Calls `stop` once, when the console goes while the tests run; once `over` says they are over, the reports are
 * written as they would be, and the exit code is the verdict's.
 */
export function whenConsoleGone(stop: () => void, over: () => boolean): void {
  const gone = (why: string): void => {
    if (cause !== undefined || over()) return;
    cause = why;
    stop();
  };
  process.once('SIGHUP', () => gone(TERMINAL_CLOSED));
  onFailedWrite(() => gone(OUTPUT_CLOSED));
}
