// Fault switches: each names a catalogued requirement, every observable requirement has one, and a
// sample of them show the broken behaviour where the clean profile does not.
import { FAULTS, profilePath } from '../../reference/faults';
import { ROUTES } from '../../reference/operations';
import { finalPrice } from '../../reference/products';
import { type ReferenceServer, startReferenceServer } from '../../reference/server';
import { bearer, type RawRequest, type RawResponse, send } from '../../reference/test-client';
import { requirement, requirements } from '../../src/model/catalogue';
import { expect, test } from '../../src/playwright/fixtures';
import { schemas } from '../../src/model/schema-registry';

const AUTH = bearer('Reference-Bearer-Token');
const JSON_TYPE = { ...AUTH, 'content-type': 'application/json' };
const address = { direccion: 'Cordoba 1234', telefono: '+54 341 555 0100', codigoPostal: '2000' };
const category = (fields: Record<string, unknown> = {}) => ({
  categoryId: 10,
  utility: 30,
  description: 'x',
  hide: false,
  ...fields,
});

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
  expect(
    requirements()
      .filter((r) => r.observable === false && broken.has(r.id))
      .map((r) => r.id),
  ).toEqual([]);
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
  {
    fault: 'op4-utility-unbounded',
    path: '/miCuenta/misCategorias',
    request: { method: 'PATCH', headers: AUTH, body: { categoryId: 10, utility: 1e9, description: 'x', hide: false } },
    conforms: rejected,
  },
  {
    fault: 'op4-unknown-category-accepted',
    path: '/miCuenta/misCategorias',
    request: { method: 'PATCH', headers: AUTH, body: { categoryId: 99999, utility: 5, description: 'x', hide: false } },
    conforms: rejected,
  },
  {
    fault: 'op8-stock-unclamped',
    path: '/item/1005',
    request: { headers: AUTH },
    conforms: (res) => view(res).availableStock === 0,
  },
  {
    fault: 'op8-stock-label-mismatch',
    path: '/item/1003',
    request: { headers: AUTH },
    conforms: (res) => view(res).availableStockLabel === '7 units',
  },
  {
    fault: 'op8-invalid-token-logged-in',
    path: '/item/1001',
    request: { headers: bearer('wrong') },
    conforms: (res) => !('availableStock' in view(res)),
  },
  { fault: 'op8-logged-in-fields-leaked', path: '/item/1001', conforms: (res) => !('availableStock' in view(res)) },
  {
    fault: 'op15-channel-token-unchecked',
    path: '/postventa/7001/messageChannel/wrong/u-42',
    request: { method: 'POST', body: { message: 'x' } },
    conforms: rejected,
  },
  {
    fault: 'op6-auth-demanded',
    path: '/carrito/processPreferenceProvider',
    request: { method: 'POST', body: { title: 't', quantity: 1, unit_price: 1, clientId: 1, orderId: 1, branch: 1 } },
    conforms: (res) => res.status === 201,
  },
  {
    fault: 'op2-missing-placeid-unnamed',
    path: '/miCuenta/shippingAddress',
    request: { method: 'POST', headers: AUTH, body: address },
    conforms: (res) => String(res.value).includes('placeId'),
  },
  {
    fault: 'op2-placeid-not-required',
    path: '/miCuenta/shippingAddress',
    request: { method: 'POST', headers: AUTH, body: address },
    conforms: rejected,
  },
  {
    fault: 'op9-final-price-without-iva',
    path: '/prices',
    request: { headers: AUTH },
    conforms: (res) =>
      (res.value as { value: number; iva: number; finalPrice: number }[]).every(
        (e) => e.finalPrice === finalPrice(e.value, e.iva),
      ),
  },
  {
    fault: 'op12-delete-not-found',
    path: '/miCuenta/misProductos/2001',
    request: { method: 'DELETE', headers: AUTH },
    conforms: (res) => res.status === 204,
  },
  {
    fault: 'malformed-json-accepted',
    path: '/client',
    request: { method: 'PATCH', headers: JSON_TYPE, body: '{"truncated": ' },
    conforms: rejected,
  },
  {
    fault: 'op1-website-not-checked',
    path: '/client',
    request: {
      method: 'PATCH',
      headers: AUTH,
      body: {
        fiscalName: 'a',
        socialName: 'b',
        fiscalNumber: 'c',
        clientAddress: 'd',
        mainPhone: 'e',
        whatsApp: 'f',
        formatFiscalId: 1,
        taxCategoryId: 1,
        clientPostalCode: 1,
        clientCityId: 1,
        clientProvinceId: 21,
        clientWebsite: 'not a uri',
      },
    },
    conforms: rejected,
  },
  { fault: 'credential-errors-403', path: '/prices', conforms: (res) => res.status === 401 },
  {
    // The answer echoes the branch; read as UTF-8, ISO-8859-1's Ñ and ú are not there.
    fault: 'json-latin1',
    path: `/paymentVoucher/${encodeURIComponent('Ñandú')}-1`,
    request: { headers: AUTH },
    conforms: (res) => res.text.includes('Ñandú'),
  },
  {
    fault: 'json-bom',
    path: '/prices',
    request: { headers: AUTH },
    conforms: (res) => !res.text.startsWith('\uFEFF'),
  },
  {
    fault: 'success-json-as-text-plain',
    path: '/prices',
    request: { headers: AUTH },
    conforms: (res) => res.contentType.startsWith('application/json'),
  },
  { fault: 'op10-auth-not-required', path: '/paymentVoucher/0001-00012345', conforms: rejected },
  {
    fault: 'op9-token-case-insensitive',
    path: '/prices',
    request: { headers: bearer('REFERENCE-BEARER-TOKEN') },
    conforms: rejected,
  },
  {
    fault: 'op11-token-last-character-unchecked',
    path: '/miCuenta/pedidos/1/123456',
    request: { headers: bearer('Reference-Bearer-Tokex') },
    conforms: rejected,
  },
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
  for (const [path, request] of [
    ['/prices', { headers: AUTH }],
    ['/item/1003', { headers: AUTH }],
    ['/miCuenta/pedidos/1/123456', { headers: AUTH }],
  ] as const) {
    const clean = await send(server.url, `/v1${path}`, request);
    const faulty = await send(server.url, `${base}/v1${path}`, request);
    expect([faulty.status, faulty.value], path).toEqual([clean.status, clean.value]);
  }
  const utility100 = {
    method: 'PATCH',
    headers: AUTH,
    body: { categoryId: 10, utility: 100, description: 'x', hide: false },
  };
  expect((await send(server.url, `${base}/v1/miCuenta/misCategorias`, utility100)).status).toBe(200);
});

