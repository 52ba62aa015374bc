// Self-test of the configuration: defaults load, bad values are named, docs match the code.
import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import dotenv from 'dotenv';
import fc from 'fast-check';
import { ConfigError, SETTINGS, loadConfig, secretsOf } from '../../src/config/config';
import {
  characterAdded,
  caseCarriesNoMeaning,
  hexadecimalToken,
  lastCharacterChanged,
  lastCharacterDropped,
  nearMissTokens,
  otherCase,
} from '../../src/http/near-miss-tokens';
import { REDACTED, redact, registerSecret } from '../../src/http/redact';
import { authorizationHeader } from '../../src/http/request';
import { registerEnvSecrets, secretsToHide } from '../../src/playwright/secrets';
import {
  ENV_EXAMPLE_PATH,
  README_PATH,
  RUNNING_PATH,
  envExample,
  readmeWithTable,
  runningWithTable,
} from '../../src/config/config-docs';
import { expect, test } from '../../src/playwright/fixtures';
import { settingValues } from '../../src/playwright/conformance';
import { expiredJwtNote, jwtExpiry } from '../../src/config/jwt-expiry';
import { jwtWith } from './support/jwt';
import {
  EMBEDDED_URL_ENV,
  apiBase,
  displayTarget,
  normalizeTargetUrl,
  transportOptions,
} from '../../src/config/target';
import { RUN_NONCE_ENV, RUN_STATE_ENV } from '../../src/http/run-state';
import { EXCHANGES_DIR_ENV } from '../../src/evidence/exchange-log';
import { SELF_TEST_RUN_ENV } from './support/self-test-run';
import { REPORTERS_REPLACED_ENV } from '../../src/playwright/replaced-reporters';
import { Transport } from '../../src/http/transport';
import { validBodies } from '../../src/model/bodies';
import { OPERATIONS } from '../../src/model/operations';
import { outgoingRequest } from '../../src/http/request';
import { ApiClient } from '../../src/playwright/api-client';
import { referenceForThisFile } from './support/file-reference';
import { scratchDir } from './support/scratch';
import { SELF_SIGNED_CERT, SELF_SIGNED_KEY } from './support/self-signed';

test('the defaults load and target the embedded reference with writes on', () => {
  const config = loadConfig({});
  expect(config.embedded).toBe(true);
  expect(config.writesEnabled).toBe(true);
  expect(config.invalidBearerToken).not.toBe(config.bearerToken);
});

test('an external target is read-only unless RSF_ALLOW_WRITES is set', () => {
  expect(loadConfig({ RSF_TARGET_URL: 'https://staging.example/api' }).writesEnabled).toBe(false);
  expect(loadConfig({ RSF_TARGET_URL: 'https://staging.example/api', RSF_ALLOW_WRITES: 'true' }).writesEnabled).toBe(
    true,
  );
});

