// Small text helpers shared by the checks, the property runner and the reporter.

/** What every output shows in place of a hidden value: a secret, or a cookie the target set. */
export const REDACTED = '[REDACTED]';

/** Removes terminal colour codes (Playwright's messages carry them). */
export function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ESC is what an ANSI sequence starts with
  return text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
}

/** The text as a literal inside a regular expression. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The first `count` lines of a (multi-line) message, joined by spaces. */
export function firstLines(text: string, count = 1): string {
  return text.split('\n').slice(0, count).join(' ');
}

/**
 * JSON text a person saved, without the byte order mark some Windows editors put first (PowerShell 5's
 * `Out-File -Encoding utf8`): RFC 8259 §8.1 lets a parser ignore it, and JSON.parse refuses it with a message whose
 * culprit is invisible.
 */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** "1 time", "2 times", "1.5 requests": `n` and the word that goes with it. */
export const plural = (n: number, word: string, words = `${word}s`): string => `${n} ${n === 1 ? word : words}`;
