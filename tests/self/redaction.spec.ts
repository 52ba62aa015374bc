// Secrets never reach an output: run the real suite with recognisable tokens, once clean and once against a
// reference fault that makes an operation-15 check fail with the channel token's URL in its evidence, then search
// every file the run wrote (zips opened), stdout and stderr for the tokens. Besides the suite's reporters, the runs
// keep Playwright's json and blob reports: what Playwright records (step titles, errors, attachments) is redacted at
// the source, for any reporter a user adds.
// The near-miss tokens the credential probes send (nearly the Bearer token) are searched for the same way.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { FAULTS } from '../../reference/server';
import { nearMissTokens } from '../../src/http/near-miss-tokens';
import { requirements } from '../../src/model/catalogue';
import { expect, test } from '../../src/playwright/fixtures';
import { readArtifacts, secretForms } from './support/artifacts';
import { fakeSecrets, readReport, runPlaywright } from './support/child-run';

const BROKEN = 'OP15-SUCCESS-SHAPE';
const REPORTERS = [
  './src/playwright/plan-reporter.ts',
  './src/playwright/console-reporter.ts',
  'json',
  'blob',
  './src/playwright/conformance-reporter.ts',
].join(',');

/** The suite in a child run with the recognisable `secrets`, every output under `dir`. */
function runWithSecrets(
  dir: string,
  secrets: { bearer: string; channel: string },
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs: number,
) {
  return runPlaywright(
    ['test', '--output', join(dir, 'results'), ...args, `--reporter=${REPORTERS}`],
    {
      PLAYWRIGHT_JSON_OUTPUT_FILE: join(dir, 'playwright-results.json'),
      PLAYWRIGHT_BLOB_OUTPUT_DIR: join(dir, 'blob'),
      RSF_BEARER_TOKEN: secrets.bearer,
      RSF_CHANNEL_TOKEN: secrets.channel,
      RSF_REPORTS_DIR: join(dir, 'reports'),
      RSF_WAIVERS_FILE: join(dir, 'no-waivers.json'),
      ...env,
    },
    timeoutMs,
  );
}

test('no form of a secret appears in any report, result, archive or console output', async ({}, testInfo) => {
  const fault = FAULTS.find((f) => f.breaks === BROKEN)?.name;
  expect(fault, `a fault of reference/faults.ts breaks ${BROKEN}`).toBeDefined();
  test.setTimeout(10 * 60_000);

  const secrets = fakeSecrets();
  // An API gateway's key, which every request carries (the reference ignores it).
  const apiKey = `ZZSECRETAPIKEYZZ-${secrets.bearer.slice(-12)}`;
  const bearers = [secrets.bearer, ...nearMissTokens(secrets.bearer)];
  const forms = [
    ...bearers.flatMap((t) => secretForms(t, ['Bearer ', 'Bearer%20'])),
    ...[secrets.channel, ...nearMissTokens(secrets.channel)].flatMap((t) => secretForms(t)),
    ...secretForms(apiKey),
  ];
  const runs = await Promise.all(
    ['clean', 'fault'].map(async (name) => {
      const dir = testInfo.outputPath(name);
      const run = await runWithSecrets(
        dir,
        secrets,
        [],
        {
          RSF_REFERENCE_FAULT: name === 'fault' ? fault : undefined,
          RSF_EXTRA_HEADERS: JSON.stringify({ 'X-Api-Key': apiKey }),
          // Every property still sends the secrets; more runs of each would only send them more often.
          RSF_FC_NUM_RUNS: '5',
        },
        8 * 60_000,
      );
      return { name, dir, run };
    }),
  );

  for (const { name, dir, run } of runs) {
    expect(run.code, `${name} run was killed:\n${run.stderr}`).not.toBeNull();
    const reports = join(dir, 'reports');
    expect(
      existsSync(join(reports, 'conformance.json')),
      `${name}: no conformance.json; is the conformance reporter configured?\n${run.stdout}\n${run.stderr}`,
    ).toBe(true);
    const report = readReport(reports);
    expect(report.requirements).toHaveLength(requirements().length);
    expect(report.summary.tests.total).toBeGreaterThan(0);

    const artifacts = [
      ...readArtifacts(dir),
      { name: `${name} stdout`, text: run.stdout },
      { name: `${name} stderr`, text: run.stderr },
    ];
    // The search really looked inside Playwright's blob report, a zip.
    expect(
      artifacts.some((a) => a.name.includes('blob') && a.name.includes('.zip')),
      `${name}: the blob report was not found`,
    ).toBe(true);
    // Redacted, not dropped: Playwright's results still show operation 15's requests, whose step title is the URL.
    expect(
      artifacts.some((a) => a.name.includes('playwright-results') && a.text.includes('/messageChannel/[REDACTED]/')),
      `${name}: operation 15's request in Playwright's json report`,
    ).toBe(true);
    // Redacted, not dropped: the recording shows the key's header on the requests it went with.
    expect(
      artifacts.some(
        (a) => a.name.endsWith('exchanges.har') && a.text.includes('"name":"X-Api-Key","value":"[REDACTED]"'),
      ),
      `${name}: the gateway's key header in the recording`,
    ).toBe(true);
    const leaks = artifacts.flatMap((a) => forms.filter((f) => a.text.includes(f)).map((f) => `${a.name}: ${f}`));
    expect(leaks, `${name} run`).toEqual([]);
  }

  // The fault made an operation-15 check fail, so its evidence shows the URL that carries the channel token.
  const failed = readReport(join(runs[1]!.dir, 'reports')).requirements.filter((r) => r.status === 'failed');
  expect(
    failed.map((r) => r.id).filter((id) => id.startsWith('OP15-')),
    `the fault ${fault} fails an operation-15 requirement`,
  ).not.toEqual([]);
  expect(JSON.stringify(failed.map((r) => r.evidence))).toContain('/messageChannel/');
});

