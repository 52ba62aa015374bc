// `npm run bundle`: the last run's reports and recording, with a manifest (and a signature when a key is given),
// in one archive: reports/conformance-bundle-<time>.zip. Exit 0 when written, 2 when it could not be.
import { isObject } from '../model/operations';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import dotenv from 'dotenv';
import { BundleError, makeBundle, writeBundle } from './bundle';
import { HAR_FILE, HarError, parseHar } from './har';
import { type Checkout, describeCheckout, recordedCheckout } from '../report/checkout';
import { type RunFacts, inputDifferences } from './manifest';
import { KeyError, loadPrivateKey, publicKeySha256 } from './sign';

const ROOT = resolve(__dirname, '../..');
/** PEM file of an Ed25519 private key; the --signing-key flag wins over it. */
export const SIGNING_KEY_VARIABLE = 'RSF_BUNDLE_SIGNING_KEY';
const REPORT_FILES = ['conformance.json', 'conformance.md'] as const;
const BUNDLE_USAGE = `usage: npm run bundle [-- [--reports DIR] [--out DIR] [--signing-key PATH]]
  --reports DIR        the run's reports: conformance.json, conformance.md, exchanges.har
                       (default: RSF_REPORTS_DIR, else reports)
  --out DIR            where the archive is written (default: the reports folder)
  --signing-key PATH   an Ed25519 private key in PEM, to sign the manifest (default ${SIGNING_KEY_VARIABLE})`;

const text = (value: unknown, fallback = 'unknown'): string =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : fallback;

/**
 * The run's facts and settings as conformance.json recorded them: what the run used, not what this shell has now.
 * The report holds no secret (it is redacted as it is written), and carries none of the tokens' settings.
 */
function runOf(report: Uint8Array): { run: RunFacts; configuration: Record<string, unknown>; checkout?: Checkout } {
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(report).toString('utf8'));
  } catch {
    throw new BundleError('conformance.json is not JSON: run npm run conformance again');
  }
  if (!isObject(data) || typeof data.format !== 'string' || !data.format.startsWith('rsf-conformance/'))
    throw new BundleError('conformance.json is not a conformance report (no "format": "rsf-conformance/…")');
  const s = isObject(data.summary) ? data.summary : {};
  const started = new Date(text(s.date, ''));
  const startedAt = Number.isNaN(started.getTime()) ? 'unknown' : started.toISOString();
  const duration = typeof s.durationMs === 'number' ? s.durationMs : undefined;
  const endedAt =
    startedAt !== 'unknown' && duration !== undefined
      ? new Date(started.getTime() + duration).toISOString()
      : 'unknown';
  const checkout = recordedCheckout(data.checkout);
  const configuration = Object.fromEntries(
    (['failOn', 'strict', 'safetyMode', 'profile', 'seed', 'project'] as const).flatMap((k) =>
      s[k] === undefined ? [] : [[k, s[k]]],
    ),
  );
  return {
    run: {
      target: text(s.target),
      startedAt,
      endedAt,
      verdict: text(s.verdict),
      exitCode: typeof s.exitCode === 'number' ? s.exitCode : -1,
      ...(typeof s.headline === 'string' && { headline: s.headline }),
    },
    configuration,
    ...(checkout && { checkout }),
  };
}

