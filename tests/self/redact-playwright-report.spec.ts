// The rewrite of Playwright's HTML report, on a small hand-made report folder (no child process): the embedded zip
// still decodes, holds no secret, and everything else is as it was.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '../../src/playwright/fixtures';
import { REDACTED, registerSecret } from '../../src/http/redact';
import { unzip } from './support/artifacts';
import RedactPlaywrightReport, { readZip, redactFolder, writeZip } from '../../src/playwright/redact-playwright-report';

const PREFIX =
  '<!DOCTYPE html><html><head><script type="module">const report = "no secret here";</script></head><body>';
const TEMPLATE = /<template id="playwrightReportBase64">data:application\/zip;base64,([A-Za-z0-9+/=]*)<\/template>/;

function indexHtml(zip: Buffer, tail = ''): string {
  return (
    `${PREFIX}<template id="playwrightReportBase64">data:application/zip;base64,${zip.toString('base64')}</template>` +
    `${tail}</body></html>`
  );
}

function embedded(html: string): Buffer {
  const base64 = TEMPLATE.exec(html)?.[1];
  if (base64 === undefined) throw new Error('no embedded report data');
  return Buffer.from(base64, 'base64');
}

/** The compression method of each entry, from the local headers (writeZip puts no data descriptors). */
function methods(zip: Buffer): number[] {
  const found: number[] = [];
  for (
    let p = 0;
    zip.readUInt32LE(p) === 0x04034b50;
    p += 30 + zip.readUInt16LE(p + 26) + zip.readUInt16LE(p + 28) + zip.readUInt32LE(p + 18)
  ) {
    found.push(zip.readUInt16LE(p + 8));
  }
  return found;
}

/** A fresh secret, with characters that percent-encoding changes, known to redact() from now on. */
function secret(): string {
  const value = `ZZUNITSECRET+${randomBytes(6).toString('hex')}=`;
  registerSecret(value);
  return value;
}

test("writeZip and readZip: stored and deflated entries round-trip, and the self-tests' reader agrees", () => {
  const entries = [
    {
      name: 'report.json',
      data: Buffer.from(JSON.stringify({ files: Array.from({ length: 50 }, (_, i) => ({ title: `test ${i}` })) })),
    },
    { name: 'tiny.txt', data: Buffer.from('xy') },
    { name: 'dir/ünïcode.bin', data: randomBytes(64) },
  ];
  const zip = writeZip(entries);
  expect(methods(zip), 'deflated where smaller, else stored').toEqual([8, 0, 0]);
  for (const read of [readZip(zip), unzip(zip)])
    expect(read.map((e) => [e.name, e.data])).toEqual(entries.map((e) => [e.name, e.data]));
  // An archive that cannot be read whole is refused rather than passed through unredacted.
  expect(() => readZip(zip.subarray(0, zip.length - 1))).toThrow();
  const resized = Buffer.from(zip);
  resized.writeUInt32LE(3, zip.lastIndexOf('PK\x01\x02', undefined, 'latin1') + 24); // the last entry's listed size
  expect(() => readZip(resized)).toThrow(/size/);
});

