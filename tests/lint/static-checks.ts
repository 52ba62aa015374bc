// `npm test`'s first step: the typecheck and the lint side by side. Each keeps about one core busy for a few seconds,
// so together they take the time of the longer one. Each one's output is printed whole when it ends, under its
// name; the step fails if either fails.
import { spawn } from 'node:child_process';

const CHECKS = ['typecheck', 'lint'];

interface Outcome {
  name: string;
  code: number | null;
  output: string;
  ms: number;
}

function run(name: string): Promise<Outcome> {
  const started = Date.now();
  const child = spawn('npm', ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  child.stderr.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve) =>
    child.on('close', (code) =>
      resolve({ name, code, output: Buffer.concat(chunks).toString('utf8').trim(), ms: Date.now() - started }),
    ),
  );
}

void Promise.all(CHECKS.map(run)).then((outcomes) => {
  for (const { name, code, output, ms } of outcomes) {
    const verdict = code === 0 ? 'passed' : `failed (exit ${code})`;
    console.log(`${name}: ${verdict} in ${(ms / 1000).toFixed(1)} s${output ? `\n${output}` : ''}`);
  }
  process.exitCode = outcomes.every((o) => o.code === 0) ? 0 : 1;
});
