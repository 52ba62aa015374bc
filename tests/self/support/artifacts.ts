// Self-test helper: every byte a run left behind, as text, with zip archives opened (blob reports, traces) and
// the base64 zip that Playwright's HTML report embeds in index.html decoded, so a secret cannot hide inside them.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { unzipSync } from 'fflate';

export interface Artifact {
  /** File path, with `!entry` for a zip entry and `#base64-zip` for an embedded archive. */
  name: string;
  text: string;
}

/** A local file header's signature: how a zip archive begins. */
const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/**
 * The entries of a zip archive, read by fflate: a library, so the leak search shares no archive code of ours with
 * the redactor whose output it checks. What fflate cannot read throws rather than being skipped.
 */
export function unzip(archive: Buffer): { name: string; data: Buffer }[] {
  const names = new Set<string>();
  // Entries are returned by name: a second entry of the same name would hide the first.
  const noDuplicate = ({ name }: { name: string }): boolean => {
    if (names.has(name)) throw new Error(`zip entry ${name}: the name occurs twice`);
    return names.add(name) !== undefined;
  };
  return Object.entries(unzipSync(archive, { filter: noDuplicate })).map(([name, data]) => ({
    name,
    data: Buffer.from(data.buffer, data.byteOffset, data.byteLength),
  }));
}

function expand(name: string, data: Buffer): Artifact[] {
  if (data.subarray(0, 4).equals(ZIP_MAGIC)) {
    return [
      { name, text: data.toString('latin1') },
      ...unzip(data).flatMap((e) => expand(`${name}!${e.name}`, e.data)),
    ];
  }
  if (data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b)
    return [{ name, text: data.toString('latin1') }, ...expand(`${name}#gunzip`, gunzipSync(data))];
  const text = data.toString('utf8');
  const embedded = [...text.matchAll(/UEsDB[A-Za-z0-9+/]{20,}={0,2}/g)].flatMap((m, i) =>
    expand(`${name}#base64-zip-${i}`, Buffer.from(m[0], 'base64')),
  );
  return [{ name, text }, ...embedded];
}

export function readArtifacts(dir: string): Artifact[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .flatMap((d) => expand(join(d.parentPath, d.name), readFileSync(join(d.parentPath, d.name))));
}

/**
 * The forms in which a secret could be written: raw, percent-encoded, and base64 of it (and of each `prefix + secret`,
 * e.g. "Bearer <token>"), whole and at each of the three byte alignments (the part of the encoding that depends only
 * on the secret), so that it is found inside any longer base64 text.
 */
export function secretForms(secret: string, prefixes: string[] = []): string[] {
  const forms = new Set([secret, encodeURIComponent(secret)]);
  for (const whole of [secret, ...prefixes.map((p) => `${p}${secret}`)]) {
    forms.add(Buffer.from(whole).toString('base64'));
    for (let k = 0; k < 3; k++) {
      const encoded = Buffer.from('\0'.repeat(k) + whole).toString('base64');
      const from = k === 0 ? 0 : 4;
      const to = Math.floor((k + whole.length) / 3) * 4;
      if (to - from >= 8) forms.add(encoded.slice(from, to));
    }
  }
  return [...forms];
}
