// A conformance bundle as a zip archive (fflate), written and read. Reading is bounded (issue 24, item 5): the
// central directory is read first, without inflating anything, and an archive whose entries are too many, too
// large, or badly named is refused before a byte is inflated; then each entry is inflated as a stream and stopped
// at the size its directory declared, so a small entry that inflates to gigabytes costs at most one chunk more.
import { closeSync, constants, fstatSync, mkdirSync, openSync, readSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { type UnzipFile, Unzip, UnzipInflate, type Zippable, unzipSync, zipSync } from 'fflate';
import {
  BundleError,
  MANIFEST_FILE,
  type Manifest,
  type ManifestInput,
  buildManifest,
  entryNameProblem,
  manifestBytes,
  shownName,
} from './manifest';
import { SIGNATURE_FILE, type ManifestSignature, signManifest, signatureBytes } from './sign';

export { BundleError };

const MiB = 1024 * 1024;

export interface ArchiveLimits {
  /** Size of the archive file itself. */
  maxArchiveBytes: number;
  /** Inflated size of one entry, as the central directory declares it. */
  maxEntryBytes: number;
  /** Inflated size of all entries together. */
  maxTotalBytes: number;
  maxEntries: number;
}

/**
 * The bounds of a bundle with entries of up to maxEntryBytes: twice that in all, and for the archive itself. A full
 * run's bundle is a few MB (its HAR well under 10 MB), so the defaults leave room and still stop abuse.
 */
export function limitsFor(maxEntryBytes: number): ArchiveLimits {
  return { maxArchiveBytes: 2 * maxEntryBytes, maxEntryBytes, maxTotalBytes: 2 * maxEntryBytes, maxEntries: 64 };
}

export const DEFAULT_LIMITS: ArchiveLimits = limitsFor(256 * MiB);

export interface BundleInput extends Omit<ManifestInput, 'files'> {
  files: Readonly<Record<string, Uint8Array>>;
  signingKey?: KeyObject;
}

export interface Bundle {
  archive: Uint8Array;
  manifest: Manifest;
  signature?: ManifestSignature;
}

/** The archive of a bundle: the manifest first, its signature if any, then the files it lists. */
export function makeBundle(input: BundleInput): Bundle {
  for (const name of [MANIFEST_FILE, SIGNATURE_FILE]) {
    if (name in input.files) throw new BundleError(`${name} is the bundle's own; no file may take its name`);
  }
  for (const name of Object.keys(input.files)) {
    const problem = entryNameProblem(name);
    if (problem) throw new BundleError(`a bundle file may not be named ${shownName(name)}: ${problem}`);
  }
  const manifest = buildManifest(input);
  const manifestFile = manifestBytes(manifest);
  const signature = input.signingKey ? signManifest(manifestFile, input.signingKey) : undefined;
  // The run's start time as every entry's date: the same run bundles to the same bytes (zip dates are 1980-2099).
  const mtime = new Date(manifest.run.startedAt);
  const options = { level: 9, mtime: Number.isNaN(mtime.getTime()) ? new Date() : mtime } as const;
  const entries: Zippable = { [MANIFEST_FILE]: [manifestFile, options] };
  if (signature) entries[SIGNATURE_FILE] = [signatureBytes(signature), options];
  for (const [name, data] of Object.entries(input.files)) entries[name] = [data, options];
  return { archive: zipSync(entries), manifest, ...(signature && { signature }) };
}

/** How a bundle's file name starts: `conformance-bundle-20261124T082100Z.zip`. */
const BUNDLE_NAME_PREFIX = 'conformance-bundle-';

/** `conformance-bundle-20261124T082100Z.zip` in outDir, never over an existing file; returns its path. */
export function writeBundle(outDir: string, archive: Uint8Array, now = new Date()): string {
  mkdirSync(outDir, { recursive: true });
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  for (let n = 1; ; n++) {
    const path = join(outDir, `${BUNDLE_NAME_PREFIX}${stamp}${n === 1 ? '' : `-${n}`}.zip`);
    try {
      writeFileSync(path, archive, { flag: 'wx' });
      return path;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 100) throw e;
    }
  }
}

interface DirectoryEntry {
  name: string;
  compressedBytes: number;
  bytes: number;
  compression: number;
}

const fflateMessage = (e: unknown) => (e instanceof Error ? e.message : String(e)).split('\n')[0];

