// The reports folder (RSF_REPORTS_DIR). One it cannot make or write to is a configuration error: the global setup
// finds it before any request, and the reporter, which finds it again, writes nothing and ends the run in ERROR.
import { accessSync, constants, mkdirSync } from 'node:fs';
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
