// RSF_REFERENCE_LATENCY_MS: the reference answers as a distant target would, late and otherwise the same, and
// concurrent requests wait side by side (npm run bench measures the suite against it). No clock is read: the tests
// look at the order of events and at the requests the server holds, so that a loaded machine cannot fail them.
import { type ReferenceServer, startReferenceServer } from '../../reference/server';
import { bearer, send } from '../../reference/test-client';
import { ConfigError, loadConfig } from '../../src/config/config';
import { expect, test } from '../../src/playwright/fixtures';

const AUTH = bearer(loadConfig({}).bearerToken);
const LATENCY_MS = 400;
/** Longer than any test: a request held this long is still held when the test looks, however slow the machine. */
const HELD_MS = 600_000;

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
      // Node fires timers of one duration in the order they were set: one set before the request, for the latency,
      // fires before the server's own, which the answer waits for.
      let latencyPassed = false;
      setTimeout(() => {
        latencyPassed = true;
      }, LATENCY_MS).unref();
      const late = await send(distant.url, '/v1/prices', { headers: AUTH });
      expect(latencyPassed, 'the latency had passed when the answer came').toBe(true);
      expect(late.status).toBe(expected.status);
      expect(late.value).toEqual(expected.value);
      const refused = await send(distant.url, '/v1/prices');
      expect(refused.status).toBe((await send(plain.url, '/v1/prices')).status);
    });
  });
});

test('concurrent requests wait side by side, not one after another', async () => {
  const requests = 4;
  const server = await startReferenceServer({ latencyMs: HELD_MS });
  const pending = Array.from({ length: requests }, () =>
    send(server.url, '/v1/prices', { headers: AUTH }).catch((e: unknown) => e),
  );
  // One after another, the second would wait for the first's answer, and no more than one would ever be held.
  await expect.poll(() => server.waiting, { message: 'requests held at once', timeout: 30_000 }).toBe(requests);
  await server.close();
  for (const outcome of await Promise.all(pending)) expect(outcome).toBeInstanceOf(Error);
});

test('closing the server does not wait for answers still delayed', async () => {
  const server = await startReferenceServer({ latencyMs: HELD_MS });
  const pending = send(server.url, '/v1/prices', { headers: AUTH }).catch((e: unknown) => e);
  await expect.poll(() => server.waiting, { message: 'the request is held', timeout: 30_000 }).toBe(1);
  // Waiting for the answer would outlast the test's time-out; the request fails instead of being answered.
  await server.close();
  expect(await pending).toBeInstanceOf(Error);
  expect(server.waiting, 'still held by its latency when the server closed').toBe(1);
});

test('RSF_REFERENCE_LATENCY_MS is a number of milliseconds from 0 to 10000, 0 by default', () => {
  expect(loadConfig({}).referenceLatencyMs).toBe(0);
  expect(loadConfig({ RSF_REFERENCE_LATENCY_MS: '150' }).referenceLatencyMs).toBe(150);
  for (const bad of ['-1', '10001', 'soon']) {
    expect(() => loadConfig({ RSF_REFERENCE_LATENCY_MS: bad }), bad).toThrow(ConfigError);
  }
});
