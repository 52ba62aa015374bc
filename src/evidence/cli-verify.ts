// `npm run verify -- BUNDLE [--public-key PATH]`: checks a conformance bundle. Exit 0 intact, 1 re-graded
// differently, 2 damaged, tampered or unreadable (one line on stderr saying what, and which file).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { makeRunFolder } from '../http/run-folders';
import { DEFAULT_LIMITS, limitsFor } from './bundle';
import { isUsageError, userError } from './cli-bundle';
import { describeCheckout } from '../report/checkout';
import { type Regrade, type RequirementStatuses, verifyBundle } from './verify';
import { type ConformanceReport, SPEC_DIR } from '../report/model';

const ROOT = resolve(__dirname, '../..');
const USAGE = `usage: npm run verify -- BUNDLE [--public-key PATH] [--max-entry-bytes N] [--regrade-reports DIR]
  BUNDLE                 a conformance bundle, as npm run bundle writes it
  --public-key PATH      the Ed25519 public key in PEM that the manifest's signature must be of
  --max-entry-bytes N    the largest file of the archive it unpacks (default ${DEFAULT_LIMITS.maxEntryBytes})
  --regrade-reports DIR  keeps the re-grade's reports (conformance.html, .json, .md, junit.xml) in DIR, new or empty
Exit 0: intact; 1: re-graded differently; 2: damaged, tampered or unreadable.`;

/**
 * The tests the recorded run ran, from its conformance.json, as Playwright's --test-list reads them: `[project] › file
 * › describe › title`, the file relative to the spec folder. A run of some tests (a file, --grep, a shard) is
 * re-graded on those alone: every other test would find its requests missing from the recording, inconclusive. So
 * is an interrupted run, on the tests it finished: those it cut short or never began are left out, unless it had
 * stopped sending (`stoppedSending`: its breaker opened, or the target refused its requests), when a replay has each
 * test that found nothing recorded not run again, as it was.
 */
export function recordedTestList(report: Pick<ConformanceReport, 'requirements'>, stoppedSending = false): string[] {
  const unfinished = new Set<string>(stoppedSending ? ['interrupted'] : ['interrupted', 'not run']);
  const lines = new Set<string>();
  for (const row of report.requirements) {
    for (const t of row.tests) {
      if (unfinished.has(t.outcome)) continue;
      const project = t.project === '' ? '' : `[${t.project}] › `;
      // One line a test, whatever a report handed over holds: a line break would start another.
      lines.add(`${project}${posix.relative(SPEC_DIR, t.file)} › ${t.title}`.replace(/[\r\n]+/g, ' '));
    }
  }
  return [...lines];
}

/**
 * Grades a recording again with this checkout's suite (issue 24, item 4): `playwright test` in a child process with
 * RSF_TARGET_URL=har:PATH, which sends nothing, its reports in `reportsDir`; the statuses of its conformance.json.
 * The child's exit code is its verdict (0, 1 or 2), not a failure of the re-grade: only a missing report is one.
 * `waiversFile` names a file that does not exist: no waivers.
 */
export function regradeWithThisCheckout(reportsDir: string, waiversFile: string): Regrade {
  return async (harPath, _manifest, replay) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      RSF_TARGET_URL: `har:${harPath}`,
      RSF_REPORTS_DIR: reportsDir,
      // No waivers, this shell's or this checkout's: a re-grade judges, and the run's waivers are in its report.
      RSF_WAIVERS_FILE: waiversFile,
    };
    // The recording decides these (replay.ts, replayEnvironment); a baseline of this shell must not.
    for (const name of ['RSF_FC_SEED', 'RSF_FC_PATH', 'RSF_BASELINE', 'RSF_FAIL_ON', 'RSF_STRICT']) delete env[name];
    const cli = resolve(ROOT, 'node_modules/@playwright/test/cli.js');
    const args = [cli, 'test', '--config', resolve(ROOT, 'playwright.config.ts')];
    // The bundled report beside the recording says which tests ran (none, when its preflight stopped it).
    const bundled = JSON.parse(readFileSync(join(dirname(harPath), 'conformance.json'), 'utf8')) as ConformanceReport;
    // A run that stopped sending (its breaker opened, or the target refused its requests) did not run its last tests.
    const stoppedSending = replay.breaker !== undefined || replay.refused !== undefined;
    const recorded = recordedTestList(bundled, stoppedSending);
    const list = join(dirname(harPath), 'recorded-tests.txt');
    writeFileSync(list, recorded.map((line) => `${line}\n`).join(''));
    args.push('--test-list', list);
    const output: Buffer[] = [];
    await new Promise<void>((done, fail) => {
      const child = spawn(process.execPath, args, {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
      child.on('error', fail);
      child.on('close', () => done());
    });
    const report = join(reportsDir, 'conformance.json');
    if (!existsSync(report)) {
      const last = Buffer.concat(output).toString('utf8').trim().split('\n').at(-1) ?? '';
      throw new Error(`the replay wrote no conformance.json: ${last}`);
    }
    const data = JSON.parse(readFileSync(report, 'utf8')) as ConformanceReport;
    const requirements: RequirementStatuses = {};
    for (const row of data.requirements) requirements[row.id] = row.status;
    // A test of the run that the re-grade's report lacks is one this checkout does not have.
    const regraded = new Set(recordedTestList(data, true));
    return { requirements, notInThisCheckout: recorded.filter((line) => !regraded.has(line)) };
  };
}

/** Why `path` cannot take the re-grade's reports: another run's there would be overwritten, or mixed with them. */
function takenFolder(path: string): string | undefined {
  const found = statSync(path, { throwIfNoEntry: false });
  if (found === undefined) return undefined;
  if (!found.isDirectory()) return 'is a file';
  return readdirSync(path).length > 0 ? 'is not empty' : undefined;
}

export async function verifyMain(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      'public-key': { type: 'string' },
      'max-entry-bytes': { type: 'string' },
      'regrade-reports': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
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
  const reports = values['regrade-reports'];
  const taken = reports === undefined ? undefined : takenFolder(reports);
  if (taken !== undefined) {
    console.error(`verify: --regrade-reports "${reports}" ${taken}: name a new or empty folder`);
    return 2;
  }
  // The bundle's files and the replay's reports go to a folder of this call, removed after it; the reports to
  // --regrade-reports instead, when given, for a verifier to read what the re-grade made of each test.
  const work = makeRunFolder('verify');
  const reportsDir = reports === undefined ? join(work, 'reports') : resolve(reports);
  let result: Awaited<ReturnType<typeof verifyBundle>>;
  try {
    result = await verifyBundle(bundle, {
      ...(values['public-key'] !== undefined && { publicKeyPath: values['public-key'] }),
      limits: maxEntry === undefined ? DEFAULT_LIMITS : limitsFor(Number(maxEntry)),
      checkout: describeCheckout(ROOT),
      outDir: join(work, 'bundle'),
      regrade: regradeWithThisCheckout(reportsDir, join(work, 'no-waivers.json')),
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (result.exitCode === 2) console.error(`verify: ${result.lines.join(' ')}`);
  else for (const line of result.lines) console.log(line);
  if (reports !== undefined && result.regraded !== undefined)
    console.log(`re-grade's reports: ${join(reportsDir, 'conformance.html')}`);
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
      console.error(`verify: ${message}${isUsageError(e) ? `\n\n${USAGE}` : ''}`);
      process.exitCode = 2;
    },
  );
}
