// Reading and parsing request bodies defensively: bounded size, bounded nesting, JSON only.
import type { IncomingMessage } from 'node:http';
import { Rejection } from './reply';

export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_JSON_DEPTH = 64;

export type RawBody = { ok: true; bytes: Buffer } | { ok: false; rejection: Rejection };

/** Reads the whole body, or stops at MAX_BODY_BYTES (the caller answers 413 and closes the connection). */
export function readBody(req: IncomingMessage): Promise<RawBody> {
  const tooLarge: RawBody = {
    ok: false,
    rejection: new Rejection('too-large', `request body larger than ${MAX_BODY_BYTES} bytes`),
  };
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) return Promise.resolve(tooLarge);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: RawBody) => {
      req.removeListener('data', onData);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.pause();
        finish(tooLarge);
      } else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => finish({ ok: true, bytes: Buffer.concat(chunks) }));
    req.once('error', () =>
      finish({ ok: false, rejection: new Rejection('invalid', 'the request body could not be read') }),
    );
  });
}

/** application/json, application/<x>+json, or no Content-Type at all (taken as JSON). */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined || header.trim() === '') return true;
  const type = header.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
}

/** Deepest bracket nesting of JSON text, ignoring brackets inside strings; a loop, so no stack to blow. */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return deepest;
}

/**
 * A body that is not JSON as lenient parsers read it (a fault's, readsLenientJson): comments dropped, a comma before a
 * closing bracket dropped, NaN and Infinity read as 1, and the first value taken whatever follows it. Refused alike
 * when no prefix of it is then JSON (a body cut short).
 */
export function parseLenientJson(text: string): unknown {
  const cleaned = text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/,(\s*[}\]])/g, '$1')
    .replace(/(?<![\w"])-?(?:NaN|Infinity)(?![\w"])/g, '1');
  for (let end = cleaned.length; end > 0; end--) {
    try {
      return JSON.parse(cleaned.slice(0, end)) as unknown;
    } catch {
      // a shorter prefix, then
    }
  }
  throw new Rejection('invalid', 'the request body is not valid JSON');
}

/** Parses a JSON request body or throws the Rejection for it. */
export function parseJsonBody(bytes: Buffer): unknown {
  const text = bytes.toString('utf8');
  if (text.trim() === '') throw new Rejection('invalid', 'a JSON request body is required');
  if (jsonNestingDepth(text) > MAX_JSON_DEPTH)
    throw new Rejection('invalid', `JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Rejection('invalid', 'the request body is not valid JSON');
  }
}
