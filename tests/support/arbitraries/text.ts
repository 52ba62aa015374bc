// Text for string fields. Fields whose content a server may reasonably restrict (names, descriptions) get
// storefront text; fields the spec leaves wholly open (a channel message) get any Unicode.
import fc from 'fast-check';

const STOREFRONT_CHARACTERS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,-/áéíóúñÁÉÍÓÚÑü'];

/** Non-empty text of letters (Spanish ones included), digits and light punctuation. */
export function storefrontText(maxLength = 40): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...STOREFRONT_CHARACTERS), minLength: 1, maxLength });
}

/** Any string: empty, ASCII, or printable Unicode graphemes (combining marks, emoji, other scripts). */
export function anyText(maxLength = 80): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constant(''),
    fc.string({ unit: 'grapheme-ascii', maxLength }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength }),
  );
}