test('the near-miss tokens are redacted from every output of runs where their probes fail', async ({}, testInfo) => {
  test.setTimeout(4 * 60_000);
  const secrets = fakeSecrets();
  const nearMisses = nearMissTokens(secrets.bearer);
  expect(nearMisses, 'the token with its last character changed or dropped, one added, in the other case').toHaveLength(
    4,
  );
  const forms = nearMisses.flatMap((token) => secretForms(token, ['Bearer ', 'Bearer%20']));
  // Each fault accepts one near miss, so that its probe fails and shows the request: message, headers and curl line.
  const faults = {
    'op9-token-case-insensitive': 'OP9-AUTH-REQUIRED',
    'op11-token-last-character-unchecked': 'OP11-AUTH-REQUIRED',
    'op10-token-prefix-accepted': 'OP10-AUTH-REQUIRED',
    'op13-token-extension-accepted': 'OP13-AUTH-REQUIRED',
  };
  const runFault = async (fault: string, id: string) => {
    const dir = testInfo.outputPath(fault);
    const grep = ['--grep', `@${id}(\\s|$)`];
    const run = await runWithSecrets(dir, secrets, grep, { RSF_REFERENCE_FAULT: fault }, 3 * 60_000);
    return { fault, id, dir, run };
  };
  // Operation 15's channel token, in the path: its near misses all show as [REDACTED], and the failure names which.
  const channelRun = runFault('op15-channel-token-case-insensitive', 'OP15-CHANNEL-TOKEN');
  const runs = await Promise.all(Object.entries(faults).map(([fault, id]) => runFault(fault, id)));
  for (const { fault, id, dir, run } of runs) {
    expect(run.code, `${fault}: the near-miss probe fails the run\n${run.stdout}\n${run.stderr}`).toBe(1);
    const row = readReport(join(dir, 'reports')).requirements.find((r) => r.id === id);
    expect(row?.status, `${fault} fails ${id}`).toBe('failed');
    const evidence = row?.evidence.flatMap((e) => (e.evidence ? [e.evidence] : [])) ?? [];
    expect(evidence.flatMap((e) => e.exchanges.map((x) => x.curl))).toEqual([
      expect.stringContaining('-H "Authorization: Bearer [REDACTED]"'),
    ]);
    expect(evidence[0]?.message).toContain('Authorization: Bearer [REDACTED]');
    expect(run.stdout, `${fault}: the console shows the failure`).toContain('Authorization: Bearer [REDACTED]');
    const artifacts = [
      ...readArtifacts(dir),
      { name: `${fault} stdout`, text: run.stdout },
      { name: `${fault} stderr`, text: run.stderr },
    ];
    const leaks = artifacts.flatMap((a) => forms.filter((f) => a.text.includes(f)).map((f) => `${a.name}: ${f}`));
    expect(leaks, `${fault} run`).toEqual([]);
  }
  const channel = await channelRun;
  expect(channel.run.code, `${channel.run.stdout}\n${channel.run.stderr}`).toBe(1);
  const row = readReport(join(channel.dir, 'reports')).requirements.find((r) => r.id === 'OP15-CHANNEL-TOKEN');
  expect(row?.evidence[0]?.message).toMatch(/\/messageChannel\/\[REDACTED\]\//);
  expect(row?.evidence[0]?.message).toContain(
    'note: the request judged: RSF_CHANNEL_TOKEN with its letters in the other case',
  );
  const channelForms = nearMissTokens(secrets.channel).flatMap((token) => secretForms(token));
  const texts = [...readArtifacts(channel.dir), { name: 'stdout', text: channel.run.stdout }];
  expect(texts.flatMap((a) => channelForms.filter((f) => a.text.includes(f)).map((f) => `${a.name}: ${f}`))).toEqual(
    [],
  );
});
