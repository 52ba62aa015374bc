// §4.5: cart updates that must be refused for a reason no schema can see: a product that does not exist, or an
// item type that is not allowed, somewhere in an array of otherwise valid items. Those bodies are schema-valid.
import fc from 'fast-check';

type Body = Record<string, unknown>;

export type CartDefect = 'unknown-product' | 'disallowed-type';

export interface CartCase {
  items: Body[];
  /** Index of the bad item in `items`. */
  badIndex: number;
  defects: CartDefect[];
}

export interface CartData {
  /** A product that does not exist (RSF_MISSING_PRODUCT_ID). */
  missingProductId: number;
  /** An item type the cart must refuse (RSF_CART_DISALLOWED_TYPE). */
  disallowedType: number;
}

const DEFECTS: CartDefect[][] = [['unknown-product'], ['disallowed-type'], ['unknown-product', 'disallowed-type']];

/** Valid copies of `validItem` around one bad item; shrinks towards the bad item alone. */
export function cartItemsWithDisallowed(validItem: Body, data: CartData): fc.Arbitrary<CartCase> {
  return fc
    .record({ before: fc.nat(3), after: fc.nat(3), defects: fc.constantFrom(...DEFECTS) })
    .map(({ before, after, defects }) => {
      const bad: Body = {
        ...validItem,
        ...(defects.includes('unknown-product') ? { productId: data.missingProductId } : {}),
        ...(defects.includes('disallowed-type') ? { type: data.disallowedType } : {}),
      };
      const copies = (n: number): Body[] => Array.from({ length: n }, () => ({ ...validItem }));
      return { items: [...copies(before), bad, ...copies(after)], badIndex: before, defects };
    });
}
