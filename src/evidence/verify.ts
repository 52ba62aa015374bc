// Verifying a conformance bundle (issue 24, item 4): every digest, the signature when a key is given, the form of
// the recording, and, through a `regrade` function, whether the verdict stands requirement by requirement.
// Exit codes: 0 intact (and standing, when re-graded), 1 re-graded differently, 2 damaged, tampered or unreadable.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { type ArchiveLimits, DEFAULT_LIMITS, readArchiveFile } from './bundle';
import { HarError, type ReplaySettings, parseHar } from './har';
import { type Checkout, sha256 } from '../report/checkout';
import { BundleError, MANIFEST_FILE, type Manifest, inputDifferences, parseManifest, shownName } from './manifest';
import { KeyError, SIGNATURE_FILE, loadPublicKey, parseSignature, signatureHolds } from './sign';

/** A requirement's status by ID, as conformance.json's `requirements[].status` says it. */
export type RequirementStatuses = Record<string, string>;

/**
 * Grades the recording again with this checkout's suite, offline, and returns each requirement's status. The HAR is
 * at harPath, inside the output folder, with the other files of the bundle beside it.
 */
export type Regrade = (
  harPath: string,
  manifest: Manifest,
  /** The recording's log._rsf.replay, as verify read it: a re-grade need not parse the recording again. */
  replay: ReplaySettings,
) => Promise<{
  requirements: RequirementStatuses;
  /** Tests of the run that this checkout does not have (renamed or removed since): they were not re-graded. */
  notInThisCheckout?: string[];
}>;

export interface VerifyOptions {
  /** PEM file of the Ed25519 public key the manifest must be signed with. */
  publicKeyPath?: string;
  /** Where the verified files are written for the re-grade; an empty or new folder. Needed with `regrade`. */
  outDir?: string;
  regrade?: Regrade;
  limits?: ArchiveLimits;
  /** This checkout: its inputs are compared with the run's (a re-grade judges by this checkout's catalogue). */
  checkout?: Checkout;
}

export interface StatusChange {
  id: string;
  /** Absent: the requirement was not in the bundled report (or not in the re-grade, for `now`). */
  before?: string;
  now?: string;
}

export interface Regraded {
  same: string[];
  /** Failed or warned now, and did not in the bundled report. */
  newlyFailing: StatusChange[];
  /** Passed now, and did not in the bundled report. */
  newlyPassing: StatusChange[];
  /** Any other change: judged then and not now, or the other way, or gone from one side. */
  changed: StatusChange[];
}

export interface VerifyResult {
  exitCode: 0 | 1 | 2;
  /** What to print; with exit code 2, one line saying what is wrong. */
  lines: string[];
  manifest?: Manifest;
  regraded?: Regraded;
}

const FAILING: ReadonlySet<string> = new Set(['failed', 'warning']);

/** Each requirement of the bundled report against its re-grade. */
export function compareStatuses(before: RequirementStatuses, now: RequirementStatuses): Regraded {
  const out: Regraded = { same: [], newlyFailing: [], newlyPassing: [], changed: [] };
  for (const id of [...new Set([...Object.keys(before), ...Object.keys(now)])].sort()) {
    const change: StatusChange = {
      id,
      ...(before[id] !== undefined && { before: before[id] }),
      ...(now[id] !== undefined && { now: now[id] }),
    };
    if (change.before === change.now) out.same.push(id);
    else if (change.now !== undefined && FAILING.has(change.now) && !FAILING.has(change.before ?? ''))
      out.newlyFailing.push(change);
    else if (change.now === 'passed') out.newlyPassing.push(change);
    else out.changed.push(change);
  }
  return out;
}

/**
 * Statuses from a conformance.json's bytes, each as the run judged it: a waived requirement's is the status its waiver
 * hid (failed or warning). Waivers are the run's policy, which the bundled report shows; a re-grade judges the
 * recording again without them. `waived`: the IDs of those requirements.
 */
function reportStatuses(bytes: Uint8Array, name: string): { statuses: RequirementStatuses; waived: string[] } {
  let data: { format?: unknown; requirements?: unknown };
  try {
    data = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw new BundleError(`${name} is not JSON`);
  }
  if (
    typeof data?.format !== 'string' ||
    !data.format.startsWith('rsf-conformance/') ||
    !Array.isArray(data.requirements)
  )
    throw new BundleError(`${name} is not a conformance report (no "format": "rsf-conformance/…" and requirements)`);
  const statuses: RequirementStatuses = {};
  const waived: string[] = [];
  for (const row of data.requirements as { id?: unknown; status?: unknown; waivedStatus?: unknown }[]) {
    if (typeof row?.id !== 'string' || typeof row.status !== 'string')
      throw new BundleError(`${name} has a requirement without a string "id" and "status"`);
    const hidden = row.status === 'waived' && typeof row.waivedStatus === 'string' ? row.waivedStatus : undefined;
    if (hidden !== undefined) waived.push(row.id);
    statuses[row.id] = hidden ?? row.status;
  }
  return { statuses, waived };
}

