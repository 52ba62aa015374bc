// Which suite wrote a report: its name and version, its git commit, and the digests of the inputs that decide how
// answers are judged. The conformance reporter records it as a run starts (conformance.json, "checkout"), and a
// bundle's manifest carries the run's (src/evidence/manifest.ts), whatever the checkout is when the bundle is made.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isObject } from '../model/operations';

/** The SHA-256 of `data`, in lower-case hex: a manifest's digests, and a checkout's. */
export const sha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

/** A SHA-256 as `sha256` writes it. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The checkout that ran: what a verifier compares with its own before trusting a re-grade. */
export interface Checkout {
  suite: { name: string; version: string };
  /** null outside a git work tree (an unpacked release, say). */
  git: { commit: string; dirty: boolean } | null;
  /** SHA-256 of package-lock.json, specs/requirements.json and schemas/*.json, by repository path. */
  inputs: Record<string, string>;
}

/** The inputs whose digests a manifest records: what decides how a recording is graded. */
export function inputFiles(root: string): string[] {
  const schemas = existsSync(join(root, 'schemas'))
    ? readdirSync(join(root, 'schemas'))
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => `schemas/${f}`)
    : [];
  return ['package-lock.json', 'specs/requirements.json', ...schemas].filter((f) => existsSync(join(root, f)));
}

function git(root: string, args: string[]): string | undefined {
  try {
    // A checkout another user owns (a container image run as its own user) is one git refuses to read ("dubious
    // ownership") unless trusted: the suite running from it is that checkout's own code, so it is trusted already.
    return execFileSync('git', ['-c', 'safe.directory=*', ...args], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
    });
  } catch {
    return undefined; // no git, or not a work tree: the manifest says null
  }
}

/** The suite at `root`: name and version from package.json, the git commit if any, the digests of its inputs. */
export function describeCheckout(root: string): Checkout {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name?: string; version?: string };
  const commit = git(root, ['rev-parse', 'HEAD'])?.trim();
  // Tracked files only: reports/ and other output are ignored and say nothing of the suite's code.
  const status = commit ? git(root, ['status', '--porcelain', '--untracked-files=no']) : undefined;
  return {
    suite: { name: pkg.name ?? 'unknown', version: pkg.version ?? 'unknown' },
    git: commit ? { commit, dirty: (status ?? '').trim() !== '' } : null,
    inputs: Object.fromEntries(inputFiles(root).map((f) => [f, sha256(readFileSync(join(root, f)))])),
  };
}

/** The checkout a report recorded (conformance.json's "checkout"), or undefined if it holds none of this shape. */
export function recordedCheckout(value: unknown): Checkout | undefined {
  if (!isObject(value) || !isObject(value.suite) || !isObject(value.inputs)) return undefined;
  const { suite, git, inputs } = value;
  if (typeof suite.name !== 'string' || typeof suite.version !== 'string') return undefined;
  if (!Object.values(inputs).every((d) => typeof d === 'string' && SHA256_HEX.test(d))) return undefined;
  if (git !== null && !(isObject(git) && typeof git.commit === 'string' && typeof git.dirty === 'boolean'))
    return undefined;
  return {
    suite: { name: suite.name, version: suite.version },
    git: git === null ? null : { commit: git.commit as string, dirty: git.dirty as boolean },
    inputs: inputs as Record<string, string>,
  };
}