test('the auth-bypass faults are those of the operations whose route demands a Bearer token', () => {
  const bearerOps = ROUTES.filter((r) => r.auth === 'bearer').map((r) => r.number);
  expect(bearerOps).toEqual([1, 2, 3, 4, 5, 7, 9, 10, 11, 12, 13, 14]);
  const bypasses = FAULTS.filter((f) => f.name.endsWith('-auth-not-required'));
  expect(bypasses.map((f) => [f.name, f.breaks])).toEqual(
    bearerOps.map((op) => [`op${op}-auth-not-required`, `OP${op}-AUTH-REQUIRED`]),
  );
});

/** Whether a body matches one of the schemas the catalogue names for a requirement (a plain string is a string). */
const hasShapeOf =
  (id: string) =>
  (res: RawResponse): boolean =>
    (requirement(id).schemas ?? []).some((name) => schemas().validate(name, res.value).valid);

interface ShapeDemo {
  fault: string;
  breaks: string;
  title: string;
  path: string;
  request: RawRequest;
}

const OPS_2_TO_4_SHAPES: ShapeDemo[] = [
  {
    fault: 'op2-auth-error-unlisted-shape',
    breaks: 'OP2-AUTH-ERROR-BODY',
    title: 'op2 without credentials',
    path: '/miCuenta/shippingAddress',
    request: { method: 'POST', body: { ...address, placeId: 'PL-2000' } },
  },
  {
    fault: 'op3-auth-error-unlisted-shape',
    breaks: 'OP3-AUTH-ERROR-BODY',
    title: 'op3 without credentials',
    path: '/miCuenta/shippingAddress',
    request: { method: 'PATCH', body: { ...address, placeId: 'PL-2000', idDirCli: 501 } },
  },
  {
    fault: 'op3-error-plain-string',
    breaks: 'OP3-ERROR-SHAPE',
    title: 'op3 without direccion, answered as plain text',
    path: '/miCuenta/shippingAddress',
    request: { method: 'PATCH', headers: AUTH, body: { telefono: '1', codigoPostal: '2000', idDirCli: 501 } },
  },
  {
    fault: 'op3-error-unlisted-shape',
    breaks: 'OP3-ERROR-SHAPE',
    title: 'op3 of an unknown address',
    path: '/miCuenta/shippingAddress',
    request: { method: 'PATCH', headers: AUTH, body: { ...address, placeId: 'PL-2000', idDirCli: 99999 } },
  },
  {
    fault: 'op3-error-unlisted-shape',
    breaks: 'OP3-ERROR-SHAPE',
    title: 'op3 without direccion',
    path: '/miCuenta/shippingAddress',
    request: { method: 'PATCH', headers: AUTH, body: { telefono: '1', codigoPostal: '2000', idDirCli: 501 } },
  },
  {
    fault: 'op4-auth-error-unlisted-shape',
    breaks: 'OP4-AUTH-ERROR-BODY',
    title: 'op4 without credentials',
    path: '/miCuenta/misCategorias',
    request: { method: 'PATCH', body: category() },
  },
  {
    fault: 'op4-auth-error-plain-string',
    breaks: 'OP4-AUTH-ERROR-BODY',
    title: 'op4 without credentials, answered as plain text',
    path: '/miCuenta/misCategorias',
    request: { method: 'PATCH', body: category() },
  },
  {
    fault: 'op4-error-shape-wrong',
    breaks: 'OP4-ERROR-SHAPE',
    title: 'op4 of an unknown category',
    path: '/miCuenta/misCategorias',
    request: { method: 'PATCH', headers: AUTH, body: category({ categoryId: 99999 }) },
  },
  {
    fault: 'op4-error-shape-wrong',
    breaks: 'OP4-ERROR-SHAPE',
    title: 'op4 with utility above 100',
    path: '/miCuenta/misCategorias',
    request: { method: 'PATCH', headers: AUTH, body: category({ utility: 100.01 }) },
  },
  {
    fault: 'op4-invalid-body-error-unlisted-shape',
    breaks: 'OP4-INVALID-BODY-ERROR-SHAPE',
    title: 'op4 without hide',
    path: '/miCuenta/misCategorias',
    request: { method: 'PATCH', headers: AUTH, body: { categoryId: 10, utility: 30, description: 'x' } },
  },
  {
    fault: 'op4-invalid-body-error-unlisted-shape',
    breaks: 'OP4-INVALID-BODY-ERROR-SHAPE',
    title: 'op4 with hide not a boolean',
    path: '/miCuenta/misCategorias',
    request: { method: 'PATCH', headers: AUTH, body: category({ hide: 'no' }) },
  },
  {
    fault: 'op4-invalid-body-error-unlisted-shape',
    breaks: 'OP4-INVALID-BODY-ERROR-SHAPE',
    title: 'op4 with utility not a number',
    path: '/miCuenta/misCategorias',
    request: { method: 'PATCH', headers: AUTH, body: category({ utility: '30' }) },
  },
];