test('every bad value is reported at once, by variable name, without showing secrets', () => {
  const bad = {
    RSF_TARGET_URL: 'ftp://example',
    RSF_REQUEST_TIMEOUT_MS: '5',
    RSF_ADDRESS_ID: 'abc',
    RSF_CLIENT_BODY: '{"fiscalName": 1}',
    RSF_STOCK_LABEL_NONE: '(',
    RSF_ALLOW_WRITES: 'maybe',
  };
  let error: unknown;
  try {
    loadConfig(bad);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  const message = (error as Error).message;
  for (const name of Object.keys(bad)) expect(message).toContain(name);
  expect(message).toContain('client.request');
  expect(() =>
    loadConfig({ RSF_BEARER_TOKEN: 'same-token-value', RSF_INVALID_BEARER_TOKEN: 'same-token-value' }),
  ).toThrow(/must differ/);
});

test('a variable named almost like a setting is refused, naming the setting, never its value', () => {
  // Before, each was ignored: the run went to the embedded reference, and passed in the target's stead.
  const slips: [Record<string, string>, string][] = [
    [{ RSF_TARGET_ULR: 'https://staging.example' }, 'RSF_TARGET_ULR: .* did you mean RSF_TARGET_URL\\?'],
    [{ rsf_target_url: 'https://staging.example' }, 'rsf_target_url: .* did you mean RSF_TARGET_URL\\?'],
    [{ RSF_TARGET_URL_STAGING: 'https://staging.example' }, 'did you mean RSF_TARGET_URL\\?'],
    [{ RSF_BEARER_TOKN: 'secret-token-value' }, 'RSF_BEARER_TOKN: not a setting of this suite, so it would be ignored'],
  ];
  for (const [env, message] of slips) {
    expect(() => loadConfig(env), Object.keys(env)[0]).toThrow(new RegExp(message));
    expect(() => loadConfig(env)).not.toThrow(/staging\.example|secret-token-value/);
  }
  // The suite's own variables, those of its other commands and its workflows, and others far from every setting's
  // name, are left alone.
  const ownNames = [
    EMBEDDED_URL_ENV,
    RUN_STATE_ENV,
    RUN_NONCE_ENV,
    EXCHANGES_DIR_ENV,
    SELF_TEST_RUN_ENV,
    REPORTERS_REPLACED_ENV,
  ];
  const otherNames = ['RSF_BUNDLE_SIGNING_KEY', 'RSF_MATRIX_ROUNDS', 'RSF_SETTINGS', 'RSF_HOME'];
  const others = Object.fromEntries([...ownNames, ...otherNames].map((name) => [name, 'x']));
  expect(() => loadConfig(others)).not.toThrow();
});

test('a token or target URL set in quotes (kept by the environment, dropped by .env) is refused, saying so', () => {
  const kept = /it is in quotes, which a variable set in the environment keeps: set it without them/;
  expect(() => loadConfig({ RSF_BEARER_TOKEN: '"s3cr3t-t0ken-1"' })).toThrow(kept);
  expect(() => loadConfig({ RSF_BEARER_TOKEN: '"s3cr3t-t0ken-1"' })).not.toThrow(/s3cr3t-t0ken-1/);
  expect(() => loadConfig({ RSF_TARGET_URL: "'https://staging.example/api'" })).toThrow(kept);
  expect(() => loadConfig({ RSF_TARGET_URL: 'https://staging.example/api' })).not.toThrow();
});

test('a token too short to be redacted safely is refused', () => {
  expect(() => loadConfig({ RSF_CHANNEL_TOKEN: 'abc' })).toThrow(/RSF_CHANNEL_TOKEN: must be at least 8 characters/);
  expect(() => loadConfig({ RSF_CHANNEL_TOKEN: 'abc' })).not.toThrow(/abc/);
});

test('a Bearer token given with its scheme, or as more than one word, is refused without showing it', () => {
  const prefixed = { RSF_BEARER_TOKEN: 'Bearer abcdefgh12345' };
  expect(() => loadConfig(prefixed)).toThrow(
    /RSF_BEARER_TOKEN: give the token alone, without "Bearer ": the suite sends /,
  );
  expect(() => loadConfig(prefixed)).not.toThrow(/abcdefgh12345/);
  expect(() => loadConfig({ RSF_BEARER_TOKEN: 'abcdefgh 12345' })).toThrow(
    /RSF_BEARER_TOKEN: must be the token alone, one word/,
  );
  expect(() => loadConfig({ RSF_BEARER_TOKEN: 'abcdefgh12345' })).not.toThrow();
});

test('the Bearer and channel tokens are the secrets to redact', () => {
  const secrets = secretsOf(
    loadConfig({
      RSF_BEARER_TOKEN: 'bearer-secret-1',
      RSF_CHANNEL_TOKEN: 'channel-secret-2',
      RSF_INVALID_BEARER_TOKEN: 'invalid-secret-3',
    }),
  );
  expect(secrets).toEqual(expect.arrayContaining(['bearer-secret-1', 'channel-secret-2', 'invalid-secret-3']));
});

test('the near misses of the Bearer token are secrets too, from the config and from the environment', () => {
  const nearMisses = ['bearer-secret-V', 'bearer-secret-', 'bearer-secret-1A', 'BEARER-SECRET-1'];
  expect(nearMissTokens('bearer-secret-1')).toEqual(nearMisses);
  expect(secretsToHide(loadConfig({ RSF_BEARER_TOKEN: 'bearer-secret-1' }))).toEqual(
    expect.arrayContaining(['bearer-secret-1', ...nearMisses]),
  );
  registerEnvSecrets({ RSF_BEARER_TOKEN: 'env-token-ab9' });
  expect(redact('Bearer env-token-abd or ENV-TOKEN-AB9')).toBe(`Bearer ${REDACTED} or ${REDACTED}`);
  // The token with one character more holds the token: redacted whole, not as the token and a character after it.
  expect(redact('Bearer env-token-ab9A and Bearer env-token-ab')).toBe(`Bearer ${REDACTED} and Bearer ${REDACTED}`);
});

test('a secret is redacted in each of its forms in one pass, its characters taken literally, as soon as known', () => {
  // redact() matches one pattern of every form: a secret's own characters must not act as the pattern's.
  const secret = 'a.b+c$(d)|e*[f]?g\\h^{2}';
  expect(redact(`x ${secret} y`)).toBe(`x ${secret} y`); // not known yet
  registerSecret(secret);
  const base64 = Buffer.from(`Bearer ${secret}`).toString('base64');
  expect(redact(`x ${secret} y ${encodeURIComponent(secret)} z`)).toBe(`x ${REDACTED} y ${REDACTED} z`);
  expect(redact(base64)).toContain(REDACTED);
  expect(redact(base64)).not.toContain(Buffer.from(secret).toString('base64').slice(4, 16));
  expect(redact('a.b+c and abbc')).toBe('a.b+c and abbc');
});

test('a near-miss token is the token one character off at its end, or in the other case of its letters', () => {
  expect(lastCharacterDropped('reference-bearer-token')).toBe('reference-bearer-toke');
  expect(characterAdded('reference-bearer-token')).toBe('reference-bearer-tokenA');
  // In the token's alphabet: a hexadecimal token or a number gets a digit.
  expect(characterAdded('0f3a9c')).toBe('0f3a9c0');
  expect(characterAdded('123456')).toBe('1234560');
  expect(lastCharacterChanged('reference-bearer-token')).toBe('reference-bearer-tokeH');
  expect(lastCharacterChanged('abcdefZ')).toBe('abcdef5');
  expect(lastCharacterChanged('token-=')).toBe('token-x');
  // In the token's own alphabet: a hex digit (a UUID's), a digit, a base64 digit.
  expect(lastCharacterChanged('3f2504e0-4f89-11d3-9a0c-0305e82c3301')).toBe('3f2504e0-4f89-11d3-9a0c-0305e82c3309');
  expect(lastCharacterChanged('DEADBEE7')).toBe('DEADBEEF');
  expect(lastCharacterChanged('20261128')).toBe('20261123');
  expect(lastCharacterChanged('a+b/c')).toBe('a+b/8');
  // An RS256 JWT's signature (256 bytes) ends in a base64url digit of which only 2 bits are data: another digit that
  // kept them would name the same signature, which a target would rightly accept.
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 1, maxLength: 300 }), (bytes) => {
      const signature = Buffer.from(bytes).toString('base64url');
      const changed = lastCharacterChanged(`eyJhbGciOiJSUzI1NiJ9.e30.${signature}`).split('.')[2] as string;
      assert.ok(!Buffer.from(changed, 'base64url').equals(Buffer.from(bytes)), `${signature} → ${changed}`);
    }),
    { numRuns: 300 },
  );
  expect(otherCase('Ref-Token-1')).toBe('rEF-tOKEN-1');
  expect(otherCase('1234-5678'), 'no letter, no other case').toBeUndefined();
  // A UUID's other case is the same UUID (RFC 9562 §4): its probe is not sent.
  expect(hexadecimalToken('3f2504e0-4f89-11d3-9a0c-0305e82c3301')).toBe(true);
  expect(hexadecimalToken('DEADBEEF00')).toBe(true);
  for (const token of ['Ref-Token-1', 'reference-bearer-token', '1234-5678', 'eyJhbGciOiJIUzI1NiJ9.e30.x'])
    expect(hexadecimalToken(token), token).toBe(false);
  // Letters in one case (hexadecimal, base32, base36): the other case may be the same token, its probe is not sent.
  for (const token of ['3f2504e0-4f89-11d3', '9KX4RTZ2MWQ8HV5NCJ3PDY6GBE0SA1F7', 'QW7M-3KZR-9XVT', 'reference-token'])
    expect(caseCarriesNoMeaning(token), token).toBe(true);
  for (const token of ['Reference-Bearer-Token', 'eyJhbGciOiJIUzI1NiJ9.e30.x', '1234-5678'])
    expect(caseCarriesNoMeaning(token), token).toBe(false);
  // A variant that may be the token itself is not even built, so that it is not sent ahead of its test (a DELETE would
  // use up its product): the other case of a token in one case, the channel token when it is the Bearer token.
  const tokens = (bearerToken: string, channelToken = 'Channel-Token') => ({
    bearerToken,
    invalidBearerToken: 'x',
    channelToken,
  });
  expect(() => authorizationHeader('other-case', tokens('9KX4RTZ2MWQ8'))).toThrow(/one case/);
  expect(authorizationHeader('other-case', tokens('Ref-Token-1'))).toBe('Bearer rEF-tOKEN-1');
  expect(() => authorizationHeader('channel-token', tokens('Same', 'Same'))).toThrow(/Bearer token itself/);
  // A channel token goes in a path (§5.3), which takes any character percent-encoded; a header does not.
  for (const channel of ['canal-🔑-密钥-7001', 'canal-ñandú', 'tab\there'])
    expect(() => authorizationHeader('channel-token', tokens('Ref-Token-1', channel)), channel).toThrow(
      /visible ASCII/,
    );
  expect(authorizationHeader('channel-token', tokens('Ref-Token-1', 'chn-7 x'))).toBe('Bearer chn-7 x');
  expect(() => authorizationHeader('undefined-token', tokens('undefined'))).toThrow(/the word undefined/);
  expect(authorizationHeader('null-token', tokens('Ref-Token-1'))).toBe('Bearer null');
  expect(authorizationHeader('lowercase-scheme-unknown-token', tokens('Ref-Token-1'))).toMatch(
    /^bearer (?!Ref-Token-1$)/,
  );
  fc.assert(
    fc.property(fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme-ascii' }), (token) => {
      const changed = [...lastCharacterChanged(token)];
      const chars = [...token];
      assert.equal(changed.length, chars.length);
      assert.deepEqual(changed.slice(0, -1), chars.slice(0, -1));
      assert.notEqual(changed.at(-1), chars.at(-1));
      const swapped = otherCase(token);
      if (swapped === undefined) assert.equal(token.toLowerCase(), token.toUpperCase());
      else {
        assert.notEqual(swapped, token);
        assert.equal(swapped.toLowerCase(), token.toLowerCase());
      }
      assert.ok(!nearMissTokens(token).includes(token), 'a near miss is never the token');
    }),
    { numRuns: 500 },
  );
});

