// `npm run reference` (reference/main.ts): one line with the URL and no token, the configured
// token accepted, a clean stop on SIGINT and SIGTERM; its own settings checked, a chosen profile's URL first.
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { bearer, send } from '../../reference/test-client';
import { expect, test } from '../../src/playwright/fixtures';
import { killGroup } from './support/child-run';

const ROOT = resolve(__dirname, '../..');
const TOKEN = 'cli-secret-token-1234';

/** Its settings, each set (even to ''), so that a developer's .env changes none of them. */
const CLI_ENV = {
  RSF_REFERENCE_PORT: '0',
  RSF_BEARER_TOKEN: TOKEN,
  RSF_CHANNEL_TOKEN: '',
  RSF_REFERENCE_MODE: '',
  RSF_REFERENCE_FAULT: '',
  RSF_REFERENCE_LATENCY_MS: '',
};

interface Cli {
  child: ChildProcess;
  output: () => string;
  url: Promise<string>;
}

function startCli(env: Record<string, string> = {}, args: string[] = []): Cli {
  // As `npm run reference` starts it: one process, tsx's loader in it. The tsx command would run the server in a child
  // of its own and relay a signal to it, killing it with SIGKILL (exit 143) when it is not told within 30 ms that the
  // child got it, as on a loaded machine.
  const child = spawn(process.execPath, ['--import', 'tsx', 'reference/main.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...CLI_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A group, so that killing it leaves nothing behind.
    detached: true,
  });
  let output = '';
  const url = new Promise<string>((resolveUrl, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      output += d.toString();
      const m = /(http:\/\/[\d.]+:\d+)\/v1/.exec(output);
      if (m?.[1]) resolveUrl(m[1]);
    });
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
  return { child, output: () => output, url };
}

const exitCode = (child: ChildProcess) => new Promise<number | null>((r) => child.once('exit', (code) => r(code)));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  test(`npm run reference prints one line, accepts RSF_BEARER_TOKEN and stops on ${signal}`, async () => {
    const cli = startCli();
    try {
      const url = await cli.url;
      expect((await send(url, '/v1/prices', { headers: bearer(TOKEN) })).status).toBe(200);
      expect((await send(url, '/v1/prices', { headers: bearer('Reference-Bearer-Token') })).status).toBe(401);
      const lines = cli
        .output()
        .split('\n')
        .filter((l) => l.startsWith('Reference server'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('/_faults/<fault>/v1');
      const exited = exitCode(cli.child);
      cli.child.kill(signal);
      expect(await exited).toBe(0);
      expect(cli.output()).not.toContain(TOKEN);
      expect(cli.output()).not.toContain('Reference-Channel-Token');
    } finally {
      killGroup(cli.child);
    }
  });
}

test('npm run reference prints the URL of the profile RSF_REFERENCE_FAULT names first', async () => {
  const cli = startCli({ RSF_REFERENCE_FAULT: 'op9-sku-not-string' });
  try {
    const root = await cli.url;
    const line =
      cli
        .output()
        .split('\n')
        .find((l) => l.startsWith('Reference server')) ?? '';
    const profileUrl = `${root}/_faults/op9-sku-not-string/v1`;
    expect(line.startsWith(`Reference server at ${profileUrl}, fault op9-sku-not-string`), line).toBe(true);
    const prices = await send(root, '/_faults/op9-sku-not-string/v1/prices', { headers: bearer(TOKEN) });
    expect((prices.value as { sku: unknown }[])[0]?.sku, 'the fault is on at that URL').toEqual(expect.any(Number));
  } finally {
    killGroup(cli.child);
  }
});

test('npm run reference checks its settings: the variable is named, a token never shown', async () => {
  for (const [name, value, message] of [
    ['RSF_REFERENCE_PORT', '65536', /RSF_REFERENCE_PORT: expected an integer from 0 to 65535, got "65536"/],
    ['RSF_REFERENCE_LATENCY_MS', 'slow', /RSF_REFERENCE_LATENCY_MS: expected a number from 0 to 10000/],
    ['RSF_REFERENCE_FAULT', 'no-such-fault', /RSF_REFERENCE_FAULT: unknown fault "no-such-fault"/],
  ] as const) {
    const cli = startCli({ [name]: value });
    cli.url.catch(() => undefined); // it never listens: no URL comes
    const code = await exitCode(cli.child);
    expect(code, cli.output()).toBe(1);
    expect(cli.output()).toMatch(message);
    expect(cli.output()).not.toContain(TOKEN);
  }
});

test('npm run reference -- --help prints the variables it reads; an argument it does not take is refused', async () => {
  for (const [args, code, stream] of [
    [['--help'], 0, /^usage: npm run reference\n/],
    [['-h'], 0, /^usage: npm run reference\n/],
    [['--port', '4011'], 2, /^Unknown option '--port'.*\n\nusage: npm run reference\n/s],
    [['4011'], 2, /^Unexpected argument '4011'.*\n\nusage: npm run reference\n/s],
  ] as const) {
    const cli = startCli({}, [...args]);
    // A server that starts anyway is the failure, at once rather than at the test's time-out.
    const listening = cli.url.then(
      () => 'listening',
      () => new Promise<never>(() => {}),
    );
    const outcome = await Promise.race([exitCode(cli.child), listening]);
    killGroup(cli.child);
    expect(outcome, cli.output()).toBe(code);
    expect(cli.output()).toMatch(stream);
    expect(cli.output()).toContain('RSF_REFERENCE_LATENCY_MS');
    expect(cli.output()).not.toContain('Reference server at');
  }
});
