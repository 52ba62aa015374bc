// The reference server against bad input: malformed JSON, wrong content types, oversized and deeply
// nested bodies, unknown routes and methods, broken percent-encoding, and a bounded seeded fuzz.
import fc from 'fast-check';
import { FAULTS, profilePath } from '../../reference/faults';
import { MODES } from '../../reference/modes';
import { ROUTES } from '../../reference/operations';
import { type ReferenceServer, startReferenceServer } from '../../reference/server';
import { bearer, type RawResponse, send } from '../../reference/test-client';
import { expect, test } from '../../src/playwright/fixtures';

const AUTH = bearer('Reference-Bearer-Token');
const FUZZ_SEED = 20240521;
/** Sent without percent-encoding, to reach the decoder with broken escapes. */
const RAW_SEGMENTS = new Set(['%', '%zz', '%E0%A4%A']);

let server: ReferenceServer;
test.beforeAll(async () => {
  server = await startReferenceServer();
});
test.afterAll(async () => {
  await server?.close();
});

/** The operations with a request body, at a concrete path, with their documented error shape. */
const BODY_OPS: { op: number; method: string; path: string; errorShape: (v: unknown) => void }[] = [
  {
    op: 1,
    method: 'PATCH',
    path: '/client',
    errorShape: (v) => expect(v).toMatchObject({ status: 'error', message: expect.any(String) }),
  },
  {
    op: 2,
    method: 'POST',
    path: '/miCuenta/shippingAddress',
    errorShape: (v) => expect(v).toMatchObject({ success: 'error', msg: expect.any(String) }),
  },
  {
    op: 3,
    method: 'PATCH',
    path: '/miCuenta/shippingAddress',
    errorShape: (v) => expect(v).toMatchObject({ success: 'error', msg: expect.any(String) }),
  },
  {
    op: 4,
    method: 'PATCH',
    path: '/miCuenta/misCategorias',
    errorShape: (v) => expect(v).toMatchObject({ success: false, msg: expect.any(String) }),
  },
  { op: 5, method: 'POST', path: '/carrito/item', errorShape: (v) => expect(v).toMatch(/^Error: /) },
  {
    op: 6,
    method: 'POST',
    path: '/carrito/processPreferenceProvider',
    errorShape: (v) => expect(v).toMatchObject({ error_message: expect.any(String) }),
  },
  { op: 13, method: 'POST', path: '/postventa', errorShape: (v) => expect(typeof v).toBe('string') },
  {
    op: 15,
    method: 'POST',
    path: '/postventa/7001/messageChannel/Reference-Channel-Token/u-42',
    errorShape: (v) => expect(v).toMatchObject({ success: 'error' }),
  },
];

const alive = async () => expect((await send(server.url, '/v1/prices', { headers: AUTH })).status).toBe(200);