test('a pattern setting matches without regard to case, or as a /…/flags literal with those flags only', () => {
  expect(loadConfig({ RSF_REJECTION_TEXT: '^ERROR' }).rejectionText.test('errores: 0')).toBe(true);
  const exact = loadConfig({ RSF_REJECTION_TEXT: '/^ERROR/u' }).rejectionText;
  expect([exact.test('ERROR: no such product'), exact.test('errores: 0; 1 línea')]).toEqual([true, false]);
  expect(loadConfig({ RSF_STOCK_LABEL_EXACT: '/^(\\d+) u\\/s$/i' }).stockLabelExact.test('3 U/S')).toBe(true);
  expect(() => loadConfig({ RSF_REJECTION_TEXT: '/(/u' })).toThrow(
    /RSF_REJECTION_TEXT: not a valid regular expression/,
  );
});

test('an id beyond 2^53 − 1, which JavaScript would round and send as another, is refused, naming both', () => {
  const rounded = /is beyond 2\^53 − 1 \(9007199254740991\), which JavaScript rounds \(to 1580000000000000000\)/;
  expect(() => loadConfig({ RSF_ADDRESS_ID: '1580000000000000001' })).toThrow(rounded);
  expect(() => loadConfig({ RSF_ADDRESS_ID: '1580000000000000001' })).toThrow(/^ {2}- RSF_ADDRESS_ID: 1580/m);
  // An id only put in a path is sent as written, any size: the post-sale channel of §4.14 and §4.15.
  expect(loadConfig({ RSF_POSTSALE_ID: '1580000000000000001' }).postSaleId).toBe('1580000000000000001');
  expect(() => loadConfig({ RSF_POSTSALE_ID: '7001x' })).toThrow(/RSF_POSTSALE_ID: expected an integer/);
  // In a setting of JSON, a number is refused, and the same id in a string kept as it is.
  expect(() => loadConfig({ RSF_CATEGORY_ID: '1580000000000000001' })).toThrow(rounded);
  expect(() => loadConfig({ RSF_CLIENT_BODY: '{"clientPostalCode": 1580000000000000001}' })).toThrow(rounded);
  expect(loadConfig({ RSF_CATEGORY_ID: '"1580000000000000001"' }).categoryId).toBe('1580000000000000001');
  // What a number holds exactly is sent as set: 2^53 itself, and a decimal.
  expect(loadConfig({ RSF_ADDRESS_ID: '9007199254740992' }).addressId).toBe(2 ** 53);
  for (const fields of [
    '{"utility": 12.3456789012345678}',
    '{"utility": 0.12345678901234567890}',
    '{"utility": 1e-12345678901234567}',
  ])
    expect(() => loadConfig({ RSF_CATEGORY_FIELDS: fields }), fields).not.toThrow(/beyond 2\^53/);
});