for (const demo of OPS_2_TO_4_SHAPES) {
  test(
    `fault ${demo.fault} answers ${demo.title} ` + `in a shape ${demo.breaks} does not allow, with the clean status`,
    async () => {
      expect(FAULTS.find((f) => f.name === demo.fault)?.breaks).toBe(demo.breaks);
      const conforms = hasShapeOf(demo.breaks);
      const clean = await send(server.url, `/v1${demo.path}`, demo.request);
      expect(rejected(clean), `clean: ${clean.status} ${clean.text.slice(0, 200)}`).toBe(true);
      expect(conforms(clean), `clean: ${clean.text.slice(0, 200)}`).toBe(true);
      const broken = await send(server.url, `${profilePath({ fault: demo.fault })}/v1${demo.path}`, demo.request);
      expect(broken.status).toBe(clean.status);
      expect(conforms(broken), `${demo.fault}: ${broken.text.slice(0, 200)}`).toBe(false);
    },
  );
}

test(
  'the two error-shape faults of operation 4 split its refusals: ' +
    'field errors on one side, unknown category and utility on the other',
  async () => {
    const refusals: { what: string; request: RawRequest; reshapedBy: string | undefined }[] = [
      {
        what: 'missing hide',
        request: { method: 'PATCH', headers: AUTH, body: { categoryId: 10, utility: 30, description: 'x' } },
        reshapedBy: 'op4-invalid-body-error-unlisted-shape',
      },
      {
        what: 'hide not a boolean',
        request: { method: 'PATCH', headers: AUTH, body: category({ hide: 'no' }) },
        reshapedBy: 'op4-invalid-body-error-unlisted-shape',
      },
      {
        what: 'a body that is not an object',
        request: { method: 'PATCH', headers: AUTH, body: [1] },
        reshapedBy: 'op4-invalid-body-error-unlisted-shape',
      },
      {
        what: 'an unknown category',
        request: { method: 'PATCH', headers: AUTH, body: category({ categoryId: 99999 }) },
        reshapedBy: 'op4-error-shape-wrong',
      },
      {
        what: 'utility 1e9',
        request: { method: 'PATCH', headers: AUTH, body: category({ utility: 1e9 }) },
        reshapedBy: 'op4-error-shape-wrong',
      },
      {
        what: 'malformed JSON',
        request: { method: 'PATCH', headers: JSON_TYPE, body: '{"truncated": ' },
        reshapedBy: undefined,
      },
      { what: 'no credentials', request: { method: 'PATCH', body: category() }, reshapedBy: undefined },
    ];
    for (const { what, request, reshapedBy } of refusals) {
      const clean = await send(server.url, '/v1/miCuenta/misCategorias', request);
      expect(clean.value, what).toMatchObject({ success: false, msg: expect.any(String) });
      for (const name of ['op4-error-shape-wrong', 'op4-invalid-body-error-unlisted-shape']) {
        const faulty = await send(server.url, `${profilePath({ fault: name })}/v1/miCuenta/misCategorias`, request);
        expect(faulty.status, `${name}, ${what}`).toBe(clean.status);
        if (name === reshapedBy)
          expect(faulty.value, `${name}, ${what}`).not.toMatchObject({ success: expect.anything() });
        else expect(faulty.value, `${name}, ${what}`).toEqual(clean.value);
      }
    }
  },
);
