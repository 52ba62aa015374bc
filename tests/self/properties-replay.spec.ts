// The property probes against the embedded reference, run as a user would, in child processes: a fault that
// breaks OP4-UTILITY-MAX is caught with a shrunk counterexample, its seed, path and a replay line; that line
// reproduces the same counterexample; and the clean reference passes the whole properties file in good time.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FAULTS } from '../../reference/faults';
import { EVIDENCE_ATTACHMENT_PREFIX, type Evidence, SEED_ANNOTATION } from '../support/check-protocol';
import { expect, test } from '../support/fixtures';
import { replayCommand } from '../support/property';

const ROOT = resolve(__dirname, '../..');
const SPEC = 'tests/conformance/properties.spec.ts';
const UTILITY_TITLE = 'refuses every utility above 100, in the documented error shape';
/** The clean reference must pass every property at the default numRuns (100) within this bound. */
const CLEAN_RUN_BOUND_MS = 60_000;

interface Run {
  status: number | null;
  output: string;
  report: JsonReport;
  ms: number;
}

interface JsonResult { status: string; annotations: { type: string; description?: string }[]; attachments: { name: string; body?: string; path?: string }[] }
interface JsonSuite { specs?: { title: string; tests: { results: JsonResult[] }[] }[]; suites?: JsonSuite[] }
interface JsonReport { suites: JsonSuite[]; stats: { expected: number; unexpected: number; skipped: number } }

/** Runs a shell command line in the project, against the embedded reference, with its own output folders. */
function run(commandLine: string, env: Record<string, string> = {}): Run {
  const dir = mkdtempSync(join(tmpdir(), 'rsf-properties-'));
  const jsonFile = join(dir, 'report.json');
  const started = Date.now();
  const child = spawnSync('bash', ['-c', `${commandLine} --output ${dir}/results --reporter=list,json`], {
    cwd: ROOT,
    encoding: 'utf8',
    env: {
      ...withoutRunSettings(process.env),
      RSF_TARGET_URL: '', // the embedded reference, whatever .env says
      RSF_REPORTS_DIR: join(dir, 'reports'),
      PLAYWRIGHT_JSON_OUTPUT_FILE: jsonFile,
      FORCE_COLOR: '0',
      CI: '',
      ...env,
    },
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = Date.now() - started;
  const output = `${child.stdout}\n${child.stderr}`;
  let report: JsonReport;
  try {
    report = JSON.parse(readFileSync(jsonFile, 'utf8')) as JsonReport;
  } catch {
    throw new Error(`no JSON report from: ${commandLine}\n${output.slice(-3000)}`);
  }
  return { status: child.status, output, report, ms };
}

/** The environment without the settings of a run in progress: the child picks its own seed, path and profile. */
function withoutRunSettings(env: NodeJS.ProcessEnv): Record<string, string> {
  const dropped = new Set(['RSF_FC_SEED', 'RSF_FC_PATH', 'RSF_FC_NUM_RUNS', 'RSF_REFERENCE_FAULT', 'RSF_REFERENCE_MODE', 'RSF_EMBEDDED_URL']);
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && !dropped.has(e[0])));
}

function results(report: JsonReport): { title: string; result: JsonResult }[] {
  const out: { title: string; result: JsonResult }[] = [];
  const walk = (suite: JsonSuite): void => {
    for (const spec of suite.specs ?? []) for (const t of spec.tests) for (const result of t.results) out.push({ title: spec.title, result });
    suite.suites?.forEach(walk);
  };
  report.suites.forEach(walk);
  return out;
}

/** What a failing property prints: the lines of tests/support/property.ts's failure message. */
function failureOf(output: string): { counterexample: string; seed: string; path: string; replay: string; shrinks: number } {
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
  const info = { file: join(ROOT, SPEC), title: "accepts every utility in [0, 100] on the 'existing' category", project: { name: '' }, config: { configFile: join(ROOT, 'playwright.config.ts') } };
  const command = replayCommand(info as Parameters<typeof replayCommand>[0], 42, '3:1');
  expect(command).toContain(`RSF_FC_SEED=42 RSF_FC_PATH=3:1`);
  expect(command).toContain(`npx playwright test ${SPEC} -g 'accepts every utility in \\[0, 100\\] on the '\\''existing'\\'' category'`);
  expect(command).not.toContain('--config');
  const grep = new RegExp("accepts every utility in \\[0, 100\\] on the 'existing' category");
  expect(grep.test(info.title)).toBe(true);
  const projectCommand = replayCommand({ ...info, project: { name: 'fault-x' }, config: { configFile: join(ROOT, 'tests/self/mutation.config.ts') } } as Parameters<typeof replayCommand>[0], 1, '0');
  expect(projectCommand).toContain('--config tests/self/mutation.config.ts --project fault-x');
});

