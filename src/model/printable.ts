// What a target sent, made safe to print: a terminal or a report must never receive a target's raw bytes (escape
// sequences, carriage returns, bidi overrides), and a 10 MB body must not become a 10 MB message.

/** Characters of an excerpt when the caller does not say (a JSON body of a few dozen lines). */
export const DEFAULT_EXCERPT_CHARS = 2000;

/**
 * Escaped text beyond the cut that is still redacted before cutting, so that a secret straddling the cut cannot leave
 * half of itself: longer than any token (a JWT is a few hundred characters, percent-encoded at most three times that).
 */
const REDACTION_MARGIN_CHARS = 4096;

export interface PrintableOptions {
  /** Characters kept before the cut. */
  maxChars?: number;
  /** Keep line feeds and tabs as they are (a multi-line excerpt); otherwise they are escaped too. */
  keepLineBreaks?: boolean;
  /** Applied to the escaped text before it is cut: redaction. */
  transform?: (text: string) => string;
  /** Size of the whole body when `input` is only its start (a response read up to the cap). */
  totalBytes?: number;
  /** totalBytes is a lower bound: the body was not read to its end. */
  atLeast?: boolean;
}

/**
 * Invisible or terminal-controlling code points: C0 and C1 controls, DEL, zero-width characters, line and paragraph
 * separators, bidi embeddings, overrides and isolates, the byte order mark.
 */
function isUnprintable(codePoint: number, keepLineBreaks: boolean): boolean {
  if (keepLineBreaks && (codePoint === 0x0a || codePoint === 0x09)) return false;
  return (
    codePoint < 0x20 ||
    (codePoint >= 0x7f && codePoint <= 0x9f) ||
    (codePoint >= 0x200b && codePoint <= 0x200f) ||
    (codePoint >= 0x2028 && codePoint <= 0x202e) ||
    (codePoint >= 0x2060 && codePoint <= 0x2069) ||
    (codePoint >= 0xd800 && codePoint <= 0xdfff) || // a lone surrogate in a JS string
    codePoint === 0xfeff
  );
}

/** Whether a string holds a code point isUnprintable() names (a lone surrogate too), with line breaks kept or not. */
const UNPRINTABLE = {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  escapingLines: /[\0-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]/u,
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  keepingLines: /[\0-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]/u,
};

const escapeCodePoint = (codePoint: number): string => `\\u{${codePoint.toString(16)}}`;
const escapeByte = (byte: number): string => `\\x${byte.toString(16).padStart(2, '0')}`;

/** One UTF-8 sequence at `i`: its code point and length, or undefined when it is not valid UTF-8. */
function decodeUtf8At(bytes: Uint8Array, i: number): { codePoint: number; length: number } | undefined {
  const lead = bytes[i] ?? 0;
  if (lead < 0x80) return { codePoint: lead, length: 1 };
  let length: number;
  let codePoint: number;
  let min: number;
  if (lead >= 0xc2 && lead <= 0xdf) [length, codePoint, min] = [2, lead & 0x1f, 0x80];
  else if (lead >= 0xe0 && lead <= 0xef) [length, codePoint, min] = [3, lead & 0x0f, 0x800];
  else if (lead >= 0xf0 && lead <= 0xf4) [length, codePoint, min] = [4, lead & 0x07, 0x10000];
  else return undefined;
  if (i + length > bytes.length) return undefined;
  for (let k = 1; k < length; k++) {
    const next = bytes[i + k] ?? 0;
    if ((next & 0xc0) !== 0x80) return undefined;
    codePoint = (codePoint << 6) | (next & 0x3f);
  }
  // Overlong forms, UTF-16 surrogates and code points above U+10FFFF are not valid UTF-8.
  if (codePoint < min || (codePoint >= 0xd800 && codePoint <= 0xdfff) || codePoint > 0x10ffff) return undefined;
  return { codePoint, length };
}

/** Escapes `input` until the result holds `limit` characters (or the input ends); `consumed` says whether it ended. */
function escapeUpTo(
  input: Uint8Array | string,
  limit: number,
  keepLineBreaks: boolean,
): { text: string; whole: boolean } {
  const parts: string[] = [];
  let size = 0;
  const push = (part: string): boolean => {
    parts.push(part);
    size += part.length;
    return size < limit;
  };
  if (typeof input === 'string') {
    // Most strings need no escape and no cut: one regular expression instead of a part per character.
    const unprintable = keepLineBreaks ? UNPRINTABLE.keepingLines : UNPRINTABLE.escapingLines;
    if (input.length < limit && !unprintable.test(input)) {
      return { text: input, whole: true };
    }
    for (const char of input) {
      const codePoint = char.codePointAt(0) ?? 0;
      if (!push(isUnprintable(codePoint, keepLineBreaks) ? escapeCodePoint(codePoint) : char)) {
        return { text: parts.join(''), whole: false };
      }
    }
    return { text: parts.join(''), whole: true };
  }
  let i = 0;
  while (i < input.length) {
    const sequence = decodeUtf8At(input, i);
    let part: string;
    if (!sequence) {
      part = escapeByte(input[i] ?? 0);
      i += 1;
    } else {
      const { codePoint, length } = sequence;
      part = isUnprintable(codePoint, keepLineBreaks) ? escapeCodePoint(codePoint) : String.fromCodePoint(codePoint);
      i += length;
    }
    if (!push(part) && i < input.length) return { text: parts.join(''), whole: false };
  }
  return { text: parts.join(''), whole: true };
}

const byteLength = (input: Uint8Array | string): number =>
  typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.length;

/** Cuts at `max` characters, without splitting an escape (\xNN, \u{…}) or a surrogate pair. */
function cutAt(text: string, max: number): string {
  let cut = text.slice(0, max);
  const code = cut.charCodeAt(cut.length - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut = cut.slice(0, -1);
  return cut.replace(/\\(x[0-9a-f]?|u(\{[0-9a-f]*)?)?$/i, '');
}

/**
 * Bytes or text as printable text: invalid UTF-8 bytes become \xNN, control and invisible characters \u{…}; cut to
 * maxChars, ending "… (N bytes in all)". A `transform` (redaction) sees the escaped text before it is cut.
 */
export function printable(input: Uint8Array | string, options: PrintableOptions = {}): string {
  const maxChars = options.maxChars ?? DEFAULT_EXCERPT_CHARS;
  const keepLineBreaks = options.keepLineBreaks ?? false;
  const escaped = escapeUpTo(input, maxChars + REDACTION_MARGIN_CHARS, keepLineBreaks);
  const text = options.transform ? options.transform(escaped.text) : escaped.text;
  const complete = escaped.whole && !options.atLeast && options.totalBytes === undefined;
  if (complete && text.length <= maxChars) return text;
  const total = options.totalBytes ?? byteLength(input);
  const size = options.atLeast ? `more than ${total} bytes; read no further` : `${total} bytes in all`;
  return `${cutAt(text, maxChars)}… (${size})`;
}

/** A one-line excerpt, for messages that must stay on one line (the preflight, the breaker). */
export function printableLine(
  input: Uint8Array | string,
  maxChars = 300,
  transform?: (text: string) => string,
): string {
  return printable(input, { maxChars, transform });
}
