// `npm run conformance` starts Playwright under `sh -c`, and the shell of Debian and Ubuntu (dash) neither runs the
// command in its own place (exec) nor passes a signal on. So a SIGTERM to npm alone (`docker stop` with npm as the
// container's first process, a supervisor that signals its child only) ended npm and the shell, and the run went on
// without them, sending its requests until it ended by itself. A process whose parent ended is handed to another
// (init, or a subreaper): the runner looks for that, and then stops as on SIGTERM.

/** How often the runner asks for its parent: a system call, twice a second. */
const LOOK_EVERY_MS = 500;

/**
 * Calls `stop` once, if the process that started this one ends first. The runner looks until it exits (the timer
 * does not keep it alive).
 *
 * Only under a package manager (npm, pnpm and yarn set `npm_lifecycle_event`), whose shell ends before the run only
 * when it is killed: a run started from a terminal with `nohup … &` outlives the terminal on purpose. Not on Windows,
 * where a process keeps the ID of a parent that ended, and signals are not passed through a shell anyway.
 */
export function whenLauncherGone(stop: () => void): void {
  if (process.env.npm_lifecycle_event === undefined || process.platform === 'win32') return;
  const launcher = process.ppid;
  const looking = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(looking);
    stop();
  }, LOOK_EVERY_MS);
  looking.unref();
}
