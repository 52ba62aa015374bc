// The GitHub Actions workflows cannot run here, so their structure is checked: triggers, Node and `npm ci`, no
// browser download, the shard matrix and its merge, artifacts, the exit policy, and secrets that reach only the
// environment of the steps that need them. Every `run` script must at least parse as bash.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { expect, test } from '../../src/playwright/fixtures';
import { REPO_ROOT } from './support/child-run';

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
  'continue-on-error'?: unknown;
}

interface Job {
  name?: string;
  needs?: string | string[];
  if?: string;
  'runs-on'?: string;
  'timeout-minutes'?: number;
  strategy?: { matrix?: Record<string, unknown>; 'fail-fast'?: boolean };
  env?: Record<string, unknown>;
  steps: Step[];
}

interface Workflow {
  name: string;
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  env?: Record<string, unknown>;
  jobs: Record<string, Job>;
}

const WORKFLOWS = join(REPO_ROOT, '.github/workflows');
/** A GitHub expression as the YAML spells it: gh('matrix.shard') is "${{ matrix.shard }}". */
const gh = (inner: string): string => `\${{ ${inner} }}`;

function workflow(file: string): { text: string; flow: Workflow } {
  const text = readFileSync(join(WORKFLOWS, file), 'utf8');
  return { text, flow: parse(text) as Workflow };
}

function job(flow: Workflow, id: string): Job {
  const found = flow.jobs[id];
  if (!found) throw new Error(`no job "${id}"`);
  return found;
}

const steps = (flow: Workflow): Step[] => Object.values(flow.jobs).flatMap((j) => j.steps);
const runs = (j: Job): string => j.steps.map((s) => s.run ?? '').join('\n');
const uses = (j: Job, action: string): Step[] => j.steps.filter((s) => s.uses?.startsWith(`${action}@`));

/**
 * Every job: a time-out, Node 20 (or `nodes`, a matrix of them) through setup-node, dependencies from the lock file,
 * and no browser download. `overTheLock` is the one `npm install` a job may run after `npm ci` (playwright-next.yml).
 */
function expectSoundJobs(flow: Workflow, overTheLock?: string, nodes: number[] = [20]): void {
  for (const [id, j] of Object.entries(flow.jobs)) {
    expect(j['runs-on'], id).toBe('ubuntu-latest');
    expect(j['timeout-minutes'], `${id}: a hung target must not hold a runner for 6 hours`).toBeLessThanOrEqual(30);
    expect(uses(j, 'actions/checkout'), id).toHaveLength(1);
    const node = uses(j, 'actions/setup-node').map((s) => String(s.with?.['node-version']));
    const versions = node[0] === gh('matrix.node') ? j.strategy?.matrix?.node : node.map(Number);
    expect(versions, id).toEqual(nodes);
    expect(
      j.steps.some((s) => s.run?.trim() === 'npm ci'),
      `${id} installs with npm ci`,
    ).toBe(true);
    expect(overTheLock ? runs(j).replace(overTheLock, '') : runs(j), id).not.toMatch(/npm (install|i)\b/);
    expect(runs(j), `${id}: the suite needs no browser`).not.toMatch(/playwright\s+install/);
  }
}

/**
 * Secrets only as `env` values of steps, never in a script (GitHub would paste them into it), never at the job or
 * workflow level (every step would get them), and never printed.
 */
