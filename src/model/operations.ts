// What the spec says about each of the 15 operations of §4, as data: number, section, method, path, credentials,
// schemas, what "succeeded" means, and a sample body. The one description that the suite, its property probes and
// the embedded reference (reference/operations.ts) all read, so it imports nothing: no client, no settings.

/** §5: "Bearer" (1-5, 7, 9-14), "optional Bearer" (8), none (6, and 15 with its token in the path). */
export type AuthRule = 'bearer' | 'optional-bearer' | 'none';
export type OperationNumber = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14 | 15;
export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** How a success body is recognised, beyond a 2xx status (§7.3: errors may come with HTTP 200). */
export type SuccessSignal =
  | 'client-status' // {status, message}: status matches RSF_CLIENT_SUCCESS_STATUS (§4.1: same shape for failures)
  | 'success-ok' // {success: "ok"} (§4.2, §4.3)
  | 'success-true' // {success: true} (§4.4)
  | 'success-string' // {success: <string that is not an error word>} (§4.15)
  | 'plain-string' // a string that does not match RSF_REJECTION_TEXT (§4.5)
  | 'object' // a JSON object without an error marker (§2.8)
  | 'array' // a JSON array (§4.9)
  | 'unspecified'; // any body that is not a recognisable error (§4.12)

export interface Operation {
  number: OperationNumber;
  /** Section of §4 describing it. */
  section: string;
  method: Method;
  /** Path under /v1 with {placeholders}; in "{branch}-{order}" the hyphen separates two parameters (§4.10). */
  path: string;
  auth: AuthRule;
  /** Carried out by a conforming server: gated by the safety mode against external targets. */
  writes: boolean;
  successSchema: string;
  successSignal: SuccessSignal;
  requestSchema?: string;
  /** A valid request body (one of SAMPLE_BODIES); every operation with a requestSchema has one. */
  sampleBody?: unknown;
}

/** A JSON object: not null, not an array. */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The street part of an address (§2.2), required when one is created or updated (§4.2, §4.3). */
export const STREET_FIELDS = ['direccion', 'telefono', 'codigoPostal'] as const;

/**
 * A valid request body for each operation that takes one. The spec speaks of samples without showing them; these
 * are ours, consistent with one another (one client, one address, one order). The defaults of the settings
 * (src/config/settings/data.ts) and the reference's seed data (reference/seed.ts) are taken from here.
 */
export const SAMPLE_BODIES = {
  updateClient: {
    fiscalName: 'Ferreteria Modelo SA',
    socialName: 'Ferreteria Modelo',
    fiscalNumber: '30-71234567-9',
    clientAddress: 'San Martin 950',
    mainPhone: '+54 341 555 0101',
    whatsApp: '+54 9 341 555 0102',
    formatFiscalId: 80,
    taxCategoryId: 1,
    clientPostalCode: 2000,
    clientCityId: 2001,
    clientProvinceId: 21,
  },
  createShippingAddress: {
    direccion: 'Cordoba 1234',
    telefono: '+54 341 555 0100',
    codigoPostal: '2000',
    placeId: 'PL-2000',
  },
  updateShippingAddress: {
    direccion: 'Cordoba 1234',
    telefono: '+54 341 555 0100',
    codigoPostal: '2000',
    placeId: 'PL-2000',
    idDirCli: 501,
  },
  updateCategory: { categoryId: 10, utility: 40, description: 'Conformance suite', hide: false },
  updateCartItems: [{ productId: 1001, amount: 1, type: 1 }],
  createPaymentPreference: {
    title: 'Order 123456',
    quantity: 1,
    unit_price: 1500.5,
    clientId: 4242,
    orderId: 123456,
    branch: 1,
  },
  // §4.13 does not show the fields of a post-sale request.
  createPostSale: { orderId: 123456, productId: 1001, reason: 'damaged on arrival' },
  sendChannelMessage: { message: 'Message from the conformance suite' },
} as const;

const op = (o: Operation): Operation => o;

