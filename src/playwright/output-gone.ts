// `npm run conformance | head`, or a pager quit before the run ended: what read the runner's output had gone, Node
// emitted the failed write (EPIPE) as an 'error' event that nothing listened to, and the runner ended with a stack
// trace, exit 1 and no report. A shell pipeline's writer stops when its reader goes (SIGPIPE): the run stops as on
// Ctrl-C, and its reports say why.

/** What the reports say stopped the run, when its output was closed (conformance-reporter.ts). */
export const OUTPUT_CLOSED = 'its output was closed (a pager quit, or `| head`)';

let closed = false;

/** Whether the runner's output was closed while the tests ran: the reason the run was interrupted. */
export function outputClosed(): boolean {
  return closed;
}

/**
 * Calls `stop` once, when a write to stdout or stderr fails because nothing reads them any more, unless `over` says
 * the tests are over (the reports are then written as they would be, and the exit code is the verdict's). Any other
 * failed write is thrown, as Node would.
 */
export function whenOutputGone(stop: () => void, over: () => boolean): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
      if (closed || over()) return;
      closed = true;
      stop();
    });
  }
}