function expectSecretsContained(text: string, flow: Workflow): void {
  for (const step of steps(flow)) {
    expect(step.run ?? '', step.name).not.toContain('secrets.');
    expect(JSON.stringify(step.with ?? {}), step.name).not.toContain('secrets.');
    expect(step.run ?? '', `${step.name}: xtrace prints every expanded command`).not.toMatch(/set -[a-z]*x|bash -x/);
    expect(step.run ?? '', step.name).not.toMatch(/(echo|printf|cat)[^\n]*\$\{?RSF_(BEARER|CHANNEL)_TOKEN/);
  }
  expect(JSON.stringify(flow.env ?? {})).not.toContain('secrets.');
  for (const j of Object.values(flow.jobs)) expect(JSON.stringify(j.env ?? {})).not.toContain('secrets.');
  // Every mention of a secret is a step's env value, named as the variable it fills.
  const mentions = [...text.matchAll(/^\s*([A-Z_]+): \$\{\{ secrets\.([A-Z_]+) \}\}$/gm)];
  expect(mentions.length).toBe((text.match(/secrets\./g) ?? []).length);
  for (const [, variable, secret] of mentions) expect(variable).toBe(secret);
}

function expectScriptsParse(flow: Workflow): void {
  for (const step of steps(flow)) {
    if (!step.run) continue;
    const check = spawnSync('bash', ['-n'], { input: step.run, encoding: 'utf8', timeout: 10_000 });
    expect(check.status, `${step.name ?? step.run}: ${check.stderr}`).toBe(0);
  }
}

test('test.yml: npm test on every push and pull request, with npm ci, on Node 20, 22 and 24', () => {
  const { text, flow } = workflow('test.yml');
  expect(Object.keys(flow.on).sort()).toEqual(['pull_request', 'push']);
  expect(flow.permissions).toEqual({ contents: 'read' });
  // package.json's engines admits every Node from 20: each maintained line is tested, and one failing hides no other.
  expectSoundJobs(flow, undefined, [20, 22, 24]);
  expect(job(flow, 'test').strategy?.['fail-fast']).toBe(false);
  expect(Object.values(flow.jobs).some((j) => j.steps.some((s) => s.run?.trim() === 'npm test'))).toBe(true);
  expectSecretsContained(text, flow);
  expectScriptsParse(flow);
});

test('playwright-next.yml: weekly and on dispatch, npm test on another Playwright over the lock file', () => {
  const { text, flow } = workflow('playwright-next.yml');
  expect(Object.keys(flow.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
  expect(flow.permissions).toEqual({ contents: 'read' });
  const install = 'npm install --no-save --no-audit --no-fund "@playwright/test@$PLAYWRIGHT_VERSION"';
  expectSoundJobs(flow, install);
  const steps = job(flow, 'test').steps;
  const at = (command: string): number => steps.findIndex((s) => s.run?.trim().startsWith(command));
  expect(at('npm ci')).toBeGreaterThan(-1);
  expect(at(install)).toBeGreaterThan(at('npm ci'));
  expect(at('npm test')).toBeGreaterThan(at(install));
  // A dispatch's input is text: it reaches the script as a variable, never pasted into it.
  const installStep = steps[at(install)];
  expect(installStep?.env?.PLAYWRIGHT_VERSION).toBe(gh("inputs.version || 'latest'"));
  expect(installStep?.run).not.toContain('${{');
  expectSecretsContained(text, flow);
  expectScriptsParse(flow);
});

test('conformance.yml: on dispatch and on a schedule, against the target of repository variables and secrets', () => {
  const { text, flow } = workflow('conformance.yml');
  expect(Object.keys(flow.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
  const schedule = flow.on.schedule as { cron: string }[];
  expect(schedule[0]?.cron).toMatch(/^(\S+ ){4}\S+$/);
  const inputs = (flow.on.workflow_dispatch as { inputs: Record<string, { options?: string[] }> }).inputs;
  expect(inputs.fail_on?.options).toEqual(['variable', 'must', 'regression', 'strict']);
  expect(flow.env?.RSF_TARGET_URL).toBe(gh('vars.RSF_TARGET_URL'));
  expect(flow.permissions).toEqual({ contents: 'read', actions: 'read' });
  expectSoundJobs(flow);
  expectSecretsContained(text, flow);
  expectScriptsParse(flow);

  // A missing target URL must not quietly test the embedded reference instead.
  const shard = job(flow, 'shard');
  expect(runs(shard)).toMatch(/if \[ -z "\$RSF_TARGET_URL" \]; then[\s\S]*exit 2/);
});

test('conformance.yml: a shard matrix whose blobs are merged, reported, uploaded and gated per RSF_FAIL_ON', () => {
  const { flow } = workflow('conformance.yml');
  const shard = job(flow, 'shard');
  const shards = shard.strategy?.matrix?.shard as number[];
  expect(shards.length).toBeGreaterThanOrEqual(2);
  expect(shard.strategy?.['fail-fast']).toBe(false);
  const run = shard.steps.find((s) => s.run?.includes('npx playwright test'));
  expect(run?.run).toContain(`--shard=${gh('matrix.shard')}/${gh('strategy.job-total')}`);
  // Each shard's blob under its own name, as the README's sharding section says, and uploaded.
  expect(run?.env?.PLAYWRIGHT_BLOB_OUTPUT_FILE).toBe(`all-blobs/shard-${gh('matrix.shard')}.zip`);
  expect(run?.env?.RSF_BEARER_TOKEN).toBe(gh('secrets.RSF_BEARER_TOKEN'));
  expect(run?.env?.RSF_EXTRA_HEADERS, "an API gateway's key is a secret too").toBe(gh('secrets.RSF_EXTRA_HEADERS'));
  expect(uses(shard, 'actions/upload-artifact')[0]?.with).toMatchObject({
    name: `blob-report-${gh('matrix.shard')}`,
    path: 'all-blobs',
  });
  // The shards do not apply the exit policy: RSF_FAIL_ON=regression needs a baseline only the merge has.
  expect(JSON.stringify(shard)).not.toMatch(/RSF_FAIL_ON:|RSF_BASELINE:/);
  expect(runs(shard)).toContain("grep -v -E '^(RSF_FAIL_ON|RSF_BASELINE)='");

  const report = job(flow, 'report');
  expect(report.needs).toBe('shard');
  expect(report.if).toBe(gh('!cancelled()'));
  expect(uses(report, 'actions/download-artifact')[0]?.with).toMatchObject({
    pattern: 'blob-report-*',
    path: 'all-blobs',
  });
  expect(runs(report)).toContain(`SHARDS`);
  const count = report.steps.find((s) => s.env?.SHARDS !== undefined);
  expect(count?.env?.SHARDS, 'the shard count check matches the matrix').toBe(shards.length);
  const policy = report.steps.findIndex((s) => s.run?.includes('RSF_FAIL_ON=$CHOSEN'));
  const baseline = report.steps.findIndex((s) => s.run?.includes('RSF_BASELINE='));
  const merge = report.steps.findIndex((s) => s.run?.includes('merge-reports'));
  expect(policy).toBeGreaterThan(-1);
  expect(baseline).toBeGreaterThan(policy);
  expect(merge).toBeGreaterThan(baseline);
  expect(report.steps[baseline]?.if).toBe(gh("env.RSF_FAIL_ON == 'regression'"));
  const mergeStep = report.steps[merge];
  // The merge's exit code is the verdict's (0 PASS, 1 FAIL, 2 ERROR): it must fail the job.
  expect(mergeStep?.run?.trim()).toBe('npx playwright merge-reports --config src/playwright/merge.config.ts all-blobs');
  expect(mergeStep?.['continue-on-error']).toBeUndefined();
  expect(existsSync(join(REPO_ROOT, 'src/playwright/merge.config.ts'))).toBe(true);
  // The reports are uploaded whatever the verdict, under the name the baseline step downloads.
  const upload = uses(report, 'actions/upload-artifact')[0];
  expect(upload?.if).toBe(gh('!cancelled()'));
  expect(upload?.with).toMatchObject({ name: 'conformance-reports', path: 'reports' });
  expect(report.steps[baseline]?.run).toContain('--name conformance-reports');
});