export const OPERATIONS = {
  updateClient: op({
    number: 1,
    section: '4.1',
    method: 'PATCH',
    path: '/client',
    auth: 'bearer',
    writes: true,
    requestSchema: 'client.request',
    sampleBody: SAMPLE_BODIES.updateClient,
    successSchema: 'client.response',
    successSignal: 'client-status',
  }),
  createShippingAddress: op({
    number: 2,
    section: '4.2',
    method: 'POST',
    path: '/miCuenta/shippingAddress',
    auth: 'bearer',
    writes: true,
    requestSchema: 'shipping-address-create.request',
    sampleBody: SAMPLE_BODIES.createShippingAddress,
    successSchema: 'shipping-address-create.response',
    successSignal: 'success-ok',
  }),
  updateShippingAddress: op({
    number: 3,
    section: '4.3',
    method: 'PATCH',
    path: '/miCuenta/shippingAddress',
    auth: 'bearer',
    writes: true,
    requestSchema: 'shipping-address-update.request',
    sampleBody: SAMPLE_BODIES.updateShippingAddress,
    successSchema: 'shipping-address-update.response',
    successSignal: 'success-ok',
  }),
  updateCategory: op({
    number: 4,
    section: '4.4',
    method: 'PATCH',
    path: '/miCuenta/misCategorias',
    auth: 'bearer',
    writes: true,
    requestSchema: 'category-update.request',
    sampleBody: SAMPLE_BODIES.updateCategory,
    successSchema: 'category-update.response',
    successSignal: 'success-true',
  }),
  updateCartItems: op({
    number: 5,
    section: '4.5',
    method: 'POST',
    path: '/carrito/item',
    auth: 'bearer',
    writes: true,
    requestSchema: 'cart-items.request',
    sampleBody: SAMPLE_BODIES.updateCartItems,
    successSchema: 'cart-items.response',
    successSignal: 'plain-string',
  }),
  createPaymentPreference: op({
    number: 6,
    section: '4.6',
    method: 'POST',
    path: '/carrito/processPreferenceProvider',
    auth: 'none',
    writes: true,
    requestSchema: 'payment-preference.request',
    sampleBody: SAMPLE_BODIES.createPaymentPreference,
    successSchema: 'payment-preference.response',
    successSignal: 'object',
  }),
  quoteShipping: op({
    number: 7,
    section: '4.7',
    method: 'GET',
    path: '/carrito/calcularEnvioPara/{codigoPostalFavorito}/{direccionCompleta}',
    auth: 'bearer',
    writes: false,
    successSchema: 'shipping-quote.response',
    successSignal: 'object',
  }),
  getProduct: op({
    number: 8,
    section: '4.8',
    method: 'GET',
    path: '/item/{product_id}',
    auth: 'optional-bearer',
    writes: false,
    successSchema: 'product.response',
    successSignal: 'object',
  }),
  listPrices: op({
    number: 9,
    section: '4.9',
    method: 'GET',
    path: '/prices',
    auth: 'bearer',
    writes: false,
    successSchema: 'prices.response',
    successSignal: 'array',
  }),
  getPaymentVoucher: op({
    number: 10,
    section: '4.10',
    method: 'GET',
    path: '/paymentVoucher/{branch}-{order}',
    auth: 'bearer',
    writes: false,
    successSchema: 'payment-voucher.response',
    successSignal: 'object',
  }),
  getOrder: op({
    number: 11,
    section: '4.11',
    method: 'GET',
    path: '/miCuenta/pedidos/{branch}/{albNumber}',
    auth: 'bearer',
    writes: false,
    successSchema: 'order.response',
    successSignal: 'object',
  }),
  deleteProduct: op({
    number: 12,
    section: '4.12',
    method: 'DELETE',
    path: '/miCuenta/misProductos/{id}',
    auth: 'bearer',
    writes: true,
    successSchema: 'product-delete.response',
    successSignal: 'unspecified',
  }),
  createPostSale: op({
    number: 13,
    section: '4.13',
    method: 'POST',
    path: '/postventa',
    auth: 'bearer',
    writes: true,
    requestSchema: 'post-sale.request',
    sampleBody: SAMPLE_BODIES.createPostSale,
    successSchema: 'post-sale.response',
    successSignal: 'object',
  }),
  getMessageChannel: op({
    number: 14,
    section: '4.14',
    method: 'GET',
    path: '/postventa/{postsaleInboundId}/messageChannel',
    auth: 'bearer',
    writes: false,
    successSchema: 'message-channel.response',
    successSignal: 'object',
  }),
  sendChannelMessage: op({
    number: 15,
    section: '4.15',
    method: 'POST',
    path: '/postventa/{postsaleInboundId}/messageChannel/{token}/{userId}',
    auth: 'none',
    writes: true,
    requestSchema: 'message-channel-send.request',
    sampleBody: SAMPLE_BODIES.sendChannelMessage,
    successSchema: 'message-channel-send.response',
    successSignal: 'success-string',
  }),
} as const satisfies Record<string, Operation>;

export type OperationName = keyof typeof OPERATIONS;

export function operationLabel(o: Operation): string {
  return `operation ${o.number} (${o.method} /v1${o.path}, §${o.section})`;
}

/** Fills {placeholders}; each value is percent-encoded, so it stays one path segment. */
export function fillPath(template: string, params: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`path parameter "${name}" missing for ${template}`);
    return encodeURIComponent(String(value));
  });
}