test('RSF_EXTRA_HEADERS: every request carries them, their values are secrets, and a bad one is refused unseen', () => {
  const key = 'k3y-of-the-gateway';
  const config = loadConfig({ RSF_EXTRA_HEADERS: JSON.stringify({ 'x-api-key': key, 'User-Agent': 'ci-runner' }) });
  const request = outgoingRequest(OPERATIONS.listPrices, {}, config, 'https://api.example/v1');
  expect(request.headers).toMatchObject({ 'x-api-key': key, 'User-Agent': 'ci-runner', Accept: 'application/json' });
  const unauthenticated = outgoingRequest(OPERATIONS.listPrices, { credentials: 'none' }, config, 'https://x/v1');
  expect(unauthenticated.headers, 'a gateway sees its key on the refusal probes too').toHaveProperty('x-api-key', key);
  expect(secretsOf(config)).toContain(key);
  expect(loadConfig().extraHeaders).toEqual({});

  const refused = {
    'x-api-key': /not valid JSON/,
    '["x-api-key", "k3y"]': /expected a JSON object/,
    '{"Authorization": "Basic k3y"}': /Authorization is a header the suite sets itself/,
    '{"content-type": "k3y"}': /content-type is a header the suite sets itself/,
    '{"x api key": "k3y"}': /a header name has a character HTTP does not allow/,
    '{"x-api-key": 12345}': /the value of x-api-key must be a string on one line/,
    '{"x-api-key": "k3y\\r\\nx-other: 1"}': /the value of x-api-key must be a string on one line/,
    '{"X-Key": "k3y", "x-key": "k3y"}': /x-key is given twice/,
  };
  for (const [raw, message] of Object.entries(refused)) {
    expect(() => loadConfig({ RSF_EXTRA_HEADERS: raw }), raw).toThrow(message);
    expect(() => loadConfig({ RSF_EXTRA_HEADERS: raw }), raw).not.toThrow(/k3y/);
  }
});

