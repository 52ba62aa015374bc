// §2.6, §5.2: product-detail probes over the configured products, with the token and without it.
import fc from 'fast-check';

export interface StockProbe {
  productId: string;
  credentials: 'valid' | 'none';
}

export function stockProbe(productIds: readonly string[]): fc.Arbitrary<StockProbe> {
  return fc.record({
    productId: elementOf(productIds),
    credentials: fc.constantFrom('valid' as const, 'none' as const),
  });
}

/** Every product with the token and without it, in configuration order. */
export function everyStockProbe(productIds: readonly string[]): StockProbe[] {
  return productIds.flatMap((productId) =>
    (['valid', 'none'] as const).map((credentials) => ({ productId, credentials })),
  );
}

/** One element of a list known only at run time (configuration, or a response); shrinks towards the first. */
export function elementOf<T>(list: readonly T[]): fc.Arbitrary<T> {
  if (list.length === 0) throw new Error('elementOf needs at least one element');
  return fc.constantFrom(...list);
}