test(
  'the report folder is rewritten without secrets; ' + 'the rest is intact, a binary leak is reported',
  async ({}, testInfo) => {
    const token = secret();
    const encoded = encodeURIComponent(token);
    const folder = testInfo.outputPath('report');
    mkdirSync(join(folder, 'data'), { recursive: true });

    const step = {
      title: 'POST',
      subtitle: `127.0.0.1:1234/v1/postventa/7001/messageChannel/${encoded}/u-42`,
      error: `failed: ${token}`,
    };
    const clean = {
      fileId: 'b',
      tests: [{ title: 'nothing secret', steps: [{ title: 'GET', subtitle: '127.0.0.1:1234/v1/products' }] }],
    };
    const original = [
      { name: 'a.json', data: Buffer.from(JSON.stringify({ fileId: 'a', tests: [{ steps: Array(20).fill(step) }] })) },
      { name: 'b.json', data: Buffer.from(JSON.stringify(clean)) },
      { name: 's.txt', data: Buffer.from(token) }, // short, so stored
    ];
    const zip = writeZip(original);
    expect(new Set(methods(zip)), 'deflated and stored entries alike').toEqual(new Set([0, 8]));
    writeFileSync(join(folder, 'index.html'), indexHtml(zip, `<p>outside: ${token}</p>`));
    writeFileSync(join(folder, 'data', 'attachment.txt'), `Authorization: Bearer ${token}\n`);
    const trace = writeZip([
      { name: 'test.trace', data: Buffer.from(`{"url":"/messageChannel/${encoded}/u-42"}\n`) },
      { name: 'resources/img', data: randomBytes(32) },
    ]);
    writeFileSync(join(folder, 'data', 'trace.zip'), trace);
    const png = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n\0\0', 'latin1'), randomBytes(64)]);
    writeFileSync(join(folder, 'data', 'image.png'), png);
    const leaking = Buffer.concat([Buffer.from([0, 1, 2, 0]), Buffer.from(token)]);
    writeFileSync(join(folder, 'data', 'leak.bin'), leaking);

    expect(redactFolder(folder), 'binary content with a secret is reported, not rewritten').toEqual([
      join('data', 'leak.bin'),
    ]);

    const html = readFileSync(join(folder, 'index.html'), 'utf8');
    expect(html.startsWith(PREFIX)).toBe(true);
    expect(html).toContain(`<p>outside: ${REDACTED}</p>`);
    const rewritten = embedded(html);
    const entries = unzip(rewritten); // the self-tests' reader, not the one under test
    expect(entries.map((e) => e.name)).toEqual(['a.json', 'b.json', 's.txt']);
    const [a, b, s] = entries.map((e) => e.data.toString('utf8'));
    const redactedStep = JSON.parse(a ?? '').tests[0].steps[0];
    expect(redactedStep).toEqual({
      title: 'POST',
      subtitle: `127.0.0.1:1234/v1/postventa/7001/messageChannel/${REDACTED}/u-42`,
      error: `failed: ${REDACTED}`,
    });
    expect(JSON.parse(b ?? '')).toEqual(clean);
    expect(s).toBe(REDACTED);
    for (const text of [html, ...entries.map((e) => e.data.toString('latin1'))]) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(encoded);
    }

    expect(readFileSync(join(folder, 'data', 'attachment.txt'), 'utf8')).toBe(`Authorization: Bearer ${REDACTED}\n`);
    const traceEntries = unzip(readFileSync(join(folder, 'data', 'trace.zip')));
    expect(traceEntries.map((e) => e.name)).toEqual(['test.trace', 'resources/img']);
    expect(traceEntries[0]?.data.toString()).toBe(`{"url":"/messageChannel/${REDACTED}/u-42"}\n`);
    expect(traceEntries[1]?.data).toEqual(readZip(trace)[1]?.data);
    expect(readFileSync(join(folder, 'data', 'image.png'))).toEqual(png);
    expect(readFileSync(join(folder, 'data', 'leak.bin'))).toEqual(leaking);

    // The reporter fails the run over the leak, naming the file but not the secret.
    const reporter = new RedactPlaywrightReport({ folder: 'report', configDir: testInfo.outputPath() });
    const error = await reporter.onEnd().then(
      () => undefined,
      (e: Error) => e.message,
    );
    expect(error).toContain(join('data', 'leak.bin'));
    expect(error).not.toContain(token);
  },
);

test('a report without secrets is left byte for byte as it was', async ({}, testInfo) => {
  secret();
  const folder = testInfo.outputPath('report');
  mkdirSync(join(folder, 'data'), { recursive: true });
  const html = indexHtml(writeZip([{ name: 'report.json', data: Buffer.from('{"files":[]}'.repeat(10)) }]));
  writeFileSync(join(folder, 'index.html'), html);
  writeFileSync(join(folder, 'data', 'note.md'), 'nothing to hide');
  await new RedactPlaywrightReport({ folder: 'report', configDir: testInfo.outputPath() }).onEnd();
  expect(readFileSync(join(folder, 'index.html'), 'utf8')).toBe(html);
  expect(readFileSync(join(folder, 'data', 'note.md'), 'utf8')).toBe('nothing to hide');
  // A folder that does not exist (no html reporter output) is not an error.
  await new RedactPlaywrightReport({ folder: 'missing', configDir: testInfo.outputPath() }).onEnd();
});
