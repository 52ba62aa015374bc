// A folder of its own for a self-test's files: child runs' results and reports, state directories, files it writes.
// It is made in the test's output folder, in the run's own (test-results/self/run-<pid>/…), which the next run
// removes: npm test leaves nothing in /tmp, and what a failed test wrote is there to read. Not for a Unix socket,
// whose path must stay under 108 characters.
import { mkdtempSync } from 'node:fs';
import { test } from '../../../src/playwright/fixtures';

/** A new, empty folder named after `name`, in the output folder of the test (or hook) that runs. */
export function scratchDir(name: string): string {
  return mkdtempSync(test.info().outputPath(`${name}-`));
}
