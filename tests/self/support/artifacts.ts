// Self-test helper: every byte a run left behind, as text, with zip archives opened (blob reports, traces) and
// the base64 zip that Playwright's HTML report embeds in index.html decoded, so a secret cannot hide inside them.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, inflateRawSync } from 'node:zlib';

export interface Artifact {
  /** File path, with `!entry` for a zip entry and `#base64-zip` for an embedded archive. */
  name: string;
  text: string;
}

const ZIP_MAGIC = 0x04034b50;
const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;

/**
 * The entries of a zip archive (stored or deflated; zip64 is refused loudly rather than skipped). Written apart from
 * the redactor's reader on purpose: the leak search must not share a bug with the code whose output it checks.
 */
export function unzip(buf: Buffer): { name: string; data: Buffer }[] {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip archive: no end of central directory');
  const entries: { name: string; data: Buffer }[] = [];
  let p = buf.readUInt32LE(eocd + 16);
  for (let n = buf.readUInt16LE(eocd + 10); n > 0; n--) {
    if (buf.readUInt32LE(p) !== CENTRAL) throw new Error('broken zip central directory');
    const method = buf.readUInt16LE(p + 10);
    const size = buf.readUInt32LE(p + 20);
    const [nameLen, extraLen, commentLen] = [buf.readUInt16LE(p + 28), buf.readUInt16LE(p + 30), buf.readUInt16LE(p + 32)];
    const local = buf.readUInt32LE(p + 42);
    if (size === 0xffffffff || local === 0xffffffff) throw new Error('zip64 archives are not supported');
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(start, start + size);
    if (method !== 0 && method !== 8) throw new Error(`zip entry ${name}: compression method ${method} is not supported`);
    entries.push({ name, data: method === 8 ? inflateRawSync(raw) : raw });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

function expand(name: string, data: Buffer): Artifact[] {
  if (data.length >= 4 && data.readUInt32LE(0) === ZIP_MAGIC) {
    return [{ name, text: data.toString('latin1') }, ...unzip(data).flatMap((e) => expand(`${name}!${e.name}`, e.data))];
  }
  if (data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b) return [{ name, text: data.toString('latin1') }, ...expand(`${name}#gunzip`, gunzipSync(data))];
  const text = data.toString('utf8');
  const embedded = [...text.matchAll(/UEsDB[A-Za-z0-9+/]{20,}={0,2}/g)].flatMap((m, i) => expand(`${name}#base64-zip-${i}`, Buffer.from(m[0], 'base64')));
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
