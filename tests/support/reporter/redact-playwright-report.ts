// Redacts secrets from Playwright's own HTML report after the html reporter has written it.
//
//   reporter: [['html', { outputFolder: 'reports/playwright' }], ['./tests/support/reporter/redact-playwright-report.ts', { folder: 'reports/playwright' }], …]
//
// Why: the html reporter records every APIRequestContext call as a step titled with its method and URL, and
// operation 15 carries the channel token in its path. Playwright has no option to leave API calls out of the report
// or to mask them (microsoft/playwright#19992, #33287), and the suite's own redaction runs only on what the suite
// writes, so the report is redacted afterwards, on disk.
//
// Why onEnd, listed right after 'html': the reporters' onEnd run one after the other, each awaited, in list order,
// and the html reporter's onEnd resolves only once index.html and data/ are completely written (its onExit only
// serves or advertises the report). Running before the conformance reporter also means that an error thrown here
// reaches it through onError and fails the verdict.
//
// folder is resolved against the config file's folder. The config passes the folder the html (or blob) reporter
// really writes to, environment overrides included (playwright.config.ts, reportFolders).
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Reporter } from '@playwright/test/reporter';
import { redact, registerEnvSecrets } from '../redact';

export interface RedactPlaywrightReportOptions {
  folder?: string;
  /** Set by Playwright: the folder of the config file. */
  configDir?: string;
}

export interface ZipEntry {
  name: string;
  data: Buffer;
  /** MS-DOS time and date from the original archive, kept so that only the content changes. */
  time?: number;
  date?: number;
}

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;
const UTF8_NAMES = 0x0800;

export function isZip(data: Buffer): boolean {
  return data.length >= 4 && data.readUInt32LE(0) === LOCAL;
}

/**
 * The entries of a zip archive, read from its central directory (the only reliable list: local headers may defer
 * their sizes to data descriptors). Stored and deflated entries; anything else is refused rather than passed through
 * unread, since unread means unredacted.
 */
export function readZip(buf: Buffer): ZipEntry[] {
  let end = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === END) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error('not a zip archive: no end of central directory record');
  const count = buf.readUInt16LE(end + 10);
  let p = buf.readUInt32LE(end + 16);
  if (count === 0xffff || p === 0xffffffff) throw new Error('zip64 archives are not supported');
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(p) !== CENTRAL) throw new Error(`broken zip: central directory entry ${n} not found`);
    const flags = buf.readUInt16LE(p + 8);
    const method = buf.readUInt16LE(p + 10);
    const [time, date, crc] = [buf.readUInt16LE(p + 12), buf.readUInt16LE(p + 14), buf.readUInt32LE(p + 16)];
    const [packedSize, size] = [buf.readUInt32LE(p + 20), buf.readUInt32LE(p + 24)];
    const [nameLen, extraLen, commentLen] = [buf.readUInt16LE(p + 28), buf.readUInt16LE(p + 30), buf.readUInt16LE(p + 32)];
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    if (packedSize === 0xffffffff || size === 0xffffffff || local === 0xffffffff) throw new Error(`zip entry ${name}: zip64 is not supported`);
    if (flags & 1) throw new Error(`zip entry ${name}: encrypted entries are not supported`);
    if (buf.readUInt32LE(local) !== LOCAL) throw new Error(`broken zip: no local header for ${name}`);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const packed = buf.subarray(start, start + packedSize);
    if (method !== 0 && method !== 8) throw new Error(`zip entry ${name}: compression method ${method} is not supported`);
    const data = method === 8 ? inflateRawSync(packed) : Buffer.from(packed);
    if (data.length !== size || crc32(data) !== crc) throw new Error(`zip entry ${name}: size or CRC-32 does not match`);
    entries.push({ name, data, time, date });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** A zip archive of the entries: deflated where that is smaller (as yazl wrote it, so the report keeps its size), else stored. */
