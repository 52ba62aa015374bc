// Redacts secrets from Playwright's own HTML report after the html reporter has written it.
//
//   reporter: [
//     ['html', { outputFolder: 'reports/playwright' }],
//     ['./src/playwright/redact-playwright-report.ts', { folder: 'reports/playwright' }],
//     …
//   ]
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
import type { Reporter } from '@playwright/test/reporter';
import { deflateSync, unzipSync, zipSync, type Zippable } from 'fflate';
import { redact, registerEnvSecrets } from '../http/redact';

export interface RedactPlaywrightReportOptions {
  folder?: string;
  /** Set by Playwright: the folder of the config file. */
  configDir?: string;
}

export interface ZipEntry {
  name: string;
  data: Buffer;
}

/** A local file header's signature: every archive Playwright writes (report data, traces, blobs) starts with one. */
const LOCAL_HEADER = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

export function isZip(data: Buffer): boolean {
  return data.subarray(0, 4).equals(LOCAL_HEADER);
}

/**
 * The entries of a zip archive, in the order of its central directory, read by fflate. What it cannot read
 * (an unknown compression method, a broken directory) throws, and so does an entry whose size is not the one
 * listed or whose name occurs twice: unread means unredacted, so nothing is passed through unread.
 * fflate does not check CRC-32s; the archives are the ones Playwright wrote a moment ago.
 */
export function readZip(archive: Buffer): ZipEntry[] {
  const listed: { name: string; size: number }[] = [];
  const files = unzipSync(archive, {
    filter: ({ name, originalSize }) => {
      if (listed.some((entry) => entry.name === name)) throw new Error(`zip entry ${name}: the name occurs twice`);
      listed.push({ name, size: originalSize });
      return true;
    },
  });
  return listed.map(({ name, size }) => {
    const data = files[name];
    if (data?.length !== size) throw new Error(`zip entry ${name}: its size is not the one the archive lists`);
    return { name, data: Buffer.from(data.buffer, data.byteOffset, data.byteLength) };
  });
}

/** A zip archive of the entries: deflated where that is smaller (as Playwright's yazl does), else stored. */
export function writeZip(entries: readonly ZipEntry[]): Buffer {
  const files: Zippable = {};
  for (const { name, data } of entries) {
    if (name in files) throw new Error(`zip entry ${name}: the name occurs twice`);
    files[name] = [data, { level: deflateSync(data).length < data.length ? 6 : 0 }];
  }
  return Buffer.from(zipSync(files));
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
    if (leaks.length > 0) {
      const problem = 'holds a secret in binary content that cannot be redacted';
      throw new Error(`Playwright's HTML report in ${folder} ${problem}: ${leaks.join(', ')}`);
    }
  }
}
