// `npm run verify -- BUNDLE [--public-key PATH]`: checks a conformance bundle. Exit 0 intact, 1 re-graded
// differently, 2 damaged, tampered or unreadable (one line on stderr saying what, and which file).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_LIMITS, limitsFor } from './bundle';
import { userError } from './cli-bundle';
import { describeCheckout } from './manifest';
import { verifyBundle } from './verify';

const ROOT = resolve(__dirname, '../..');
const USAGE = 'usage: npm run verify -- BUNDLE [--public-key PATH] [--max-entry-bytes N]';

export async function verifyMain(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { 'public-key': { type: 'string' }, 'max-entry-bytes': { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const [bundle, ...extra] = positionals;
  if (bundle === undefined || extra.length > 0) {
    console.error(`verify: ${USAGE}`);
    return 2;
  }
  const maxEntry = values['max-entry-bytes'];
  if (maxEntry !== undefined && !/^[1-9]\d*$/.test(maxEntry)) {
    console.error(`verify: --max-entry-bytes takes a positive integer, not "${maxEntry}"`);
    return 2;
  }
  const result = await verifyBundle(bundle, {
    ...(values['public-key'] !== undefined && { publicKeyPath: values['public-key'] }),
    limits: maxEntry === undefined ? DEFAULT_LIMITS : limitsFor(Number(maxEntry)),
    checkout: describeCheckout(ROOT),
  });
  if (result.exitCode === 2) console.error(`verify: ${result.lines.join(' ')}`);
  else for (const line of result.lines) console.log(line);
  return result.exitCode;
}

if (require.main === module) {
  verifyMain(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      const message = userError(e);
      if (message === undefined) throw e;
      console.error(`verify: ${message}`);
      process.exitCode = 2;
    },
  );
}
