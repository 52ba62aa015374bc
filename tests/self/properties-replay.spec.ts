// The property probes against the embedded reference, run as a user would, in child processes: a fault that
// breaks OP4-UTILITY-MAX is caught with a shrunk counterexample, its seed, path and a replay line; that line
// reproduces the same counterexample; and the clean reference passes the whole properties file, every property at
// its full number of runs, none cut short by its time limit.
// The child runs with the configured reporters, and what it did is read from its redacted conformance report; the
// clean run adds Playwright's json report, for the tests' annotations.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FAULTS } from '../../reference/faults';
import { SETTINGS, loadConfig } from '../../src/config/config';
import { expect, test } from '../../src/playwright/fixtures';
import { PROPERTY_ANNOTATION, replayCommand } from '../../src/playwright/property';
import { childEnv, readReport } from './support/child-run';
import type { ConformanceReport, TestRef } from '../../src/report/model';
import { scratchDir } from './support/scratch';

const ROOT = resolve(__dirname, '../..');
const SPEC = 'tests/conformance/properties.spec.ts';
const UTILITY_TITLE = 'refuses every utility above 100, in the documented error shape';

interface Run {
  status: number | null;
  output: string;
  report: ConformanceReport;
  /** Where Playwright's json reporter writes, when the command line asks for it. */
  jsonReport: string;
}

/**
 * Every setting blank, so that the child takes none from a developer's .env either (childEnv leaves out the
 * parent's RSF_ variables, the child's config then reads .env, and dotenv does not override a variable that is
 * set, even to ''): the embedded reference, its clean profile, defaults fitting it, and a seed of the child's own.
 * A command line's own assignments (the replay's RSF_FC_SEED, RSF_FC_PATH, RSF_REFERENCE_FAULT) still win.
 */
const BLANK_SETTINGS: Record<string, string> = Object.fromEntries(Object.values(SETTINGS).map((s) => [s.name, '']));

/** Runs a shell command line in the project, against the embedded reference, with its own output folders. */
function run(commandLine: string, env: Record<string, string> = {}): Run {
  const dir = scratchDir('properties');
  const reportsDir = join(dir, 'reports');
  const child = spawnSync('bash', ['-c', `${commandLine} --output ${dir}/results`], {
    cwd: ROOT,
    encoding: 'utf8',
    // childEnv: the parent's environment without its RSF_, PW_, PLAYWRIGHT_ and TEST_ variables, so that neither a
    // developer's RSF_TARGET_URL nor this run's worker settings leak into the child.
    env: childEnv({
      ...BLANK_SETTINGS,
      RSF_REPORTS_DIR: reportsDir,
      RSF_WAIVERS_FILE: join(dir, 'no-waivers.json'),
      PLAYWRIGHT_JSON_OUTPUT_FILE: join(dir, 'playwright.json'),
      CI: '',
      ...env,
    }),
    maxBuffer: 64 * 1024 * 1024,
  });
  const output = `${child.stdout}\n${child.stderr}`;
  let report: ConformanceReport;
  try {
    report = readReport(reportsDir);
  } catch {
    throw new Error(`no conformance report from: ${commandLine}\n${output.slice(-3000)}`);
  }
  return { status: child.status, output, report, jsonReport: join(dir, 'playwright.json') };
}

/** The configured reporters, and Playwright's json reporter. */
const WITH_JSON = [
  './src/playwright/plan-reporter.ts',
  './src/playwright/console-reporter.ts',
  'json',
  './src/playwright/conformance-reporter.ts',
].join(',');

/**
 * What fast-check did for each requirement of each property test (`OP4-UTILITY-MAX: 100 runs of 100 (100 judged),
 * …`), as the tests annotated it, from Playwright's json report of the run (the annotations are not in
 * conformance.json).
 */
function propertyRuns(run: Run): string[] {
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) for (const item of node) visit(item);
    else if (node && typeof node === 'object') {
      const { type, description } = node as { type?: unknown; description?: unknown };
      if (type === PROPERTY_ANNOTATION && typeof description === 'string') found.add(description);
      for (const value of Object.values(node)) visit(value);
    }
  };
  visit(JSON.parse(readFileSync(run.jsonReport, 'utf8')));
  return [...found];
}

/** The tests of the run, once each (a test appears under every requirement it is tagged with). */
function testsOf(report: ConformanceReport): TestRef[] {
  const byPlace = new Map<string, TestRef>();
  for (const row of report.requirements)
    for (const t of row.tests) byPlace.set(`${t.project} ${t.file}:${t.line} ${t.title}`, t);
  return [...byPlace.values()];
}