export function writeZip(entries: readonly ZipEntry[]): Buffer {
  if (entries.length >= 0xffff) throw new Error('zip64 archives are not supported');
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const deflated = deflateRawSync(entry.data);
    const method = deflated.length < entry.data.length ? 8 : 0;
    const packed = method === 8 ? deflated : entry.data;
    const crc = crc32(entry.data);
    // The fields that local header (from offset 4) and central directory entry (from offset 6) share.
    const common = Buffer.alloc(26);
    common.writeUInt16LE(method === 8 ? 20 : 10, 0); // version needed to extract
    common.writeUInt16LE(UTF8_NAMES, 2);
    common.writeUInt16LE(method, 4);
    common.writeUInt16LE(entry.time ?? 0, 6);
    common.writeUInt16LE(entry.date ?? 0x21, 8); // 1980-01-01 when the original had none
    common.writeUInt32LE(crc, 10);
    common.writeUInt32LE(packed.length, 14);
    common.writeUInt32LE(entry.data.length, 18);
    common.writeUInt16LE(name.length, 22);
    common.writeUInt16LE(0, 24); // no extra field
    const local = Buffer.alloc(4);
    local.writeUInt32LE(LOCAL, 0);
    const central = Buffer.alloc(46 + name.length);
    central.writeUInt32LE(CENTRAL, 0);
    central.writeUInt16LE(20, 4); // version made by: MS-DOS, 2.0
    common.copy(central, 6);
    // comment length, disk number, internal and external attributes stay 0
    central.writeUInt32LE(offset, 42);
    name.copy(central, 46);
    locals.push(local, common, name, packed);
    centrals.push(central);
    offset += 4 + common.length + name.length + packed.length;
    if (offset > 0xffffffff) throw new Error('zip64 archives are not supported');
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** Where index.html keeps the report data: a base64 zip in a template element. */
const EMBEDDED = /(<template id="playwrightReportBase64">data:application\/zip;base64,)([A-Za-z0-9+/=]*)(<\/template>)/;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function asText(data: Buffer): string | undefined {
  if (data.includes(0)) return undefined;
  try {
    return strictUtf8.decode(data);
  } catch {
    return undefined;
  }
}

/** A binary file cannot be redacted without breaking it; a secret inside one is reported instead. */
function holdsSecret(data: Buffer): boolean {
  return [data.toString('latin1'), data.toString('utf8')].some((text) => redact(text) !== text);
}

/** Text with its secrets redacted, the report data embedded in it included. */
export function redactText(text: string, where: string, leaks: string[]): string {
  const m = EMBEDDED.exec(text);
  if (!m) return redact(text);
  const [whole, open = '', base64 = '', close = ''] = m;
  const zip = Buffer.from(base64, 'base64');
  const redacted = redactBytes(zip, `${where}#playwrightReportBase64`, leaks);
  const data = redacted ? redacted.toString('base64') : base64;
  return redact(text.slice(0, m.index)) + open + data + close + redact(text.slice(m.index + whole.length));
}

/**
 * A file's content with its secrets redacted, or undefined when there was nothing to redact (the file is then left
 * byte for byte as Playwright wrote it). Zip archives (the embedded report data, trace files) are opened and rewritten.
 * Binary content that holds a secret is added to leaks.
 */
export function redactBytes(data: Buffer, where: string, leaks: string[]): Buffer | undefined {
  if (isZip(data)) {
    let changed = false;
    const entries = readZip(data).map((entry) => {
      const out = redactBytes(entry.data, `${where}!${entry.name}`, leaks);
      if (out) changed = true;
      return out ? { ...entry, data: out } : entry;
    });
    return changed ? writeZip(entries) : undefined;
  }
  const text = asText(data);
  if (text === undefined) {
    if (holdsSecret(data)) leaks.push(where);
    return undefined;
  }
  const out = redactText(text, where, leaks);
  return out === text ? undefined : Buffer.from(out, 'utf8');
}

/** Redacts every file under folder in place; returns the files that still hold a secret (binary ones). */
export function redactFolder(folder: string): string[] {
  const leaks: string[] = [];
  if (!existsSync(folder)) return leaks;
  for (const dirent of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!dirent.isFile()) continue;
    const file = join(dirent.parentPath, dirent.name);
    const out = redactBytes(readFileSync(file), relative(folder, file), leaks);
    if (out) writeFileSync(file, out);
  }
  return leaks;
}

export default class RedactPlaywrightReport implements Reporter {
  constructor(private readonly options: RedactPlaywrightReportOptions = {}) {}

  printsToStdio(): boolean {
    return false;
  }

  async onEnd(): Promise<void> {
    // As the conformance reporter does: secrets from the environment count even if the rest of the configuration is
    // broken (e.g. merge-reports on a machine without the target's settings).
    registerEnvSecrets();
    const folder = resolve(this.options.configDir ?? process.cwd(), this.options.folder ?? 'playwright-report');
    const leaks = redactFolder(folder);
    // Thrown, Playwright hands this to every reporter's onError and fails the run: the conformance verdict says so.
    if (leaks.length > 0) throw new Error(`Playwright's HTML report in ${folder} holds a secret in binary content that cannot be redacted: ${leaks.join(', ')}`);
  }
}
