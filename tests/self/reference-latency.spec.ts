// RSF_REFERENCE_LATENCY_MS: the reference answers as a distant target would, late and otherwise the same, and
// concurrent requests wait side by side (npm run bench measures the suite against it). Only lower bounds, or upper
// bounds with margins of seconds, so that a loaded machine cannot fail these tests.
import { type ReferenceServer, startReferenceServer } from '../../reference/server';
import { bearer, send } from '../../reference/test-client';
import { ConfigError, loadConfig } from '../../src/config/config';
import { expect, test } from '../../src/playwright/fixtures';

const AUTH = bearer(loadConfig({}).bearerToken);
const LATENCY_MS = 400;

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

async function withServer(latencyMs: number, use: (server: ReferenceServer) => Promise<void>): Promise<void> {
  const server = await startReferenceServer({ latencyMs });
  try {
    await use(server);
  } finally {
    await server.close();
  }
}

test('each answer waits the latency, and is the answer the server gives without it', async () => {
  await withServer(0, async (plain) => {
    await withServer(LATENCY_MS, async (distant) => {
      const expected = await send(plain.url, '/v1/prices', { headers: AUTH });
      const { value: late, ms } = await timed(() => send(distant.url, '/v1/prices', { headers: AUTH }));
      expect(ms).toBeGreaterThanOrEqual(LATENCY_MS - 5);
      expect(late.status).toBe(expected.status);
      expect(late.value).toEqual(expected.value);
      const refused = await send(distant.url, '/v1/prices');
      expect(refused.status).toBe((await send(plain.url, '/v1/prices')).status);
    });
  });
});

test('concurrent requests wait side by side, not one after another', async () => {
  const requests = 4;
  await withServer(LATENCY_MS, async (server) => {
    const { ms } = await timed(() =>
      Promise.all(Array.from({ length: requests }, () => send(server.url, '/v1/prices', { headers: AUTH }))),
    );
    expect(ms).toBeGreaterThanOrEqual(LATENCY_MS - 5);
    // One after another would take requests × latency; the margin is for a loaded machine.
    expect(ms).toBeLessThan(requests * LATENCY_MS);
  });
});

test('closing the server does not wait for answers still delayed', async () => {
  const server = await startReferenceServer({ latencyMs: 60_000 });
  const pending = send(server.url, '/v1/prices', { headers: AUTH }).catch((e: unknown) => e);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const { ms } = await timed(() => server.close());
  expect(ms).toBeLessThan(10_000);
  expect(await pending).toBeInstanceOf(Error);
});

test('RSF_REFERENCE_LATENCY_MS is a number of milliseconds from 0 to 10000, 0 by default', () => {
  expect(loadConfig({}).referenceLatencyMs).toBe(0);
  expect(loadConfig({ RSF_REFERENCE_LATENCY_MS: '150' }).referenceLatencyMs).toBe(150);
  for (const bad of ['-1', '10001', 'soon']) {
    expect(() => loadConfig({ RSF_REFERENCE_LATENCY_MS: bad }), bad).toThrow(ConfigError);
  }
});