/** Checks the digests of the manifest against the archive's entries; returns the manifest. */
function checkDigests(entries: ReadonlyMap<string, Uint8Array>): { manifest: Manifest; manifestFile: Uint8Array } {
  const manifestFile = entries.get(MANIFEST_FILE);
  if (!manifestFile) throw new BundleError(`the archive has no ${MANIFEST_FILE}: not a conformance bundle`);
  const manifest = parseManifest(manifestFile);
  for (const [name, digest] of Object.entries(manifest.files)) {
    const data = entries.get(name);
    if (!data) throw new BundleError(`${MANIFEST_FILE} names ${shownName(name)}, which the bundle lacks`);
    if (data.byteLength !== digest.bytes || sha256(data) !== digest.sha256)
      throw new BundleError(`${shownName(name)} is damaged or was changed: its SHA-256 is not the manifest's`);
  }
  for (const name of entries.keys()) {
    if (name !== MANIFEST_FILE && name !== SIGNATURE_FILE && !(name in manifest.files))
      throw new BundleError(`${shownName(name)} is in the bundle but not in its manifest`);
  }
  return { manifest, manifestFile };
}

function checkSignature(
  entries: ReadonlyMap<string, Uint8Array>,
  manifestFile: Uint8Array,
  publicKeyPath: string | undefined,
): string {
  const file = entries.get(SIGNATURE_FILE);
  const signature = file ? parseSignature(file) : undefined;
  if (publicKeyPath === undefined) {
    return signature
      ? `signature: present (Ed25519, key sha256:${signature.publicKeySha256.slice(0, 16)}…), not checked: ` +
          'give --public-key to check it'
      : 'signature: none (unsigned bundle)';
  }
  if (!signature) throw new BundleError(`the bundle is not signed, and ${publicKeyPath} was given to check it with`);
  if (!signatureHolds(manifestFile, signature, loadPublicKey(publicKeyPath)))
    throw new BundleError(
      `${SIGNATURE_FILE} does not verify with ${publicKeyPath}: ` +
        `${MANIFEST_FILE} was changed, or signed with another key`,
    );
  return `signature: good (Ed25519, the key of ${publicKeyPath})`;
}

/** Writes the verified files into a new or empty folder; 'wx' refuses to follow a link planted there. */
function extract(entries: ReadonlyMap<string, Uint8Array>, outDir: string): void {
  const root = resolve(outDir);
  mkdirSync(root, { recursive: true });
  if (readdirSync(root).length > 0) throw new BundleError(`the output folder ${outDir} is not empty`);
  for (const [name, data] of entries) {
    const path = resolve(root, name);
    if (!path.startsWith(root + sep)) throw new BundleError(`${shownName(name)} would be written outside ${outDir}`);
    mkdirSync(resolve(path, '..'), { recursive: true });
    writeFileSync(path, data, { flag: 'wx' });
  }
}

const changeLine = (c: StatusChange) => `${c.id} (${c.before ?? 'absent'} → ${c.now ?? 'absent'})`;

function regradeLines(r: Regraded, verdict: string, waived: readonly string[], before: RequirementStatuses): string[] {
  const total = r.same.length + r.newlyFailing.length + r.newlyPassing.length + r.changed.length;
  if (total === r.same.length) {
    const judged = waived.map((id) => `${id} (${before[id]})`).join(', ');
    const alike = waived.length > 0 ? `; waived in the run, and judged as the run judged them: ${judged}` : '';
    return [`re-grade: the verdict stands (${verdict}): all ${total} requirements have the same status${alike}`];
  }
  const group = (label: string, list: StatusChange[]) =>
    list.length > 0 ? [`  ${label} (${list.length}): ${list.map(changeLine).join(', ')}`] : [];
  return [
    `re-grade: the verdict does not stand: ${total - r.same.length} of ${total} requirements changed`,
    `  same: ${r.same.length}`,
    ...group('newly failing', r.newlyFailing),
    ...group('newly passing', r.newlyPassing),
    ...group('otherwise changed', r.changed),
  ];
}

/** Titles of tests named in a line before "and N more". */
const MAX_TITLES = 3;

/** The run's tests that this checkout lacks, which is why their requirements may have changed. */
function missingTestsLine(missing: readonly string[]): string {
  const shown = missing.slice(0, MAX_TITLES).map((t) => `"${t}"`);
  const more = missing.length > MAX_TITLES ? ` and ${missing.length - MAX_TITLES} more` : '';
  const tests = missing.length === 1 ? '1 test of the run is' : `${missing.length} tests of the run are`;
  return (
    `  not re-graded: ${tests} not in this checkout (renamed or removed since): ${shown.join(', ')}${more}; ` +
    'a replay by hand (RSF_TARGET_URL=har:…) shows what this checkout makes of the recording'
  );
}

