// §4.5: cart updates that must be refused for a reason no schema can see: a product that does not exist, or an
// item type that is not allowed. Those bodies are schema-valid. Every item of the array is bad: with a valid item
// beside them, a partial success would not be excluded by the spec, and with writes off the valid item might be
// written. Only RSF_MISSING_PRODUCT_ID is known not to exist, so it is the one unknown product used.
import fc from 'fast-check';

type Body = Record<string, unknown>;

export type CartDefect = 'unknown-product' | 'disallowed-type';

export interface CartCase {
  items: Body[];
  /** The defect of each item, by index. */
  itemDefects: CartDefect[];
  /** The defects the array carries (each once, in CART_DEFECTS order). */
  defects: CartDefect[];
}

export interface CartData {
  /** A product that does not exist (RSF_MISSING_PRODUCT_ID). */
  missingProductId: number;
  /** An item type the cart must refuse (RSF_CART_DISALLOWED_TYPE). */
  disallowedType: number;
}

export const CART_DEFECTS: readonly CartDefect[] = ['unknown-product', 'disallowed-type'];

/** `validItem` made bad in one way only: the other fields stay those of the configured valid item. */
export function badCartItem(validItem: Body, data: CartData, defect: CartDefect): Body {
  return defect === 'unknown-product'
    ? { ...validItem, productId: data.missingProductId }
    : { ...validItem, type: data.disallowedType };
}

/**
 * The amount of a bad item: the configured one, or 0, nothing to add. A server may check a product or a type only
 * for an amount it would write.
 */
const badAmount = (validItem: Body): fc.Arbitrary<unknown> => fc.constantFrom(validItem.amount, 0);

const cartCase = (validItem: Body, data: CartData, bad: readonly [CartDefect, unknown][]): CartCase => {
  const itemDefects = bad.map(([defect]) => defect);
  return {
    items: bad.map(([defect, amount]) => ({ ...badCartItem(validItem, data, defect), amount })),
    itemDefects,
    defects: CART_DEFECTS.filter((d) => itemDefects.includes(d)),
  };
};

/** Arrays of 1 to 3 items, every one of them bad; shrinks towards one item with an unknown product. */
export function badCartItems(validItem: Body, data: CartData): fc.Arbitrary<CartCase> {
  const item = fc.tuple(fc.constantFrom(...CART_DEFECTS), badAmount(validItem));
  return fc.array(item, { minLength: 1, maxLength: 3 }).map((bad) => cartCase(validItem, data, bad));
}

/** One item of each defect, of amount 0: examples sent whatever fast-check draws. */
export function badCartItemsOfAmountZero(validItem: Body, data: CartData): CartCase[] {
  return CART_DEFECTS.map((defect) => cartCase(validItem, data, [[defect, 0]]));
}
