// The Content-Encodings the wire asks for (gzip, deflate, br), decompressed as curl and browsers read them.
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

/** A decompressor for `encoding` (lower case, trimmed), or undefined for a body sent as it is. */
export function decompressorOf(encoding: string): Transform | undefined {
  return DECOMPRESSORS[encoding]?.();
}