export function bundleMain(args: string[], env: NodeJS.ProcessEnv = process.env): number {
  const { values } = parseArgs({
    args,
    options: {
      reports: { type: 'string' },
      out: { type: 'string' },
      'signing-key': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(BUNDLE_USAGE);
    return 0;
  }
  const reportsDir = resolve(values.reports ?? resolve(ROOT, env.RSF_REPORTS_DIR?.trim() || 'reports'));
  const files: Record<string, Uint8Array> = {};
  for (const name of REPORT_FILES) {
    const path = resolve(reportsDir, name);
    if (!existsSync(path)) throw new BundleError(`${path} is missing: run npm run conformance first`);
    files[name] = readFileSync(path);
  }
  const harPath = resolve(reportsDir, HAR_FILE);
  const hasHar = existsSync(harPath);
  if (hasHar) {
    files[HAR_FILE] = readFileSync(harPath);
    // A recording that cannot be read back is refused now, not found out by whoever verifies the bundle.
    parseHar(Buffer.from(files[HAR_FILE]).toString('utf8'), harPath);
  }
  const keyPath = values['signing-key'] ?? (env[SIGNING_KEY_VARIABLE]?.trim() || undefined);
  const signingKey = keyPath === undefined ? undefined : loadPrivateKey(keyPath);
  const { run, configuration, checkout: ran } = runOf(files['conformance.json'] as Uint8Array);
  // The suite that wrote the reports, as its run began; a report of an older suite recorded none: this checkout's.
  const here = describeCheckout(ROOT);
  const checkout = ran ?? here;
  const bundle = makeBundle({
    checkout,
    configuration,
    run,
    files,
    recording: hasHar ? HAR_FILE : null,
    ...(signingKey && { signingKey }),
  });
  const path = writeBundle(resolve(values.out ?? reportsDir), bundle.archive);
  if (!hasHar) {
    console.log(
      `No ${HAR_FILE} in ${reportsDir}: the bundle carries no recording, so it proves integrity only ` +
        '(its verdict cannot be re-graded).',
    );
  }
  const moved = movedOn(checkout, here);
  if (moved) console.log(moved);
  console.log(
    signingKey
      ? `Signed with the Ed25519 key ${keyPath} (public key sha256:${publicKeySha256(signingKey).slice(0, 16)}…).`
      : `Not signed (no --signing-key, no ${SIGNING_KEY_VARIABLE}).`,
  );
  console.log(`Bundle: ${path}`);
  return 0;
}

/** What a bundle made from a checkout that moved on since the run says: the manifest names the run's suite. */
function movedOn(ran: Checkout, here: Checkout): string | undefined {
  const differences = inputDifferences(ran.inputs, here.inputs);
  const commit = (c: Checkout) =>
    c.git ? `commit ${c.git.commit.slice(0, 12)}${c.git.dirty ? ' (dirty)' : ''}` : 'no commit';
  const sameCommit = commit(ran) === commit(here);
  if (sameCommit && differences.length === 0) return undefined;
  return (
    `The reports were written by ${ran.suite.name} ${ran.suite.version} at ${commit(ran)}, and this checkout is at ` +
    `${commit(here)}${differences.length > 0 ? ` (${differences.length} inputs differ)` : ''}: the manifest names ` +
    "the run's suite, which npm run verify compares the verifier's checkout with."
  );
}

/** A mistyped option or argument: the message is followed by the usage. */
export const isUsageError = (e: unknown): boolean =>
  String((e as NodeJS.ErrnoException)?.code ?? '').startsWith('ERR_PARSE_ARGS');

/** A one-line message for what the user can mend (a bad flag, file or key); anything else is a bug, and throws. */
export function userError(e: unknown): string | undefined {
  if (e instanceof BundleError || e instanceof HarError || e instanceof KeyError) return e.message;
  const code = (e as NodeJS.ErrnoException)?.code;
  if (isUsageError(e) || (typeof code === 'string' && /^E[A-Z]+$/.test(code)))
    return (e as Error).message.split('\n')[0];
  return undefined;
}

if (require.main === module) {
  // As the suite does (src/config): .env fills in what the environment does not set.
  dotenv.config({ path: resolve(ROOT, '.env'), quiet: true });
  try {
    process.exitCode = bundleMain(process.argv.slice(2));
  } catch (e) {
    const message = userError(e);
    if (message === undefined) throw e;
    console.error(`bundle: ${message}${isUsageError(e) ? `\n\n${BUNDLE_USAGE}` : ''}`);
    process.exitCode = 2;
  }
}