test('a client certificate is checked at start: both files, a certificate, its own key, the passphrase', () => {
  const dir = scratchDir('client-certificate');
  const encrypted = join(dir, 'encrypted.key.pem');
  const passphrase = 'open-5esame';
  const key = createPrivateKey(readFileSync(SELF_SIGNED_KEY));
  writeFileSync(encrypted, key.export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase }));
  const another = join(dir, 'another.key.pem');
  writeFileSync(
    another,
    generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }),
  );
  const load = (env: Record<string, string>) => () => loadConfig(env);

  const config = loadConfig({ RSF_TLS_CLIENT_CERT: SELF_SIGNED_CERT, RSF_TLS_CLIENT_KEY: SELF_SIGNED_KEY });
  expect(transportOptions(config).clientCertificate?.cert).toEqual(readFileSync(SELF_SIGNED_CERT));
  expect(loadConfig().clientCertificate).toBeUndefined();
  const opened = { RSF_TLS_CLIENT_CERT: SELF_SIGNED_CERT, RSF_TLS_CLIENT_KEY: encrypted };
  expect(loadConfig({ ...opened, RSF_TLS_CLIENT_KEY_PASSPHRASE: passphrase }).clientCertificate?.passphrase).toBe(
    passphrase,
  );

  expect(load({ RSF_TLS_CLIENT_CERT: SELF_SIGNED_CERT })).toThrow(/go together: set both, or neither/);
  expect(load({ RSF_TLS_CLIENT_CERT: join(dir, 'none.pem'), RSF_TLS_CLIENT_KEY: SELF_SIGNED_KEY })).toThrow(
    /RSF_TLS_CLIENT_CERT: .*none\.pem cannot be read \(ENOENT\)/,
  );
  expect(load({ RSF_TLS_CLIENT_CERT: SELF_SIGNED_KEY, RSF_TLS_CLIENT_KEY: SELF_SIGNED_KEY })).toThrow(
    /is not a PEM certificate/,
  );
  expect(load({ RSF_TLS_CLIENT_CERT: SELF_SIGNED_CERT, RSF_TLS_CLIENT_KEY: another })).toThrow(
    /another\.key\.pem is not the key of the certificate in RSF_TLS_CLIENT_CERT/,
  );
  expect(load(opened)).toThrow(/an encrypted key needs RSF_TLS_CLIENT_KEY_PASSPHRASE/);
  expect(load({ ...opened, RSF_TLS_CLIENT_KEY_PASSPHRASE: 'wrong-passphrase' })).toThrow(/or the passphrase is wrong/);
  expect(load({ ...opened, RSF_TLS_CLIENT_KEY_PASSPHRASE: 'wrong-passphrase' })).not.toThrow(/wrong-passphrase/);
});

