// Tokens that are almost the valid one (§5.4: a token not accepted is refused): a server that compares a prefix, or
// ignores case, takes them for it. They are nearly the secret, so they are secrets too: src/playwright/secrets.ts
// hides them wherever the token itself is hidden.

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();
const DIGITS = '0123456789';

/** Half way round its own class: the token keeps its alphabet (hex, base64…), so a format check still passes. */
function otherCharacter(c: string): string {
  for (const alphabet of [LOWER, UPPER, DIGITS]) {
    const i = alphabet.indexOf(c);
    if (i >= 0) return alphabet[(i + Math.floor(alphabet.length / 2)) % alphabet.length] as string;
  }
  return 'x'; // not a letter or a digit, so 'x' differs from it
}

/** The token with its last character (code point) changed, and nothing else. */
export function lastCharacterChanged(token: string): string {
  const chars = [...token];
  const last = chars.pop();
  return last === undefined ? 'x' : `${chars.join('')}${otherCharacter(last)}`;
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

/** Every near-miss form of a token that the suite may send: the values to redact along with it. */
export function nearMissTokens(token: string): string[] {
  if (token === '') return [];
  return [lastCharacterChanged(token), otherCase(token)].filter((t): t is string => t !== undefined && t !== token);
}
