// Sharded runs merged with `playwright merge-reports` give the same conformance report as one unsharded run:
// the reporter derives everything from tests, results, annotations, attachments and config.metadata.
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '../../src/playwright/fixtures';
import { readArtifacts, secretForms } from './support/artifacts';
import {
  FAKE_RUN_TIMEOUT_MS,
  FAKE_SUITE_CONFIG,
  fakeSecrets,
  lastLine,
  readReport,
  runPlaywright,
} from './support/child-run';
import { fullFakeRun } from './support/full-fake-run';
import { type ShardFacts, shardArgument, shardEntry, shardProblems } from '../../src/report/shards';

/** A finished unsharded run: its exit code and where its conformance reports are. */
interface SingleRun {
  code: number | null;
  reportsDir: string;
}

interface SuiteUnderTest {
  /** `test` arguments that pick the suite: its config, or some of its spec files. */
  suiteArgs: string[];
  /** The unsharded run, when one run of the suite as it is serves other self-tests too; else run here. */
  single?: SingleRun;
  /** Arguments of shard n of 2. */
  shard: (n: number) => string[];
  mergeConfig: string;
  /** Env and `test` arguments that put one run's outputs under dir, and where its conformance reports land. */
  outputs(dir: string): { env: Record<string, string>; args: string[]; reportsDir: string };
  timeoutMs: number;
}

/** Timings and dates differ between runs; nothing else may. */
function comparable(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, v: unknown) =>
    key === 'date' || key === 'durationMs' ? undefined : v,
  );
}

async function shardedAgainstSingle(suite: SuiteUnderTest, tmp: string): Promise<string> {
  const blobs = join(tmp, 'blobs');
  const runTest = (name: string, extra: string[], env: Record<string, string>) => {
    const out = suite.outputs(join(tmp, name));
    return runPlaywright(['test', ...suite.suiteArgs, ...out.args, ...extra], { ...out.env, ...env }, suite.timeoutMs);
  };
  const runSingle = async (): Promise<SingleRun> => {
    const run = await runTest('single', [], {});
    expect(run.code, run.stdout + run.stderr).not.toBeNull();
    return { code: run.code, reportsDir: suite.outputs(join(tmp, 'single')).reportsDir };
  };
  const [shards, single] = await Promise.all([
    Promise.all([
      runTest('shard-1', suite.shard(1), { PLAYWRIGHT_BLOB_OUTPUT_FILE: join(blobs, 'shard-1-of-2.zip') }),
      runTest('shard-2', suite.shard(2), { PLAYWRIGHT_BLOB_OUTPUT_FILE: join(blobs, 'shard-2-of-2.zip') }),
    ]),
    suite.single ?? runSingle(),
  ]);
  for (const run of shards) expect(run.code, run.stdout + run.stderr).not.toBeNull();
  expect(
    existsSync(join(blobs, 'shard-1-of-2.zip')) && existsSync(join(blobs, 'shard-2-of-2.zip')),
    shards.map((r) => r.stderr).join('\n'),
  ).toBe(true);

  const merged = suite.outputs(join(tmp, 'merged'));
  const merge = await runPlaywright(
    ['merge-reports', '--config', suite.mergeConfig, blobs],
    merged.env,
    suite.timeoutMs,
  );
  // The merge exits with the verdict's code (0 PASS, 1 FAIL, 2 ERROR), as the unsharded run does.
  expect(merge.code, merge.stdout + merge.stderr).toBe(single.code);
  expect(lastLine(merge.stdout)).toMatch(/^Conformance: (PASS|FAIL) — (.* — )?MUST \d+ failed/);

  expect(
    existsSync(join(single.reportsDir, 'conformance.json')),
    'the unsharded run writes conformance.json: is the conformance reporter configured?',
  ).toBe(true);
  const [one, two] = [readReport(single.reportsDir), readReport(merged.reportsDir)];
  expect(one.summary.tests.total).toBeGreaterThan(0);
  expect(comparable(two)).toEqual(comparable(one));
  return merged.reportsDir;
}

test('the fake suite: two shards merged equal one unsharded run', async ({}, testInfo) => {
  test.setTimeout(4 * FAKE_RUN_TIMEOUT_MS);
  // The unsharded run is the one the reporter's tests read (a runner and four workers fewer); the shards are given
  // its tokens, which the fake checks put in their evidence.
  const full = await fullFakeRun();
  const fake: SuiteUnderTest = {
    suiteArgs: ['--config', FAKE_SUITE_CONFIG],
    single: full,
    shard: (n) => [`--shard=${n}/2`, '--reporter=blob'],
    mergeConfig: 'tests/self/fixtures/reporter-suite/merge.config.ts',
    outputs: (dir) => ({
      env: {
        FAKE_OUT_DIR: dir,
        RSF_WAIVERS_FILE: join(dir, 'no-waivers.json'),
        RSF_BEARER_TOKEN: full.secrets.bearer,
        RSF_CHANNEL_TOKEN: full.secrets.channel,
      },
      args: [],
      reportsDir: join(dir, 'reports'),
    }),
    timeoutMs: FAKE_RUN_TIMEOUT_MS,
  };
  const mergedDir = await shardedAgainstSingle(fake, testInfo.outputPath());
  // Per-project reports survive the merge too.
  const single = join(full.reportsDir, 'projects');
  const merged = join(mergedDir, 'projects');
  expect(readFileSync(join(merged, 'index.json'), 'utf8')).toBe(readFileSync(join(single, 'index.json'), 'utf8'));
  expect(comparable(readReport(join(merged, 'reference')))).toEqual(comparable(readReport(join(single, 'reference'))));
});

