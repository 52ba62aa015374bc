// Product detail (§2.6) and price entries (§2.7) as the reference computes them.
import type { ProductView } from './hooks';
import type { ModeChoices } from './modes';
import { BRAND_NAMES, CATEGORY_NAMES, round2, type SeedProduct } from './seed';

const clamp = (n: number, min: number, max: number): number => Math.min(max, Math.max(min, n));

const LABELS = {
  en: { none: 'No stock', exact: (n: number) => `${n} units`, atLeast: (n: number) => `${n} units or more` },
  es: { none: 'Sin stock', exact: (n: number) => `${n} unidades`, atLeast: (n: number) => `${n} unidades o más` },
} as const;

/** §2.6: no stock at 0, "N units" below the limit, "<limit> units or more" at the limit. */
export function stockLabel(available: number, limit: number, language: ModeChoices['stockLabels']): string {
  const labels = LABELS[language];
  if (available <= 0) return labels.none;
  return available < limit ? labels.exact(available) : labels.atLeast(limit);
}

export const availableStock = (p: SeedProduct): number => clamp(p.rawStock, 0, p.stockDisplayLimit);

export const finalPrice = (value: number, iva: number): number => round2(value * (1 + iva / 100));

function qualitativeStock(raw: number, limit: number): string {
  if (raw <= 0) return 'none';
  return raw >= limit ? 'high' : 'low';
}

export interface ViewOptions {
  loggedIn: boolean;
  amountInCart: number;
  choices: ModeChoices;
}

/** The nullable fields of §2.6 carry their value, or null in a mode that chooses so. */
const nullableIn =
  (choices: ModeChoices) =>
  <T>(value: T): T | null =>
    choices.nullableFields === 'null' ? null : value;

export function productView(p: SeedProduct, { loggedIn, amountInCart, choices }: ViewOptions): ProductView {
  const nullable = nullableIn(choices);
  const view: ProductView = {
    title: p.title,
    sku: p.sku,
    id: p.id,
    category: CATEGORY_NAMES[p.categoryId] ?? 'Other',
    categoryId: p.categoryId,
    brand: BRAND_NAMES[p.brandId] ?? 'Other',
    brandId: p.brandId,
    mainImage: nullable(`https://images.reference.test/products/${p.id}.jpg`),
    brandImage: nullable(`https://images.reference.test/brands/${p.brandId}.png`),
    initialB: 1,
    initialC: 0,
    stock: qualitativeStock(p.rawStock, p.stockDisplayLimit),
    price: nullable(finalPrice(p.value, p.iva)),
    amountInCart,
    warranty: nullable(p.warranty),
    cotizacion: p.currencyQuote,
    images: [
      { checksum: `c0ffee${p.id}a`, order: 1 },
      { checksum: `c0ffee${p.id}b`, order: 2 },
    ],
    attributes: [{ name: 'Brand', value: BRAND_NAMES[p.brandId] ?? 'Other' }],
    description: { type: 'text/plain', value: `${p.title}, sold by the unit.` },
    amountStock: nullable(Math.max(0, p.rawStock)),
    ean: nullable(p.ean),
    upc: nullable(p.upc),
  };
  return loggedIn ? { ...view, ...loggedInFields(p, choices) } : view;
}

/** The three fields of §2.6 that exist only for a logged-in user. */
export function loggedInFields(p: SeedProduct, choices: ModeChoices): ProductView {
  const nullable = nullableIn(choices);
  const available = availableStock(p);
  return {
    stockDisplayLimit: nullable(p.stockDisplayLimit),
    availableStock: nullable(available),
    availableStockLabel: nullable(stockLabel(available, p.stockDisplayLimit, choices.stockLabels)),
  };
}

export function priceEntry(p: SeedProduct): Record<string, unknown> {
  return {
    id: p.id,
    sku: p.sku,
    currencyQuote: p.currencyQuote,
    value: p.value,
    iva: p.iva,
    finalPrice: finalPrice(p.value, p.iva),
  };
}

/** Stand-in product detail for an id that does not exist (used only by a fault). */
export function placeholderProduct(id: string): SeedProduct {
  const numeric = /^\d{1,9}$/.test(id) ? Number(id) : 0;
  return {
    id: numeric,
    sku: `SKU-${numeric}`,
    title: 'Unknown product',
    categoryId: 10,
    brandId: 501,
    rawStock: 0,
    stockDisplayLimit: 100,
    value: 0,
    iva: 21,
    currencyQuote: 1,
    warranty: 'none',
    ean: '',
    upc: '',
  };
}