/** The last part of a test's " › "-joined title. */
const ownTitle = (t: TestRef): string => t.title.split(' › ').at(-1) ?? '';

/** What a failing property prints: the lines of src/playwright/property.ts's failure message. */
function failureOf(output: string): {
  counterexample: string;
  seed: string;
  path: string;
  replay: string;
  shrinks: number;
} {
  const line = (pattern: RegExp): RegExpExecArray => {
    const found = pattern.exec(output);
    if (!found) throw new Error(`no line matching ${pattern} in:\n${output.slice(-4000)}`);
    return found;
  };
  const [, seed = '', path = ''] = line(/^\s*Seed: (-?\d+)\s+Path: (\S+)$/m);
  return {
    counterexample: line(/^\s*Counterexample: (\{.*\})$/m)[1] ?? '',
    seed,
    path,
    replay: line(/^\s*Replay: (.+)$/m)[1] ?? '',
    shrinks: Number(line(/counterexample shrunk (\d+) time\(s\)/)[1]),
  };
}

test('the replay line names the test by its exact title, quoted for the shell', () => {
  const info = {
    file: join(ROOT, SPEC),
    title: "accepts every utility in [0, 100] on the 'existing' category",
    tags: ['@OP4-UTILITY-MAX'],
    project: { name: '', use: {} },
    config: { configFile: join(ROOT, 'playwright.config.ts') },
  };
  const command = replayCommand(info as Parameters<typeof replayCommand>[0], 42, '3:1');
  expect(command).toContain(`RSF_FC_SEED=42 RSF_FC_PATH=3:1`);
  expect(command).toContain(
    `npx playwright test ${SPEC} -g 'accepts every utility in \\[0, 100\\] on the '\\''existing'\\'' category'`,
  );
  expect(command).not.toContain('--config');
  const grep = /accepts every utility in \[0, 100\] on the 'existing' category/;
  expect(grep.test(info.title)).toBe(true);
  const projectCommand = replayCommand(
    {
      ...info,
      project: { name: 'mode-x', use: {} },
      config: { configFile: join(ROOT, 'tests/self/mutation.config.ts') },
    } as Parameters<typeof replayCommand>[0],
    1,
    '0',
  );
  expect(projectCommand).toContain('--config tests/self/mutation.config.ts --project mode-x');
  // A matrix round runs several faults; its test replays with its own fault, in the suite's own config.
  const roundCommand = replayCommand(
    {
      ...info,
      project: { name: 'faults-3', use: { profileByTag: { '@OP4-UTILITY-MAX': '/_faults/op4-utility-unbounded' } } },
      config: { configFile: join(ROOT, 'tests/self/mutation.config.ts') },
    } as unknown as Parameters<typeof replayCommand>[0],
    1,
    '0',
  );
  expect(roundCommand).toMatch(
    /^RSF_FC_SEED=1 RSF_FC_PATH=0 RSF_REFERENCE_FAULT=op4-utility-unbounded npx playwright test /,
  );
  expect(roundCommand).not.toMatch(/--config|--project/);
});