/**
 * Spec files of the real suite with every kind of test in them: declared probes, writes, links between operations,
 * and properties shared out test by test (so that a file's tests land in both shards).
 */
const REAL_SPECS = ['cart.spec.ts', 'links.spec.ts', 'prices.spec.ts', 'properties.spec.ts'];

test('the real suite: two shards merged equal one unsharded run', async ({}, testInfo) => {
  test.setTimeout(10 * 60_000);
  const secrets = fakeSecrets();
  const real: SuiteUnderTest = {
    suiteArgs: REAL_SPECS,
    // As the README says: playwright.config.ts reports a shard as a redacted blob by itself.
    shard: (n) => [`--shard=${n}/2`],
    mergeConfig: 'src/playwright/merge.config.ts',
    outputs: (dir) => ({
      // One seed for all three runs, so that the property tests send the same requests.
      env: {
        RSF_REPORTS_DIR: join(dir, 'reports'),
        RSF_FC_SEED: '20240601',
        // Sharding is the subject, not the properties: fewer runs of each, the same in all three runs.
        RSF_FC_NUM_RUNS: '5',
        RSF_WAIVERS_FILE: join(dir, 'no-waivers.json'),
        RSF_BEARER_TOKEN: secrets.bearer,
        RSF_CHANNEL_TOKEN: secrets.channel,
      },
      args: ['--output', join(dir, 'results')],
      reportsDir: join(dir, 'reports'),
    }),
    timeoutMs: 8 * 60_000,
  };
  await shardedAgainstSingle(real, testInfo.outputPath());
  // A merge of some of the shards is no run's: ERROR, not the verdict of half the tests. Its output is closed at once
  // (`| head`): it ended on the failed write, with exit 1; its reports and exit code are the verdict's.
  const some = testInfo.outputPath('some-blobs');
  mkdirSync(some);
  copyFileSync(testInfo.outputPath('blobs', 'shard-1-of-2.zip'), join(some, 'shard-1-of-2.zip'));
  const merged = real.outputs(testInfo.outputPath('merged-some'));
  const merge = await runPlaywright(['merge-reports', '--config', real.mergeConfig, some], merged.env, real.timeoutMs, {
    closeOutput: Promise.resolve(),
  });
  expect(merge.code, merge.stdout + merge.stderr).toBe(2);
  expect(readReport(merged.reportsDir).summary.headline).toMatch(/: no blob says it is shard 2\/2\./);
  // The blobs are artifacts a CI job uploads: no secret in them either.
  const forms = [...secretForms(secrets.bearer, ['Bearer ']), ...secretForms(secrets.channel)];
  const leaks = readArtifacts(testInfo.outputPath('blobs')).flatMap((a) =>
    forms.filter((f) => a.text.includes(f)).map(() => a.name),
  );
  expect(leaks, 'secrets in the shard blobs').toEqual([]);
});

test.describe('the shards of one run', () => {
  const facts = (shard: string, changes: Partial<ShardFacts> = {}): ShardFacts => ({
    shard,
    target: 'https://staging.example.test/api',
    safetyMode: 'read-only',
    profile: '',
    suiteVersion: '1.0.0',
    seed: '42',
    ...changes,
  });
  const metadata = (...shards: ShardFacts[]): Record<string, unknown> => ({
    // The run's own facts: the last shard's, as merge-reports keeps them.
    target: shards.at(-1)?.target,
    ...Object.assign({}, ...shards.map((s, i) => shardEntry(s, `nonce-${i}`))),
  });

  test('a shard names itself from --shard=i/n or --shard i/n', () => {
    expect(shardArgument(['test', '--shard=2/3'])).toBe('2/3');
    expect(shardArgument(['test', '--shard', '1/3', '--workers=2'])).toBe('1/3');
    expect(shardArgument(['test', '--workers=2'])).toBeUndefined();
  });

  test('every shard once, run alike: nothing to say; blobs that name no shard: nothing either', () => {
    expect(shardProblems(metadata(facts('2/2'), facts('1/2')))).toEqual([]);
    expect(shardProblems({ target: 'embedded reference server', actualWorkers: 2 })).toEqual([]);
  });

  test('a shard that ran elsewhere, or with another seed, is named with what differs', () => {
    // A CI secret missing in one shard's job: it ran against the embedded reference, with writes.
    const elsewhere = facts('2/2', { target: 'embedded reference server', safetyMode: 'writes enabled', seed: '43' });
    const [problem] = shardProblems(metadata(facts('1/2'), elsewhere));
    expect(problem).toContain(
      'the target (RSF_TARGET_URL) differs: shard 1/2 "https://staging.example.test/api", ' +
        'shard 2/2 "embedded reference server"',
    );
    expect(problem).toContain('writes (RSF_ALLOW_WRITES) differs: shard 1/2 "read-only", shard 2/2 "writes enabled"');
    expect(problem).toContain('the property seed (RSF_FC_SEED) differs: shard 1/2 "42", shard 2/2 "43"');
    expect(problem).not.toContain('suite version');
  });

  test('a shard missing, one merged twice, or shards of different splits are named', () => {
    expect(shardProblems(metadata(facts('1/3'), facts('3/3')))[0]).toContain('no blob says it is shard 2/3');
    expect(shardProblems(metadata(facts('1/2'), facts('1/2'), facts('2/2')))[0]).toContain(
      '2 blobs say they are shard 1/2',
    );
    expect(shardProblems(metadata(facts('1/2'), facts('2/3')))[0]).toContain('shards of different splits: 1/2, 2/3');
  });
});