async function verifyOrThrow(bundlePath: string, options: VerifyOptions): Promise<VerifyResult> {
  const entries = readArchiveFile(bundlePath, options.limits ?? DEFAULT_LIMITS);
  const { manifest, manifestFile } = checkDigests(entries);
  const signatureLine = checkSignature(entries, manifestFile, options.publicKeyPath);
  const run = manifest.run;
  const lines = [
    `bundle: ${bundlePath}`,
    `intact: ${Object.keys(manifest.files).length} files, each with the SHA-256 its manifest gives ` +
      `(${Object.keys(manifest.files).join(', ')})`,
    signatureLine,
    `run: ${run.verdict} against ${run.target}, ${run.startedAt} to ${run.endedAt}, suite ${manifest.suite.version}` +
      (manifest.git ? ` at ${manifest.git.commit.slice(0, 12)}` : ''),
  ];
  if (options.checkout) {
    const differences = inputDifferences(manifest.inputs, options.checkout.inputs);
    lines.push(
      differences.length === 0
        ? "inputs: this checkout's lock file, requirements and schemas are the run's"
        : `inputs: this checkout differs from the run's: ${differences.join('; ')}${runsSuite(manifest)}`,
    );
  }
  const recording = manifest.recording;
  if (recording === null) {
    lines.push('recording: none, so the verdict cannot be re-graded: the bundle proves integrity only');
    return { exitCode: 0, lines, manifest };
  }
  const har = parseHar(Buffer.from(entries.get(recording) ?? []).toString('utf8'), recording);
  lines.push(`recording: ${recording}, ${har.records.length} exchanges, a well-formed HAR 1.2 log`);
  if (!options.regrade) {
    lines.push('re-grade: not available: no re-grade was asked for; the verdict was not re-graded');
    return { exitCode: 0, lines, manifest };
  }
  const replay = har.rsf?.replay;
  if (!replay) {
    // A replay sends what the run sent only with the run's seed, property runs, writes and base URL.
    lines.push(
      're-grade: not possible: the recording has no log._rsf.replay (it was not written by a conformance run); ' +
        'the verdict was not re-graded',
    );
    return { exitCode: 0, lines, manifest };
  }
  if (!options.outDir) throw new BundleError('re-grading needs an output folder for the recording');
  const reportName = Object.keys(manifest.files).find(
    (n) => n === 'conformance.json' || n.endsWith('/conformance.json'),
  );
  if (!reportName) throw new BundleError('the bundle has no conformance.json to compare a re-grade with');
  const { statuses: before, waived } = reportStatuses(entries.get(reportName) ?? new Uint8Array(0), reportName);
  const withoutSignature = new Map([...entries].filter(([name]) => name !== SIGNATURE_FILE));
  extract(withoutSignature, options.outDir);
  let now: RequirementStatuses;
  let missing: string[];
  try {
    const result = await options.regrade(join(resolve(options.outDir), recording), manifest, replay);
    now = result.requirements;
    missing = result.notInThisCheckout ?? [];
  } catch (e) {
    throw new BundleError(`re-grading failed: ${(e as Error).message.split('\n')[0]}`);
  }
  const regraded = compareStatuses(before, now);
  lines.push(...regradeLines(regraded, run.verdict, waived, before));
  if (missing.length > 0) lines.push(missingTestsLine(missing));
  const stands = regraded.same.length === Object.keys({ ...before, ...now }).length;
  return { exitCode: stands ? 0 : 1, lines, manifest, regraded };
}

/** Where the run's own suite is, for a verifier whose checkout differs from it: the commit to re-grade with. */
function runsSuite(manifest: Manifest): string {
  if (manifest.git === null) return '';
  const commit = manifest.git.commit.slice(0, 12);
  const dirty = manifest.git.dirty ? ', with changes it had not committed' : '';
  return `. The run's suite was commit ${commit}${dirty}: a checkout of it (git checkout ${commit}) re-grades with it`;
}

/** Verifies a bundle; never throws for a bad bundle or key, it returns exit code 2 with one line instead. */
export async function verifyBundle(bundlePath: string, options: VerifyOptions = {}): Promise<VerifyResult> {
  try {
    return await verifyOrThrow(bundlePath, options);
  } catch (e) {
    if (e instanceof BundleError || e instanceof HarError || e instanceof KeyError)
      return { exitCode: 2, lines: [e.message] };
    const code = (e as NodeJS.ErrnoException).code;
    if (code) return { exitCode: 2, lines: [`${code}: ${(e as Error).message.split('\n')[0]}`] };
    throw e;
  }
}