test('the target URL may be given with or without /v1 and trailing slashes', () => {
  for (const url of [
    'https://api.example/base',
    'https://api.example/base/',
    'https://api.example/base/v1',
    'https://api.example/base/v1/',
  ]) {
    expect(normalizeTargetUrl(url)).toBe('https://api.example/base');
    expect(apiBase(loadConfig({ RSF_TARGET_URL: url }))).toBe('https://api.example/base/v1');
  }
  expect(displayTarget(loadConfig({ RSF_TARGET_URL: 'https://api.example/base/v1' }))).toBe('https://api.example/base');
  expect(() => loadConfig({ RSF_TARGET_URL: 'https://api.example/base?key=abc' })).toThrow(
    /RSF_TARGET_URL: must not carry a query string/,
  );
});

test('a target URL without http:// is refused with the URL it may have meant', () => {
  for (const [url, reason] of [
    ['localhost:4010', 'expected an http or https URL, got "localhost:4010"'],
    ['127.0.0.1:4010/api', 'not a URL: "127.0.0.1:4010/api"'],
  ]) {
    expect(() => loadConfig({ RSF_TARGET_URL: url }), url).toThrow(`${reason} (did you mean "http://${url}"?)`);
  }
  expect(() => loadConfig({ RSF_TARGET_URL: 'ftp://example' })).not.toThrow(/did you mean/);
  // A colon left out: not "http://https//…".
  expect(() => loadConfig({ RSF_TARGET_URL: 'https//staging.example/api' })).toThrow(
    'not a URL: "https//staging.example/api" (did you mean "https://staging.example/api"?)',
  );
});

test('a target URL refused for its credentials or query string is shown without them', () => {
  const refused = {
    'https://alice:s3cr3t@api.example/base': 'https://[REDACTED]@api.example/base',
    'https://t0ken@api.example/base/v1': 'https://[REDACTED]@api.example/base/v1',
    'https://api.example/base?api_key=s3cr3t': 'https://api.example/base?[REDACTED]',
    'https://api.example/base#s3cr3t': 'https://api.example/base#[REDACTED]',
    'https://alice:s3 cr3t@api.example/base': 'https://[REDACTED]@api.example/base',
    // Without a scheme: refused for that, and the credentials still not shown.
    'alice:s3cr3t@api.example/base': '[REDACTED]@api.example/base',
  };
  for (const [url, shown] of Object.entries(refused)) {
    expect(() => loadConfig({ RSF_TARGET_URL: url }), url).toThrow(`(RSF_TARGET_URL=${shown})`);
    expect(() => loadConfig({ RSF_TARGET_URL: url }), url).not.toThrow(/s3cr3t|alice|t0ken|s3 cr3t/);
  }
});

test('README, docs/running.md and .env.example document every setting, as the code defines them', () => {
  expect(readFileSync(ENV_EXAMPLE_PATH, 'utf8'), 'stale .env.example: run npm run docs:config').toBe(envExample());
  const readme = readFileSync(README_PATH, 'utf8');
  expect(readme, 'stale README configuration table: run npm run docs:config').toBe(readmeWithTable(readme));
  for (const setting of Object.values(SETTINGS)) expect(readme).toContain(`\`${setting.name}\``);
  const running = readFileSync(RUNNING_PATH, 'utf8');
  expect(running, 'stale docs/running.md settings table: run npm run docs:config').toBe(runningWithTable(running));
});

