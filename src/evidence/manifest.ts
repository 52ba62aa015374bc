// The manifest of a conformance bundle (issue 24, item 3): what ran (suite, commit, digests of its inputs), how
// (settings without secrets), against what and with which verdict, and the SHA-256 of every file the bundle carries.
import { printableLine } from '../model/printable';
import { type Checkout, SHA256_HEX, sha256 } from '../report/checkout';
import { isObject } from '../model/operations';

export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_FORMAT = 'rsf-bundle/1';

/** A bundle that cannot be read or trusted; the message is one line, and names the file at fault. */
export class BundleError extends Error {
  override name = 'BundleError';
}

export interface FileDigest {
  sha256: string;
  bytes: number;
}

export interface RunFacts {
  /** The target as the reports show it (no credentials). */
  target: string;
  startedAt: string;
  endedAt: string;
  verdict: string;
  exitCode: number;
  headline?: string;
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  createdAt: string;
  suite: Checkout['suite'];
  git: Checkout['git'];
  inputs: Checkout['inputs'];
  /** Settings of the run, secrets already removed by the caller. */
  configuration: Record<string, unknown>;
  run: RunFacts;
  /** The recording the bundle carries (a file of `files`), or null: the bundle then proves integrity only. */
  recording: string | null;
  /** Every file of the bundle but the manifest and its signature. */
  files: Record<string, FileDigest>;
}

export interface ManifestInput {
  checkout: Checkout;
  configuration: Record<string, unknown>;
  run: RunFacts;
  /** The files the bundle carries, by name in the archive. */
  files: Readonly<Record<string, Uint8Array>>;
  recording: string | null;
  createdAt?: Date;
}

export function buildManifest(input: ManifestInput): Manifest {
  if (input.recording !== null && !(input.recording in input.files))
    throw new BundleError(`the recording ${input.recording} is not among the bundle's files`);
  return {
    format: MANIFEST_FORMAT,
    createdAt: (input.createdAt ?? new Date()).toISOString(),
    suite: input.checkout.suite,
    git: input.checkout.git,
    inputs: input.checkout.inputs,
    configuration: input.configuration,
    run: input.run,
    recording: input.recording,
    files: Object.fromEntries(
      Object.entries(input.files).map(([name, data]) => [name, { sha256: sha256(data), bytes: data.byteLength }]),
    ),
  };
}

/** The manifest as its file: these bytes are what the signature signs. */
export function manifestBytes(manifest: Manifest): Uint8Array {
  return Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
}

const SAFE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/**
 * Why a name may not be a file of a bundle, or undefined when it may: an absolute path, a backslash, a `..` could
 * write outside the output folder; anything but plain ASCII names could hide as something else.
 */
export function entryNameProblem(name: string): string | undefined {
  if (name === '') return 'an empty name';
  if (name.length > 255) return 'a name over 255 characters';
  if (name.includes('\\')) return 'a backslash in its name';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'an absolute path';
  if (name.split('/').some((part) => part === '..' || part === '.')) return '".." or "." in its path';
  if (name.includes('..')) return '".." in its name';
  if (!SAFE_NAME.test(name)) return 'characters other than letters, digits, ".", "_", "-" and "/" in its name';
  return undefined;
}

/** A name as it may be shown on one line: escaped and cut, since it comes from an archive anyone can craft. */
export function shownName(name: string): string {
  return `"${printableLine(name, 80)}"`;
}

function bad(what: string): never {
  throw new BundleError(`${MANIFEST_FILE} is not a bundle manifest: ${what}`);
}

/** The manifest read from its bytes, every field a verifier relies on checked. */
export function parseManifest(bytes: Uint8Array): Manifest {
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (e) {
    throw new BundleError(`${MANIFEST_FILE} is not JSON: ${printableLine((e as Error).message, 200)}`);
  }
  if (!isObject(data)) bad('not an object');
  if (data.format !== MANIFEST_FORMAT) bad(`"format" is not "${MANIFEST_FORMAT}"`);
  if (!isObject(data.files)) bad('"files" is not an object');
  for (const [name, digest] of Object.entries(data.files)) {
    const problem = entryNameProblem(name);
    if (problem) bad(`it names the file ${shownName(name)}, with ${problem}`);
    if (!isObject(digest) || typeof digest.sha256 !== 'string' || !SHA256_HEX.test(digest.sha256))
      bad(`files[${shownName(name)}] has no SHA-256`);
    if (!Number.isSafeInteger(digest.bytes) || (digest.bytes as number) < 0)
      bad(`files[${shownName(name)}] has no byte count`);
  }
  if (data.recording !== null && (typeof data.recording !== 'string' || !(data.recording in data.files)))
    bad('"recording" is neither null nor one of its files');
  if (!isObject(data.run)) bad('"run" is not an object');
  for (const key of ['target', 'startedAt', 'endedAt', 'verdict'] as const)
    if (typeof data.run[key] !== 'string') bad(`run.${key} is not a string`);
  if (!isObject(data.suite) || typeof data.suite.version !== 'string') bad('"suite" has no version');
  if (!isObject(data.inputs) || !Object.values(data.inputs).every((d) => typeof d === 'string' && SHA256_HEX.test(d)))
    bad('"inputs" is not a map of SHA-256 digests');
  if (!isObject(data.configuration)) bad('"configuration" is not an object');
  return data as unknown as Manifest;
}

/** How this checkout's inputs differ from the run's: what a re-grade here would judge differently by. */
export function inputDifferences(run: Record<string, string>, here: Record<string, string>): string[] {
  const names = [...new Set([...Object.keys(run), ...Object.keys(here)])].sort();
  return names.flatMap((name) => {
    if (!(name in here)) return [`${name}: in the run's checkout only`];
    if (!(name in run)) return [`${name}: in this checkout only`];
    return run[name] === here[name] ? [] : [`${name}: differs`];
  });
}