// The API's own answers; the flaky mode's gateway stands in front of them (reference.spec.ts, and the matrix). The
// expiring-token mode refuses the static token after a while (token-refresh.spec.ts).
for (const mode of MODES.filter(
  (m) => m.choices.gatewayBlipEvery === null && m.choices.tokenLifetimeRequests === null,
)) {
  const base = `${profilePath({ mode: mode.name })}/v1`;
  const documentedStatus = (status: number) => (mode.choices.errorStatus === '200' ? 200 : status);

  test.describe(`mode ${mode.name}`, () => {
    for (const { op, method, path, errorShape } of BODY_OPS) {
      test(`op${op} rejects malformed JSON in its error shape`, async () => {
        const res = await send(server.url, `${base}${path}`, {
          method,
          headers: { ...AUTH, 'content-type': 'application/json' },
          body: '{"unterminated": ',
        });
        expect(res.status).toBe(documentedStatus(400));
        errorShape(res.value);
      });

      test(`op${op} answers 415 to a body that is not JSON`, async () => {
        const res = await send(server.url, `${base}${path}`, {
          method,
          headers: { ...AUTH, 'content-type': 'text/plain' },
          body: 'hello',
        });
        expect(res.status).toBe(415);
        errorShape(res.value);
      });
    }

    test('an empty body is rejected, not crashed on', async () => {
      const res = await send(server.url, `${base}/client`, {
        method: 'PATCH',
        headers: { ...AUTH, 'content-type': 'application/json' },
        body: '',
      });
      expect(res.status).toBe(documentedStatus(400));
    });

    test('a body over 1 MB is answered 413, with or without Content-Length', async () => {
      const big = `[${'1,'.repeat(600 * 1024)}1]`;
      for (const chunked of [false, true]) {
        const res = await send(server.url, `${base}/carrito/item`, {
          method: 'POST',
          headers: { ...AUTH, 'content-type': 'application/json' },
          body: big,
          chunked,
        });
        expect(res.status, `chunked: ${chunked}`).toBe(413);
      }
      await alive();
    });

    test('JSON nested deeper than 64 levels is rejected without recursion', async () => {
      const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const over = await send(server.url, `${base}/postventa`, { method: 'POST', headers: AUTH, body: nested(65) });
      expect(over.status).toBe(documentedStatus(400));
      expect(over.value).toContain('nested deeper than 64');
      const atLimit = await send(server.url, `${base}/postventa`, { method: 'POST', headers: AUTH, body: nested(64) });
      expect(atLimit.value).not.toContain('nested deeper');
      const huge = await send(server.url, `${base}/postventa`, {
        method: 'POST',
        headers: AUTH,
        body: nested(400_000),
      });
      expect(huge.status).toBe(documentedStatus(400));
      const braces = await send(server.url, `${base}/postventa`, {
        method: 'POST',
        headers: AUTH,
        body: `{"a":"[[[[",${'{"b":'.repeat(70)}1${'}'.repeat(70)}}`,
      });
      expect(braces.value).toContain('nested deeper than 64');
    });

    test('an unknown route is 404 with a plain string', async () => {
      for (const path of [
        `${base}/nothing`,
        `${base}`,
        `${base}/item`,
        `${base}/item/1/extra`,
        '/v2/prices',
        '/',
        '/_modes/nope/v1/prices',
        '/_faults/nope/v1/prices',
      ]) {
        const res = await send(server.url, path, { headers: AUTH });
        expect(res.status, path).toBe(404);
        expect(typeof res.value, path).toBe('string');
      }
    });

    test('an unknown method on a known path is 405 with Allow', async () => {
      const put = await send(server.url, `${base}/miCuenta/shippingAddress`, { method: 'PUT', headers: AUTH });
      expect(put.status).toBe(405);
      expect(put.headers.allow).toBe('POST, PATCH');
      const post = await send(server.url, `${base}/prices`, { method: 'POST', headers: AUTH, body: {} });
      expect(post.status).toBe(405);
      expect(post.headers.allow).toBe('GET, HEAD');
    });

    test('HEAD on a GET operation answers its headers without a body', async () => {
      const res = await send(server.url, `${base}/prices`, { method: 'HEAD', headers: AUTH });
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      expect(Number(res.headers['content-length'])).toBeGreaterThan(0);
    });

    test("invalid percent-encoding in a path parameter is rejected in the op's shape", async () => {
      const product = await send(server.url, `${base}/item/%E0%A4%A`, { headers: AUTH });
      expect(product.status).toBe(documentedStatus(400));
      expect(product.value).toBe('invalid percent-encoding in the path');
      const channel = await send(server.url, `${base}/postventa/7001/messageChannel/%ZZ/u-42`, {
        method: 'POST',
        body: { message: 'x' },
      });
      expect(channel.status).toBe(documentedStatus(400));
      expect(channel.value).toMatchObject({ success: 'error' });
    });
  });
}