test('.env.example, its lines uncommented as a user copies it to .env, gives every setting its default', () => {
  const uncommented = readFileSync(ENV_EXAMPLE_PATH, 'utf8').replace(/^# (RSF_[A-Z_]+=)/gm, '$1');
  const read = dotenv.parse(uncommented);
  for (const setting of Object.values(SETTINGS))
    if (!setting.secret) expect(read[setting.name], setting.name).toBe(setting.default);
  // The one that needs it: a JSON string, whose quotes dotenv drops unless they are inside single quotes.
  expect(uncommented).toContain(`RSF_PLACE_ID='${SETTINGS.placeId.default}'`);
});

test.describe("expect's matchers", () => {
  const { secrets, server } = referenceForThisFile();

  test('judge an exchange by the configuration it was sent under, and refuse one no client sent', async () => {
    const updateClient = async (env: Record<string, string>) => {
      const config = loadConfig({
        RSF_TARGET_URL: server().url,
        RSF_BEARER_TOKEN: secrets.bearer,
        RSF_CHANNEL_TOKEN: secrets.channel,
        ...env,
      });
      const transport = new Transport(transportOptions(config), apiBase(config), 1);
      const exchange = await new ApiClient(transport, config).call('updateClient', {
        json: validBodies(config).client(),
      });
      await transport.settle();
      return exchange;
    };
    const plain = await updateClient({});
    // The same answer, under a success pattern it cannot match, is not a success.
    const strict = await updateClient({ RSF_CLIENT_SUCCESS_STATUS: '^never$' });
    expect(plain).toSucceed();
    expect(strict).toBeRejected();
    let message = '';
    try {
      expect(strict).toSucceed();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('RSF_CLIENT_SUCCESS_STATUS /^never$/iu');
    expect(message).not.toContain(secrets.bearer);
    // A copy: the same answer, but no client sent it, so no configuration says how to judge it.
    expect(() => expect({ ...plain }).toSucceed()).toThrow(/judge an exchange sent by the api fixture/);
  });
});

test("a JWT's exp claim says when it expired, for a refused token's message; anything else says nothing", () => {
  const now = new Date('2026-11-28T12:00:00Z');
  const expired = jwtWith({ sub: 'reseller-42', exp: Date.parse('2026-11-28T10:30:00Z') / 1000 });
  expect(jwtExpiry(expired)?.toISOString()).toBe('2026-11-28T10:30:00.000Z');
  expect(expiredJwtNote(expired, now)).toBe(
    ' The token is a JWT whose exp claim says it expired at 2026-11-28T10:30:00.000Z, 90 min ago.',
  );
  expect(expiredJwtNote(jwtWith({ exp: Date.parse('2026-11-27T12:00:00Z') / 1000 }), now)).toContain(', 24 h ago.');
  // Not yet expired here (the target's clock is its own), no exp claim, not a JWT, a payload that is not JSON.
  for (const token of [
    jwtWith({ exp: Date.parse('2026-11-28T13:00:00Z') / 1000 }),
    jwtWith({ sub: 'x' }),
    jwtWith(null),
    'opaque-access-token-0123456789',
    'a.%%%.c',
  ])
    expect(expiredJwtNote(token, now), token).toBe('');
});

test("a failure's hint shows each setting as it is written: a JSON setting's string quoted", () => {
  // indep116: RSF_CATEGORY_ID="10" was shown as RSF_CATEGORY_ID=10, the other JSON type, which a target may refuse.
  const shown = (env: Record<string, string>) =>
    settingValues(loadConfig(env), ['categoryId', 'placeId', 'channelUserId', 'productId']);
  expect(shown({ RSF_CATEGORY_ID: '"10"', RSF_PLACE_ID: '"PL-2000"', RSF_CHANNEL_USER_ID: 'u-42' })).toBe(
    'RSF_CATEGORY_ID="10", RSF_PLACE_ID="PL-2000", RSF_CHANNEL_USER_ID=u-42, RSF_PRODUCT_ID=1001',
  );
  expect(shown({ RSF_CATEGORY_ID: '10' })).toMatch(/^RSF_CATEGORY_ID=10, /);
});
