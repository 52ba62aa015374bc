// Tokens that are almost the valid one (§5.4: a token not accepted is refused): a server that compares a prefix, or
// too few characters, or ignores case, takes them for it. They are nearly the secret, so they are secrets too:
// src/playwright/secrets.ts hides them wherever the token itself is hidden.

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();
const DIGITS = '0123456789';

const BASE64URL = `${UPPER}${LOWER}${DIGITS}-_`;
const BASE64 = `${UPPER}${LOWER}${DIGITS}+/`;
const HEX_DIGITS = '0123456789abcdef';

/**
 * Another last character that changes what the token says, in the token's own alphabet, so that a format check still
 * passes: a hex digit with the top bit of its 4 flipped (a UUID, a hex key); another digit for a number; a base64
 * digit with the top bit of its 6 flipped. Not any other base64 digit: the last digit of unpadded base64 may carry 2
 * or 4 bits of the data, the rest unused and ignored by decoders, so that half of the others name the very bytes of
 * the token (an RS256 JWT's signature of 256 bytes ends in such a digit).
 */
function otherLastCharacter(token: string, c: string): string {
  if (hexadecimalToken(token) && HEX_DIGITS.includes(c.toLowerCase())) {
    const other = HEX_DIGITS[HEX_DIGITS.indexOf(c.toLowerCase()) ^ 8] as string;
    return /[a-f]/.test(token) ? other : other.toUpperCase(); // in the token's letter case
  }
  if (/^\d+$/.test(token)) return String((Number(c) + 5) % 10);
  const alphabet = /[+/]/.test(token) ? BASE64 : BASE64URL;
  const i = alphabet.indexOf(c);
  return i >= 0 ? (alphabet[i ^ 32] as string) : 'x'; // 'x' differs from what is no digit of the alphabet
}

/** The token with its last character (code point) changed, so that it names other bytes, and nothing else. */
export function lastCharacterChanged(token: string): string {
  const chars = [...token];
  const last = chars.pop();
  return last === undefined ? 'x' : `${chars.join('')}${otherLastCharacter(token, last)}`;
}

/** The token without its last character (code point): what a server that compares a prefix takes for it. */
export function lastCharacterDropped(token: string): string {
  return [...token].slice(0, -1).join('');
}

/**
 * The token with one more character, of its own alphabet, at its end: what a server that compares only the token's
 * length, or a hash of its first 72 bytes (bcrypt), takes for it.
 */
export function characterAdded(token: string): string {
  return `${token}${/^\d+$/.test(token) || hexadecimalToken(token) ? '0' : 'A'}`;
}

/** The token with the case of every letter swapped; undefined when it has no letter with another case. */
export function otherCase(token: string): string | undefined {
  const swapped = [...token]
    .map((c) => {
      const other = c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase();
      return [...other].length === 1 ? other : c; // 'ß' → 'SS' would change the length: left as it is
    })
    .join('');
  return swapped === token ? undefined : swapped;
}

/**
 * Whether the token's letters carry no case by its format: a UUID, or another token of hexadecimal digits and hyphens,
 * whose digits a to f are case-insensitive on input (RFC 9562 §4). Its other letter case names the same token.
 */
export function hexadecimalToken(token: string): boolean {
  return /^[0-9a-f-]+$/i.test(token) && /[a-f]/i.test(token);
}

/**
 * Whether the token's letters are all in one case, so that its other case may name the same token: a UUID or another
 * hexadecimal token (RFC 9562 §4), a base32 token (Crockford's decodes either case), a base36 one. A target may then
 * accept it, and a comparison without case lets in no other token issued in that one case: its probe proves nothing.
 */
export function caseCarriesNoMeaning(token: string): boolean {
  return otherCase(token) !== undefined && (token === token.toLowerCase() || token === token.toUpperCase());
}

/** A near miss of a token, and how it differs from the token, as a failure names it (its value is redacted). */
export interface NearMiss {
  token: string;
  /** "with its last character changed" */
  change: string;
}

/** The near-miss forms of `token`, its other letter case among them when `withOtherCase`. */
function nearMisses(token: string, withOtherCase: boolean): NearMiss[] {
  const otherForm = withOtherCase ? otherCase(token) : undefined;
  const forms: [string | undefined, string][] = [
    [lastCharacterChanged(token), 'with its last character changed'],
    [lastCharacterDropped(token), 'without its last character'],
    [characterAdded(token), 'with a character added at its end'],
    [otherForm, 'with its letters in the other case'],
  ];
  return forms.flatMap(([form, change]) =>
    form === undefined || form === '' || form === token ? [] : [{ token: form, change }],
  );
}

/**
 * The near misses a probe sends of a token given in a path (operation 15's channel token), each one a conforming
 * target refuses: not the other case of a token whose letters are in one case (caseCarriesNoMeaning).
 */
export function nearMissesToSend(token: string): NearMiss[] {
  return nearMisses(token, !caseCarriesNoMeaning(token));
}

/** Every near-miss form of a token that the suite may send: the values to redact along with it. */
export function nearMissTokens(token: string): string[] {
  return token === '' ? [] : nearMisses(token, true).map((nearMiss) => nearMiss.token);
}
