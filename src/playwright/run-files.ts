// Facts a worker learns that every worker of the run must know, as small files in the run directory (run-state.ts
// makes it, and removes it as the run ends): the first worker's words stand.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runState } from '../http/run-state';

/** The text of the run directory's file `name`, if a worker wrote it. */
export function runFile(name: string, dir = runState().dir): string | undefined {
  const path = join(dir, name);
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/** Writes `text` into the run directory's file `name` unless a worker did first: whose words stand, for the run. */
export function firstRunFile(name: string, text: string): string {
  const path = join(runState().dir, name);
  try {
    writeFileSync(path, text, { flag: 'wx' });
    return text;
  } catch {
    return readFileSync(path, 'utf8');
  }
}