test('a fault breaking OP4-UTILITY-MAX is caught, shrunk, and replayed to the same counterexample', async ({ bodies }) => {
  const fault = FAULTS.find((f) => f.breaks === 'OP4-UTILITY-MAX');
  test.skip(!fault, 'The reference has no fault that breaks OP4-UTILITY-MAX.');
  test.setTimeout(180_000);
  const env = { RSF_REFERENCE_FAULT: fault!.name };
  const grep = UTILITY_TITLE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  const first = run(`npx playwright test ${SPEC} -g '${grep}'`, env);
  expect(first.status, first.output.slice(-3000)).not.toBe(0);
  const failure = failureOf(first.output);
  expect(first.output).toContain('fast-check: Property failed after'); // fast-check's own report survives
  const counterexample = JSON.parse(failure.counterexample) as Record<string, unknown>;
  expect(counterexample.utility as number).toBeGreaterThan(100);
  expect({ ...counterexample, utility: undefined }).toEqual({ ...bodies.categoryUpdate(), utility: undefined });
  expect(failure.replay).toMatch(new RegExp(`^RSF_FC_SEED=${failure.seed} RSF_FC_PATH=${failure.path} RSF_REFERENCE_FAULT=${fault!.name} npx playwright test ${SPEC} -g `));

  const [tested] = results(first.report);
  expect(tested?.title).toBe(UTILITY_TITLE);
  expect(tested?.result.annotations).toContainEqual({ type: SEED_ANNOTATION, description: `seed=${failure.seed} path=${failure.path}` });
  const attachment = tested?.result.attachments.find((a) => a.name === `${EVIDENCE_ATTACHMENT_PREFIX}OP4-UTILITY-MAX`);
  const evidence = JSON.parse(attachment?.body ? Buffer.from(attachment.body, 'base64').toString('utf8') : readFileSync(attachment?.path ?? '', 'utf8')) as Evidence;
  expect(evidence.seed).toBe(failure.seed);
  expect(evidence.replay).toBe(failure.replay);
  expect(evidence.exchanges).toHaveLength(1);
  expect(JSON.parse(evidence.exchanges[0]?.request.body ?? 'null')).toEqual(counterexample); // the counterexample's own exchange

  const replay = run(failure.replay, env);
  expect(replay.status, replay.output.slice(-3000)).not.toBe(0);
  const replayed = failureOf(replay.output);
  expect(replayed.counterexample).toBe(failure.counterexample);
  expect(replayed.seed).toBe(failure.seed);
  expect(replay.output).toContain(`Property of OP4-UTILITY-MAX failed after 1 run(s)`); // straight to the counterexample
  expect(results(replay.report).map((r) => r.title)).toEqual([UTILITY_TITLE]);
  console.log(`fault ${fault!.name}: counterexample ${failure.counterexample} (shrunk ${failure.shrinks} times), first run ${first.ms} ms, replay ${replay.ms} ms`);
});

test(`the clean reference passes every property at the default numRuns within ${CLEAN_RUN_BOUND_MS / 1000} s`, () => {
  test.setTimeout(CLEAN_RUN_BOUND_MS + 60_000);
  const clean = run(`npx playwright test ${SPEC}`);
  expect(clean.status, clean.output.slice(-3000)).toBe(0);
  expect(clean.report.stats.unexpected).toBe(0);
  expect(clean.report.stats.skipped).toBe(0); // writes are on against the embedded reference
  const annotations = results(clean.report).map((r) => r.result.annotations);
  const seeds = new Set(annotations.map((list) => list.find((a) => a.type === SEED_ANNOTATION)?.description));
  expect([...seeds], 'one seed for the whole run, recorded by every property test').toEqual([expect.stringMatching(/^seed=-?\d+$/)]);
  expect(annotations.flat().filter((a) => a.type === 'warning')).toEqual([]);
  expect(clean.ms).toBeLessThan(CLEAN_RUN_BOUND_MS);
  console.log(`clean reference: ${clean.report.stats.expected} property tests passed in ${clean.ms} ms`);
});
