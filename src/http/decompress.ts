// The Content-Encodings the wire asks for (gzip, deflate, br), decompressed as curl and browsers read them, one or
// several in a row.
import { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';

/** Whether `head` begins a zlib stream (RFC 1950 §2.2): method 8, a window of at most 32 KiB, and its check bits. */
function isZlibHeader(head: Buffer): boolean {
  const [cmf = 0, flg = 0] = head;
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | flg) % 31 === 0;
}

/**
 * `deflate` as curl and browsers read it: the zlib format that RFC 9110 §8.4.1.2 names, or raw deflate, which some
 * servers send under that name. The first two bytes tell which.
 */
function createDeflateDecompress(): Transform {
  let head = Buffer.alloc(0);
  let inflate: Transform | undefined;
  const inflater = (zlib: boolean): Transform =>
    (zlib ? createInflate() : createInflateRaw())
      .on('data', (data: Buffer) => decompressor.push(data))
      .on('error', (error) => decompressor.destroy(error));
  const decompressor: Transform = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (inflate) return void inflate.write(chunk, () => done());
      head = Buffer.concat([head, chunk]);
      if (head.length < 2) return done();
      inflate = inflater(isZlibHeader(head));
      inflate.write(head, () => done());
    },
    flush(done) {
      // Fewer than two bytes are no stream of either kind: the zlib inflater says so.
      const rest = inflate ? undefined : head;
      inflate ??= inflater(true);
      inflate.once('end', () => done()).end(rest);
    },
    destroy(error, done) {
      inflate?.destroy();
      done(error);
    },
  });
  return decompressor;
}

const DECOMPRESSORS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createDeflateDecompress,
  br: createBrotliDecompress,
};

/**
 * Codings of IANA's HTTP Content Coding registry that this suite does not ask for, and cannot undo. A body in one is
 * unreadable; a Content-Encoding that names no coding (`utf-8`, `none`, `binary`: a charset or a word put there by
 * mistake) leaves the body as it came, and it is read so.
 */
const UNREAD_CODINGS = new Set(['zstd', 'compress', 'x-compress', 'aes128gcm', 'exi', 'pack200-gzip', 'dcb', 'dcz']);

/** The first coding of Content-Encoding `header` that is a real one this suite cannot undo, if any. */
export function unreadCodingOf(header: string): string | undefined {
  return codingsOf(header).find((coding) => UNREAD_CODINGS.has(coding));
}

/** The codings Content-Encoding `header` lists, in the order applied; `identity` and empty items left out. */
function codingsOf(header: string): string[] {
  return header
    .toLowerCase()
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && coding !== 'identity');
}

/** The streams that decompress a body, the first to write to and the last to read from; errors end at the last. */
export interface Decompression {
  first: Transform;
  last: Transform;
  all: Transform[];
}

/**
 * The decompression of a body sent with Content-Encoding `header`: its codings, in the order applied (RFC 9110
 * §8.4: `deflate, gzip` was deflated, then gzipped), undone from the last; `identity` is none. Undefined for a body
 * sent as it is, and for a coding this suite does not ask for, whose body is read as it is, as before.
 */
export function decompressionOf(header: string): Decompression | undefined {
  const codings = codingsOf(header);
  if (codings.length === 0 || !codings.every((coding) => coding in DECOMPRESSORS)) return undefined;
  const all = codings.reverse().map((coding) => (DECOMPRESSORS[coding] as () => Transform)());
  const last = all[all.length - 1] as Transform;
  for (const [i, stream] of all.entries()) {
    const next = all[i + 1];
    if (!next) break;
    stream.pipe(next);
    stream.on('error', (error) => last.destroy(error));
  }
  return { first: all[0] as Transform, last, all };
}
