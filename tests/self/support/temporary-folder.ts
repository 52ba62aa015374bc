// The self-tests' global setup: their temporary folders (child runs' reports and run states, recordings, servers'
// files) go into one folder of this run, which its teardown removes, so that `npm test` leaves nothing behind in the
// system's temporary folder. Workers and the child runs they start inherit TMPDIR, which os.tmpdir() reads.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function temporaryFolder(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'rsf-self-'));
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
