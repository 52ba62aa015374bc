// Text for string fields, ordinary enough that no conforming server refuses it for its characters: the spec shows
// no character set and no limit (§8), so refusing empty text, control characters, emoji, other scripts or
// astral-plane characters is a free choice, and such text is never sent where acceptance is required.
import fc from 'fast-check';

const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';
const ACCENTED = 'áéíóúñüÁÉÍÓÚÑÜàèçâêôÀÈÇ';
const STOREFRONT_CHARACTERS = [...`${LETTERS}${DIGITS} .,-/áéíóúñÁÉÍÓÚÑü`];
/** Storefront text and the punctuation of everyday messages; no quotes, <, >, & or \ (markup and escapes). */
const MESSAGE_CHARACTERS = [...new Set([...`${LETTERS}${DIGITS}${ACCENTED} .,;:!?¿¡()'-/`])];

/** Non-empty text of letters (Spanish ones included), digits and light punctuation. */
export function storefrontText(maxLength = 40): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...STOREFRONT_CHARACTERS), minLength: 1, maxLength });
}

/**
 * A message of ordinary printable text: letters (accented Latin ones included), digits, spaces and common
 * punctuation, with at least one character that is not a space (a blank message may be refused as empty).
 * All of it in the Basic Multilingual Plane, precomposed (NFC), so it is the same text however it is normalised.
 */
export function messageText(maxLength = 60): fc.Arbitrary<string> {
  return fc
    .string({ unit: fc.constantFrom(...MESSAGE_CHARACTERS), minLength: 1, maxLength })
    .filter((s) => s.trim() !== '');
}