test('a request line the HTTP parser refuses gets 400, and the server stays up', async () => {
  const { connect } = await import('node:net');
  const { port } = new URL(server.url);
  const answer = await new Promise<string>((resolve) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write('GARBAGE \x00\x01 HTTP/9\r\n\r\n'));
    let text = '';
    socket.on('data', (d) => (text += d.toString()));
    socket.on('close', () => resolve(text));
    socket.on('error', () => resolve(text));
  });
  expect(answer).toMatch(/^HTTP\/1\.1 400/);
  await alive();
});

test("fuzz: 300 random byte bodies and 300 random JSON values: no crash, and no 5xx but a fault's own", async () => {
  test.info().annotations.push({ type: 'fast-check-seed', description: `seed=${FUZZ_SEED}` });
  // A crash is what the server logs as its internal error, whatever the profile; a 5xx of a fault's profile may be
  // the fault's own answer (op13-auth-refusal-server-error answers refused credentials so), of another profile not.
  const crashes: string[] = [];
  const log = console.error;
  console.error = (...args: unknown[]) => {
    if (String(args[0]).startsWith('reference server: internal error')) crashes.push(args.map(String).join(' '));
    else log(...args);
  };
  const faultProfiles = new Set(FAULTS.map((f) => profilePath({ fault: f.name })));
  const profiles = [
    '',
    profilePath({ mode: 'deployment' }),
    profilePath({ mode: 'nulls' }),
    ...FAULTS.map((f) => profilePath({ fault: f.name })),
  ];
  const segment = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom('1001', '7001', '0001-00012345', '..', '-', 'Reference-Channel-Token', 'u-42', ...RAW_SEGMENTS),
  );
  const request = fc.record({
    route: fc.constantFrom(...ROUTES),
    method: fc.oneof(fc.constant(''), fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS')),
    profile: fc.constantFrom(...profiles),
    params: fc.array(segment, { minLength: 4, maxLength: 4 }),
    auth: fc.constantFrom<Record<string, string>>(
      {},
      AUTH,
      { authorization: 'Bearer nope' },
      { authorization: '\u00ff' },
    ),
    contentType: fc.constantFrom('application/json', 'text/plain', 'application/x+json', ''),
  });
  const bodies = [
    ...fc.sample(fc.uint8Array({ maxLength: 256 }), { seed: FUZZ_SEED, numRuns: 300 }).map((b) => Buffer.from(b)),
    ...fc
      .sample(fc.jsonValue({ maxDepth: 6 }), { seed: FUZZ_SEED + 1, numRuns: 300 })
      .map((v) => JSON.stringify(v) ?? 'null'),
  ];
  const requests = fc.sample(request, { seed: FUZZ_SEED + 2, numRuns: bodies.length });
  const failures: string[] = [];
  // Restored however the loop ends: a send that throws would leave this worker's console swallowing crash logs.
  try {
    for (const [i, body] of bodies.entries()) {
      const r = requests[i]!;
      let p = 0;
      const path = r.route.path.replace(/\{\w+\}/g, () => {
        const value = r.params[p++] ?? 'x';
        return RAW_SEGMENTS.has(value) ? value : encodeURIComponent(value);
      });
      const headers: Record<string, string> = { ...r.auth };
      if (r.contentType) headers['content-type'] = r.contentType;
      let res: RawResponse;
      try {
        res = await send(server.url, `${r.profile}/v1${path}`, { method: r.method || r.route.method, headers, body });
      } catch (e) {
        failures.push(`#${i} ${r.route.method} ${path}: ${(e as Error).message}`);
        continue;
      }
      if (res.status >= 500 && !faultProfiles.has(r.profile))
        failures.push(
          `#${i} ${r.method || r.route.method} ${r.profile}/v1${path}: ${res.status} ${res.text.slice(0, 200)}`,
        );
    }
  } finally {
    console.error = log;
  }
  expect(failures).toEqual([]);
  expect(crashes, 'internal errors the server logged').toEqual([]);
  await alive();
});
