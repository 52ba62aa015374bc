// Fault switches: each names a catalogued requirement, every observable requirement has one, and a
// sample of them show the broken behaviour where the clean profile does not.
import { FAULTS, profilePath } from '../../reference/faults';
import { finalPrice } from '../../reference/products';
import { type ReferenceServer, startReferenceServer } from '../../reference/server';
import { bearer, type RawRequest, type RawResponse, send } from '../../reference/test-client';
import { requirements } from '../support/catalogue';
import { expect, test } from '../support/fixtures';

const AUTH = bearer('reference-bearer-token');
const JSON_TYPE = { ...AUTH, 'content-type': 'application/json' };
const address = { direccion: 'Cordoba 1234', telefono: '+54 341 555 0100', codigoPostal: '2000' };

let server: ReferenceServer;
test.beforeAll(async () => {
  server = await startReferenceServer();
});
test.afterAll(async () => {
  await server?.close();
});

test('every fault breaks a requirement of the catalogue, under a unique kebab-case name', () => {
  const ids = new Set(requirements().map((r) => r.id));
  for (const f of FAULTS) {
    expect(ids.has(f.breaks), `${f.name} breaks ${f.breaks}`).toBe(true);
    expect(f.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(f.description.length).toBeGreaterThan(10);
  }
  expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
});

test('every observable requirement (MUST, SHOULD and INFO) has at least one fault; unobservable ones have none', () => {
  const broken = new Set(FAULTS.map((f) => f.breaks));
  const observable = requirements().filter((r) => r.observable !== false);
  expect(observable.filter((r) => !broken.has(r.id)).map((r) => r.id)).toEqual([]);
  expect(requirements().filter((r) => r.observable === false && broken.has(r.id)).map((r) => r.id)).toEqual([]);
});

test('profilePath gives the prefix of a mode or a fault', () => {
  expect(profilePath()).toBe('');
  expect(profilePath({ mode: 'reference' })).toBe('');
  expect(profilePath({ mode: 'deployment' })).toBe('/_modes/deployment');
  expect(profilePath({ fault: 'op4-utility-unbounded' })).toBe('/_faults/op4-utility-unbounded');
  expect(() => profilePath({ mode: 'nope' })).toThrow(/unknown mode/);
  expect(() => profilePath({ fault: 'nope' })).toThrow(/unknown fault/);
  expect(() => profilePath({ mode: 'deployment', fault: 'op4-utility-unbounded' })).toThrow();
});

interface Demo {
  fault: string;
  path: string;
  request?: RawRequest;
  /** True when the answer conforms: the clean profile must, the fault's must not. */
  conforms(res: RawResponse): boolean;
}

const rejected = (res: RawResponse) => res.status >= 400 && res.status < 500;
const view = (res: RawResponse) => res.value as Record<string, unknown>;

const DEMOS: Demo[] = [
  { fault: 'op4-utility-unbounded', path: '/miCuenta/misCategorias', request: { method: 'PATCH', headers: AUTH, body: { categoryId: 10, utility: 1e9, description: 'x', hide: false } }, conforms: rejected },
  { fault: 'op4-unknown-category-accepted', path: '/miCuenta/misCategorias', request: { method: 'PATCH', headers: AUTH, body: { categoryId: 99999, utility: 5, description: 'x', hide: false } }, conforms: rejected },
  { fault: 'op8-stock-unclamped', path: '/item/1005', request: { headers: AUTH }, conforms: (res) => view(res).availableStock === 0 },
  { fault: 'op8-stock-label-mismatch', path: '/item/1003', request: { headers: AUTH }, conforms: (res) => view(res).availableStockLabel === '7 units' },
  { fault: 'op8-invalid-token-logged-in', path: '/item/1001', request: { headers: bearer('wrong') }, conforms: (res) => !('availableStock' in view(res)) },
  { fault: 'op8-logged-in-fields-leaked', path: '/item/1001', conforms: (res) => !('availableStock' in view(res)) },
  { fault: 'op15-channel-token-unchecked', path: '/postventa/7001/messageChannel/wrong/u-42', request: { method: 'POST', body: { message: 'x' } }, conforms: rejected },
  { fault: 'op6-auth-demanded', path: '/carrito/processPreferenceProvider', request: { method: 'POST', body: { title: 't', quantity: 1, unit_price: 1, clientId: 1, orderId: 1, branch: 1 } }, conforms: (res) => res.status === 201 },
  { fault: 'op2-missing-placeid-unnamed', path: '/miCuenta/shippingAddress', request: { method: 'POST', headers: AUTH, body: address }, conforms: (res) => String(res.value).includes('placeId') },
  { fault: 'op2-placeid-not-required', path: '/miCuenta/shippingAddress', request: { method: 'POST', headers: AUTH, body: address }, conforms: rejected },
  { fault: 'op9-final-price-without-iva', path: '/prices', request: { headers: AUTH }, conforms: (res) => (res.value as { value: number; iva: number; finalPrice: number }[]).every((e) => e.finalPrice === finalPrice(e.value, e.iva)) },
  { fault: 'op12-delete-not-found', path: '/miCuenta/misProductos/2001', request: { method: 'DELETE', headers: AUTH }, conforms: (res) => res.status === 204 },
  { fault: 'malformed-json-accepted', path: '/client', request: { method: 'PATCH', headers: JSON_TYPE, body: '{"truncated": ' }, conforms: rejected },
  { fault: 'op1-website-not-checked', path: '/client', request: { method: 'PATCH', headers: AUTH, body: { fiscalName: 'a', socialName: 'b', fiscalNumber: 'c', clientAddress: 'd', mainPhone: 'e', whatsApp: 'f', formatFiscalId: 1, taxCategoryId: 1, clientPostalCode: 1, clientCityId: 1, clientProvinceId: 21, clientWebsite: 'not a uri' } }, conforms: rejected },
  { fault: 'credential-errors-403', path: '/prices', conforms: (res) => res.status === 401 },
  { fault: 'success-json-as-text-plain', path: '/prices', request: { headers: AUTH }, conforms: (res) => res.contentType.startsWith('application/json') },
  { fault: 'op10-auth-not-required', path: '/paymentVoucher/0001-00012345', conforms: rejected },
];

for (const demo of DEMOS) {
  test(`fault ${demo.fault} shows its broken behaviour; the clean profile does not`, async () => {
    const clean = await send(server.url, `/v1${demo.path}`, demo.request);
    expect(demo.conforms(clean), `clean: ${clean.status} ${clean.text.slice(0, 200)}`).toBe(true);
    const broken = await send(server.url, `${profilePath({ fault: demo.fault })}/v1${demo.path}`, demo.request);
    expect(demo.conforms(broken), `${demo.fault}: ${broken.status} ${broken.text.slice(0, 200)}`).toBe(false);
  });
}

test('fault operations-under-v2 serves /v2 and not /v1', async () => {
  const base = profilePath({ fault: 'operations-under-v2' });
  expect((await send(server.url, `${base}/v1/prices`, { headers: AUTH })).status).toBe(404);
  expect((await send(server.url, `${base}/v2/prices`, { headers: AUTH })).status).toBe(200);
});

test('a fault leaves unrelated operations as the clean profile answers them', async () => {
  const base = profilePath({ fault: 'op4-utility-unbounded' });
  for (const [path, request] of [['/prices', { headers: AUTH }], ['/item/1003', { headers: AUTH }], ['/miCuenta/pedidos/1/123456', { headers: AUTH }]] as const) {
    const clean = await send(server.url, `/v1${path}`, request);
    const faulty = await send(server.url, `${base}/v1${path}`, request);
    expect([faulty.status, faulty.value], path).toEqual([clean.status, clean.value]);
  }
  const utility100 = { method: 'PATCH', headers: AUTH, body: { categoryId: 10, utility: 100, description: 'x', hide: false } };
  expect((await send(server.url, `${base}/v1/miCuenta/misCategorias`, utility100)).status).toBe(200);
});
