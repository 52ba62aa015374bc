// Ordinary storefront text, for a property whose verdict must hang on another field: the utility acceptance property
// (§4.4) sends it as the description, so that a refusal can only be about utility. The spec shows no character set
// and no limit (§8), and the valid-input properties (valid-input.ts) send text of every kind, each judged on its own.
import fc from 'fast-check';

const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';
const STOREFRONT_CHARACTERS = [...`${LETTERS}${DIGITS} .,-/áéíóúñÁÉÍÓÚÑü`];

/** Non-empty text of letters (Spanish ones included), digits and light punctuation. */
export function storefrontText(maxLength = 40): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...STOREFRONT_CHARACTERS), minLength: 1, maxLength });
}
