// The end of a run's output reaches a parent that reads slowly (a loaded CI machine, `| tee`): the reporters wait for
// stdout before Playwright ends the process (src/playwright/stdout.ts). A merge on a loaded machine had lost its last
// 40 lines, the verdict among them.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from '../../src/playwright/fixtures';
import { REPO_ROOT } from './support/child-run';

const BYTES = 3_000_000;

/** Runs `script` (TypeScript, through tsx), reading its stdout only after a pause; the bytes that arrived. */
function bytesReadSlowly(script: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let bytes = 0;
    child.stdout.pause();
    setTimeout(() => child.stdout.resume(), 500);
    child.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    child.on('error', reject);
    child.on('close', () => resolve(bytes));
  });
}

test('what is written to a pipe before the process ends is lost, unless the writer waits for stdout', async () => {
  const write = `process.stdout.write('x'.repeat(${BYTES}));`;
  const flushed = `const { stdoutFlushed } = require('${join(REPO_ROOT, 'src/playwright/stdout.ts')}');`;
  const [lost, kept] = await Promise.all([
    bytesReadSlowly(`${write} process.exit(0);`),
    bytesReadSlowly(`${flushed} ${write} stdoutFlushed().then(() => process.exit(0));`),
  ]);
  expect(lost, 'Node writes to a pipe asynchronously: process.exit drops the rest').toBeLessThan(BYTES);
  expect(kept).toBe(BYTES);
});