test('a fault breaking OP4-UTILITY-MAX is caught, shrunk, and replayed to the same counterexample', async ({
  bodies,
}) => {
  const fault = FAULTS.find((f) => f.breaks === 'OP4-UTILITY-MAX');
  test.skip(!fault, 'The reference has no fault that breaks OP4-UTILITY-MAX.');
  test.setTimeout(180_000);
  const env = { RSF_REFERENCE_FAULT: fault!.name };
  const grep = UTILITY_TITLE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  const first = run(`npx playwright test ${SPEC} -g '${grep}'`, env);
  expect(first.status, first.output.slice(-3000)).not.toBe(0);
  const failure = failureOf(first.output);
  // fast-check's own account of the failing run survives; the counterexample it repeats is shown once.
  expect(first.output).toMatch(/^\s*fast-check: Got CheckFailure: /m);
  expect(first.output.match(/Counterexample: /g), 'the counterexample, once').toHaveLength(1);
  expect(first.output, 'a hint to a setting the suite does not have').not.toContain('Enable verbose mode');
  const counterexample = JSON.parse(failure.counterexample) as Record<string, unknown>;
  expect(counterexample.utility as number).toBeGreaterThan(100);
  // hide is drawn either way beside utility (categoryUpdateWithUtility); every other field is the configured one.
  expect(typeof counterexample.hide).toBe('boolean');
  const others = (body: Record<string, unknown>) => ({ ...body, utility: undefined, hide: undefined });
  expect(others(counterexample)).toEqual(others(bodies.categoryUpdate()));
  expect(failure.replay).toMatch(
    new RegExp(
      `^RSF_FC_SEED=${failure.seed} RSF_FC_PATH=${failure.path} ` +
        `RSF_REFERENCE_FAULT=${fault!.name} npx playwright test ${SPEC} -g `,
    ),
  );

  expect(testsOf(first.report).map(ownTitle)).toEqual([UTILITY_TITLE]);
  const row = first.report.requirements.find((r) => r.id === 'OP4-UTILITY-MAX');
  expect(row?.status).toBe('failed');
  const [tested] = row?.tests ?? [];
  expect(tested && ownTitle(tested)).toBe(UTILITY_TITLE);
  expect(tested?.seed).toBe(`seed=${failure.seed} path=${failure.path}`);
  const evidence = row?.evidence.find((e) => e.kind === 'check')?.evidence;
  if (!evidence)
    throw new Error(`no evidence of OP4-UTILITY-MAX in the conformance report: ${JSON.stringify(row?.evidence)}`);
  expect(evidence.seed).toBe(failure.seed);
  expect(evidence.replay).toBe(failure.replay);
  expect(evidence.exchanges).toHaveLength(1);
  // the counterexample's own exchange
  expect(JSON.parse(evidence.exchanges[0]?.request.body ?? 'null')).toEqual(counterexample);

  const replay = run(failure.replay, env);
  expect(replay.status, replay.output.slice(-3000)).not.toBe(0);
  const replayed = failureOf(replay.output);
  expect(replayed.counterexample).toBe(failure.counterexample);
  expect(replayed.seed).toBe(failure.seed);
  // straight to the counterexample
  expect(replay.output).toContain(`Property of OP4-UTILITY-MAX failed after 1 run(s)`);
  expect(testsOf(replay.report).map(ownTitle)).toEqual([UTILITY_TITLE]);
  console.log(
    `fault ${fault!.name}: counterexample ${failure.counterexample} (shrunk ${failure.shrinks} times), ` +
      `then replayed`,
  );
});

test('the clean reference passes every property at its planned runs, none cut short by its time limit', () => {
  test.setTimeout(120_000);
  const clean = run(`npx playwright test ${SPEC} --reporter=${WITH_JSON}`);
  expect(clean.status, clean.output.slice(-3000)).toBe(0);
  const { summary } = clean.report;
  expect(summary.verdict).toBe('PASS');
  expect(summary.tests.failed).toBe(0);
  expect(summary.tests.skipped).toBe(0); // writes are on against the embedded reference
  expect(summary.tests.passed).toBe(summary.tests.total);
  const tests = testsOf(clean.report);
  expect(tests).toHaveLength(summary.tests.total);
  const seeds = new Set(tests.map((t) => t.seed));
  expect([...seeds], 'one seed for the whole run, recorded by every property test').toEqual([`seed=${summary.seed}`]);
  expect(summary.seed).toMatch(/^-?\d+$/);
  expect(
    clean.report.requirements.filter((r) => r.status === 'warning').map((r) => r.id),
    'SHOULD and INFO warnings',
  ).toEqual([]);
  // In good time: fast-check stops a property at its share of the test's time-out, so a slow one is cut short.
  // Each runs its examples and numRuns generated values; the 14 valid-input properties a tenth of numRuns each.
  const numRuns = loadConfig({}).fcNumRuns;
  const runs = propertyRuns(clean);
  expect(runs.length, 'checks annotated by the property tests').toBeGreaterThan(0);
  const ran = (r: string): number => Number(/: (\d+) runs/.exec(r)?.[1]);
  const planned = (r: string): number => Number(/runs of (\d+)/.exec(r)?.[1]);
  expect(
    runs.filter((r) => !(ran(r) >= planned(r) && planned(r) > numRuns / 10) || r.includes('interrupted')),
    `properties with fewer runs than planned (at least a tenth of ${numRuns}), or cut short`,
  ).toEqual([]);
  expect(runs.filter((r) => planned(r) >= numRuns).length, 'properties at the full numRuns').toBeGreaterThan(10);
  console.log(`clean reference: ${summary.tests.passed} property tests passed, ${runs.length} checks as planned`);
});
