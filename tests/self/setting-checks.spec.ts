// Issue 23 item 6: every setting that names data on the target is either checked before the first test (reads; the
// tests' own updates when writes are on), giving ERROR that names it, or, when a refusal cannot tell it from
// non-conformance, named by the failure's hint with a way to check it by hand.
import { startReferenceServer } from '../../reference/server';
import { SETTINGS } from '../../src/config/config';
import { DATA_SETTINGS } from '../../src/config/settings/data';
import { SETTING_CHECKS } from '../../src/config/setting-checks';
import { expect, test } from '../../src/playwright/fixtures';
import { runSuiteIn } from './support/child-run';
import { preflightMessage } from './support/preflight-message';

test.describe.configure({ mode: 'parallel' });

const suite = (env: Record<string, string>, args: string[] = []) => runSuiteIn('settings', env, args, 120_000);

test('every data setting says how it is checked and what a wrong value gives', () => {
  const unlisted = Object.keys(DATA_SETTINGS).filter((key) => !(key in SETTING_CHECKS));
  expect(unlisted, 'data settings missing from src/config/setting-checks.ts').toEqual([]);
  for (const [key, check] of Object.entries(SETTING_CHECKS)) {
    expect(key in SETTINGS, key).toBe(true);
    expect(check?.how && check.wrong, key).toBeTruthy();
  }
  // What a refusal cannot tell from non-conformance says how to check it (issue 23 item 6).
  for (const key of ['cartAllowedType', 'shippingAddressValid'] as const) {
    expect(SETTING_CHECKS[key]?.howToCheck, key).toBeTruthy();
  }
});

test('with writes on, a wrong category, address or cart product stops the preflight, each named', async () => {
  const reference = await startReferenceServer({ bearerToken: 'the-token' });
  try {
    const message = await preflightMessage({
      RSF_TARGET_URL: reference.url,
      RSF_BEARER_TOKEN: 'the-token',
      RSF_ALLOW_WRITES: 'true',
      RSF_CATEGORY_ID: '777',
      RSF_ADDRESS_ID: '999',
      RSF_CART_PRODUCT_ID: '424243',
    });
    expect(message).toMatch(/3 settings do not name what the target has/);
    for (const named of [
      /RSF_CART_PRODUCT_ID=424243: GET \S+\/item\/424243 \(operation 8, §4\.8\) answered HTTP /,
      /RSF_CATEGORY_ID=777, RSF_CATEGORY_FIELDS=\{.*\}: PATCH \S+\/miCuenta\/misCategorias \(operation 4, §4\.4\)/,
      /RSF_ADDRESS_ID=999, RSF_ADDRESS_FIELDS=\{.*\}, RSF_PLACE_ID="PL-2000": PATCH \S+\/miCuenta\/shippingAddress/,
    ]) {
      expect(message).toMatch(named);
    }
  } finally {
    await reference.close();
  }
});

test('a refused cart type or shipping address: the failure names the setting and how to check it', async () => {
  test.setTimeout(150_000);
  const run = await suite({ RSF_CART_ALLOWED_TYPE: '99', RSF_SHIPPING_ADDRESS_VALID: 'no street number' }, [
    'cart.spec.ts',
    'shipping-quote.spec.ts',
  ]);
  expect(run.code, run.output.slice(-3000)).toBe(1);
  expect(run.verdict).toMatch(/^Conformance: FAIL — /);
  expect(run.output).toMatch(
    /RSF_CART_ALLOWED_TYPE=99[^\n]*How to check:[^\n]*RSF_CART_ALLOWED_TYPE: ask the target which item types/,
  );
  expect(run.output, 'a pattern is shown as its source').not.toContain('RSF_REJECTION_TEXT={}');
  expect(run.output).toMatch(
    /RSF_SHIPPING_ADDRESS_VALID=no street number[^\n]*How to check:[^\n]*RSF_SHIPPING_ADDRESS_VALID: send GET/,
  );
});
