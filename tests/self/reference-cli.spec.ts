// `npm run reference` (reference/main.ts): one line with the URL and no token, the configured
// token accepted, a clean stop on SIGINT and SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { bearer, send } from '../../reference/test-client';
import { expect, test } from '../support/fixtures';

const ROOT = resolve(__dirname, '../..');
const TSX = resolve(ROOT, 'node_modules/.bin/tsx');
const TOKEN = 'cli-secret-token-1234';

function startCli(): { child: ChildProcess; output: () => string; url: Promise<string> } {
  const child = spawn(TSX, ['reference/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, RSF_REFERENCE_PORT: '0', RSF_BEARER_TOKEN: TOKEN, RSF_TARGET_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = new Promise<string>((resolveUrl, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      const m = /(http:\/\/[\d.]+:\d+)\/v1/.exec(output);
      if (m) resolveUrl(m[1]!);
    });
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
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
      expect((await send(url, '/v1/prices', { headers: bearer('reference-bearer-token') })).status).toBe(401);
      const lines = cli.output().split('\n').filter((l) => l.startsWith('Reference server'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('/_faults/<fault>/v1');
      const exited = exitCode(cli.child);
      cli.child.kill(signal);
      expect(await exited).toBe(0);
      expect(cli.output()).not.toContain(TOKEN);
      expect(cli.output()).not.toContain('reference-channel-token');
    } finally {
      if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
    }
  });
}
