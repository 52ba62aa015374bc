// Work that several self-test files need, done once per run of the self-tests: the first caller does it and writes
// the result, as JSON, into the self-tests' output folder, which Playwright empties as a run starts; callers in
// other workers wait for that file. A child run costs a Playwright runner and its workers, the CPU npm test runs on.
import { closeSync, existsSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from '../../../src/playwright/fixtures';

const POLL_MS = 100;

/** The result of `produce`, or why there is none. */
type Outcome<T> = { result: T } | { error: string };

/**
 * `produce`'s result, produced once per self-test run under `name`; it has `timeoutMs` to finish before the callers
 * waiting on it give up. A failure is each caller's failure, with its message.
 */
export async function oncePerRun<T>(name: string, timeoutMs: number, produce: () => Promise<T>): Promise<T> {
  const file = join(test.info().project.outputDir, `${name}.json`);
  let lock: number | undefined;
  try {
    lock = openSync(`${file}.lock`, 'wx');
  } catch {
    // Another worker produces it, or has.
  }
  if (lock !== undefined) {
    let outcome: Outcome<T>;
    try {
      outcome = { result: await produce() };
    } catch (e) {
      outcome = { error: (e as Error).message };
    }
    writeFileSync(`${file}.tmp`, JSON.stringify(outcome));
    renameSync(`${file}.tmp`, file); // whole or not at all, for the workers waiting on it
    closeSync(lock);
  }
  for (let waited = 0; !existsSync(file); waited += POLL_MS) {
    if (waited > 2 * timeoutMs) throw new Error(`nothing in ${file}: its producer did not finish`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const outcome = JSON.parse(readFileSync(file, 'utf8')) as Outcome<T>;
  if ('error' in outcome) throw new Error(outcome.error);
  return outcome.result;
}
