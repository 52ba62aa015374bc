// Seed data of the reference server, and the in-memory store that each profile (clean, mode or fault) gets a fresh
// copy of. The client and the address are the sample bodies of src/model/operations.ts, which the suite's
// settings default to as well; tests/self/reference.spec.ts checks that the rest matches those defaults.
import { SAMPLE_BODIES } from '../src/model/operations';

/** The tokens of the suite's defaults (RSF_BEARER_TOKEN, RSF_CHANNEL_TOKEN), unless the server is given others. */
export const DEFAULT_BEARER_TOKEN = 'Reference-Bearer-Token';
export const DEFAULT_CHANNEL_TOKEN = 'Reference-Channel-Token';

export const round2 = (n: number): number => Math.round((n + Number.EPSILON) * 100) / 100;

export interface SeedProduct {
  id: number;
  sku: string;
  title: string;
  categoryId: number;
  brandId: number;
  /** Stock as the warehouse knows it; may be negative (over-sold). */
  rawStock: number;
  stockDisplayLimit: number;
  /** Net unit price, before iva. */
  value: number;
  /** iva percentage. */
  iva: number;
  currencyQuote: number;
  warranty: string;
  ean: string;
  upc: string;
}

export const CATEGORY_NAMES: Readonly<Record<number, string>> = { 10: 'Tools', 11: 'Electrical', 12: 'Paint' };
export const BRAND_NAMES: Readonly<Record<number, string>> = { 501: 'Acme', 502: 'Volta' };

const product = (
  id: number,
  rawStock: number,
  value: number,
  iva: number,
  title: string,
  categoryId: number,
  brandId: number,
): SeedProduct => ({
  id,
  sku: `SKU-${id}`,
  title,
  categoryId,
  brandId,
  rawStock,
  stockDisplayLimit: 100,
  value,
  iva,
  currencyQuote: 1,
  warranty: '12 months',
  ean: `779000000${id}`,
  upc: `0${id}00000000`.slice(0, 12),
});

/**
 * Raw stock above (1001), at (1002) and below (1003) the display limit, zero (1004) and negative (1005). One title is
 * not ASCII, as a product's own text often is: a legacy encoding shows there (GEN-JSON-UTF8).
 */
export const PRODUCTS: readonly SeedProduct[] = [
  product(1001, 500, 1500.5, 21, 'Cordless drill 18 V', 10, 501),
  product(1002, 100, 320, 21, 'Hammer 500 g', 10, 501),
  product(1003, 7, 89.9, 10.5, 'Cable 2.5 mm, 100 m', 11, 502),
  product(1004, 0, 45.25, 21, 'Wall switch, Ñandú series', 11, 502),
  product(1005, -3, 2100, 10.5, 'Latex paint 20 l', 12, 501),
];

export const ALLOWED_CART_TYPES: ReadonlySet<number> = new Set([1, 2, 3]);
/** Products of the account that DELETE /miCuenta/misProductos/{id} accepts, again and again. */
export const ACCOUNT_PRODUCT_IDS: ReadonlySet<number> = new Set([2001, 2002]);

export const PROVINCES: Readonly<Record<number, string>> = { 1: 'Buenos Aires', 5: 'Cordoba', 21: 'Santa Fe' };
export const PLACES: Readonly<Record<string, { name: string; provinceId: number }>> = {
  'PL-2000': { name: 'Rosario', provinceId: 21 },
  'PL-1000': { name: 'Buenos Aires', provinceId: 1 },
};

export const ORDERS: Readonly<Record<string, object>> = {
  '1/123456': {
    branch: '1',
    albNumber: '123456',
    date: '2024-05-02',
    status: 'delivered',
    items: [{ productId: 1001, amount: 2, unitPrice: 1815.61 }],
    total: 3631.22,
  },
};

export const VOUCHERS: Readonly<Record<string, object>> = {
  '0001-00012345': {
    branch: '0001',
    order: '00012345',
    amount: 3631.22,
    currency: 'ARS',
    issuedAt: '2024-05-02',
    paid: true,
  },
};

export interface Address {
  idDirCli: number;
  direccion: unknown;
  telefono: unknown;
  codigoPostal: unknown;
  placeId?: unknown;
  provinceId?: unknown;
  placeString?: unknown;
}

export interface Category {
  categoryId: number;
  utility: unknown;
  description: unknown;
  hide: unknown;
}

export interface ChannelMessage {
  userId: string;
  message: unknown;
  sentAt: string;
}

export interface Channel {
  postsaleInboundId: number;
  token: string;
  userId: string;
  messages: ChannelMessage[];
}

/** Everything a request can change; one per profile, so faults and modes never see each other's writes. */
export interface Store {
  client: Record<string, unknown>;
  addresses: Map<number, Address>;
  nextAddressId: number;
  categories: Map<number, Category>;
  /** productId → amount. */
  cart: Map<number, number>;
  deletedAccountProducts: Set<number>;
  channels: Map<number, Channel>;
  nextPostSaleId: number;
  nextPreferenceId: number;
  nextRequestId: number;
}

/** The address that the sample update (operation 3) changes. */
const SEED_ADDRESS = SAMPLE_BODIES.updateShippingAddress;
const SEED_ADDRESS_ID = SEED_ADDRESS.idDirCli;
export const SEED_CHANNEL = { postsaleInboundId: 7001, userId: 'u-42' } as const;

export function createStore(channelToken: string): Store {
  return {
    client: { ...SAMPLE_BODIES.updateClient },
    addresses: new Map([[SEED_ADDRESS_ID, { ...SEED_ADDRESS }]]),
    nextAddressId: SEED_ADDRESS_ID + 1,
    categories: new Map(
      Object.entries(CATEGORY_NAMES).map(([id, name]) => [
        Number(id),
        { categoryId: Number(id), utility: 30, description: name, hide: false },
      ]),
    ),
    // A product of the stock settings in the account's cart from the start: its anonymous view must not show it.
    cart: new Map([[1003, 2]]),
    deletedAccountProducts: new Set(),
    channels: new Map([
      [
        SEED_CHANNEL.postsaleInboundId,
        {
          ...SEED_CHANNEL,
          token: channelToken,
          messages: [{ userId: 'support', message: 'Hello, how can we help?', sentAt: '2024-05-03T10:00:00.000Z' }],
        },
      ],
    ]),
    nextPostSaleId: SEED_CHANNEL.postsaleInboundId + 1,
    nextPreferenceId: 1,
    nextRequestId: 1,
  };
}