/** The central directory, read by fflate with a filter that inflates nothing, and judged against the limits. */
function readDirectory(archive: Uint8Array, limits: ArchiveLimits): DirectoryEntry[] {
  const entries: DirectoryEntry[] = [];
  try {
    unzipSync(archive, {
      filter: (file) => {
        // A zip64 directory may claim billions of entries: stop counting, rather than walk them.
        if (entries.length >= limits.maxEntries)
          throw new BundleError(`the archive has more than ${limits.maxEntries} entries`);
        entries.push({
          name: file.name,
          compressedBytes: file.size,
          bytes: file.originalSize,
          compression: file.compression,
        });
        return false;
      },
    });
  } catch (e) {
    if (e instanceof BundleError) throw e;
    throw new BundleError(`not a readable zip archive (truncated or damaged): ${fflateMessage(e)}`);
  }
  const seen = new Set<string>();
  let total = 0;
  for (const e of entries) {
    const problem = entryNameProblem(e.name);
    if (problem) throw new BundleError(`archive entry ${shownName(e.name)} refused: ${problem}`);
    if (seen.has(e.name)) throw new BundleError(`archive entry ${shownName(e.name)} occurs twice`);
    seen.add(e.name);
    if (!Number.isSafeInteger(e.bytes) || e.bytes > limits.maxEntryBytes)
      throw new BundleError(
        `archive entry ${shownName(e.name)} declares ${e.bytes} bytes, over the limit of ${limits.maxEntryBytes}: ` +
          'refused without inflating it',
      );
    if (e.compression !== 0 && e.compression !== 8)
      throw new BundleError(`archive entry ${shownName(e.name)} uses compression method ${e.compression}`);
    total += e.bytes;
  }
  if (total > limits.maxTotalBytes)
    throw new BundleError(
      `the archive's entries declare ${total} bytes in all, over the limit of ${limits.maxTotalBytes}`,
    );
  return entries;
}

/** Bytes pushed to the inflater at a time: the most an entry can overrun its declared size before it is stopped. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Every entry of a zip archive, inflated, or a BundleError with one line. Nothing is inflated before the whole
 * directory has been judged; an entry is inflated no further than the size it declared.
 */
export function readArchive(archive: Uint8Array, limits: ArchiveLimits = DEFAULT_LIMITS): Map<string, Uint8Array> {
  const directory = new Map(readDirectory(archive, limits).map((e) => [e.name, e]));
  const done = new Map<string, Uint8Array>();
  const started = new Set<string>();
  let failure: string | undefined;
  const onFile = (file: UnzipFile) => {
    if (failure) return;
    const entry = directory.get(file.name);
    // The local headers must tell the directory's story: a second copy of a name, or one the directory does not
    // list, is how archives show different files to different readers.
    if (!entry || started.has(file.name)) {
      failure = `archive entry ${shownName(file.name)} is not the one the archive's directory lists`;
      return;
    }
    started.add(file.name);
    const chunks: Uint8Array[] = [];
    let size = 0;
    file.ondata = (err, data, final) => {
      if (failure) return;
      if (err) {
        failure = `archive entry ${shownName(file.name)} cannot be inflated: ${fflateMessage(err)}`;
        return;
      }
      size += data.byteLength;
      if (size > entry.bytes) {
        failure = `archive entry ${shownName(file.name)} inflates beyond the ${entry.bytes} bytes it declares`;
        return;
      }
      chunks.push(data);
      if (final) {
        const name = shownName(file.name);
        if (size !== entry.bytes)
          failure = `archive entry ${name} inflates to ${size} bytes, not the ${entry.bytes} it declares`;
        else done.set(file.name, Buffer.concat(chunks, size));
      }
    };
    file.start();
  };
  const unzip = new Unzip(onFile);
  unzip.register(UnzipInflate);
  try {
    for (let at = 0; at < archive.byteLength && !failure; at += CHUNK_BYTES) {
      unzip.push(archive.subarray(at, at + CHUNK_BYTES), at + CHUNK_BYTES >= archive.byteLength);
    }
  } catch (e) {
    failure ??= `not a readable zip archive (truncated or damaged): ${fflateMessage(e)}`;
  }
  if (failure) throw new BundleError(failure);
  for (const name of directory.keys()) {
    if (!done.has(name)) throw new BundleError(`archive entry ${shownName(name)} is truncated: its data ends early`);
  }
  return done;
}

/** A folder given for a bundle, as `npm run bundle -- --out` names one: the bundles it holds, if any. */
function folderGiven(path: string): string {
  const bundles = readdirSync(path).filter((name) => name.startsWith(BUNDLE_NAME_PREFIX) && name.endsWith('.zip'));
  const held = bundles.sort().map((name) => join(path, name));
  return `${path} is a folder, not a bundle: ${held.length > 0 ? `it holds ${held.join(', ')}` : 'it holds none'}`;
}

/** readArchive of a file, whose size is checked before it is read. */
export function readArchiveFile(path: string, limits: ArchiveLimits = DEFAULT_LIMITS): Map<string, Uint8Array> {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY);
  } catch (e) {
    throw new BundleError(`${path} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new BundleError(folderGiven(path));
    if (!stat.isFile()) throw new BundleError(`${path} is not a file`);
    if (stat.size > limits.maxArchiveBytes)
      throw new BundleError(`${path} has ${stat.size} bytes, over the limit of ${limits.maxArchiveBytes}`);
    const data = Buffer.alloc(stat.size);
    let read = 0;
    while (read < data.length) {
      const n = readSync(fd, data, read, data.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return readArchive(data.subarray(0, read), limits);
  } finally {
    closeSync(fd);
  }
}
