// Every target-specific value, read from the environment (and .env), checked once, typed.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import dotenv from 'dotenv';
import { SAMPLE_BODIES, STREET_FIELDS } from '../model/operations';
import { schemas } from '../model/schema-registry';

/**
 * Reads .env into process.env; a variable already set, even to '', wins. The entry points call it
 * (playwright.config.ts, the merge config): importing this module reads nothing.
 */
export function loadEnvFile(): void {
  dotenv.config({ path: resolve(__dirname, '../../.env'), quiet: true });
}

type Env = Record<string, string | undefined>;

/** A value the user may set, its default (fitting the embedded reference) and what it means. */
interface Setting<T> {
  name: string;
  doc: string;
  default: string;
  parse: (raw: string) => T;
  secret?: boolean;
}

class ConfigProblem extends Error {}

const text = (raw: string): string => raw;
const integer = (raw: string): number => {
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigProblem(`expected an integer, got "${raw}"`);
  return Number(raw);
};
const bounded =
  (min: number, max: number) =>
  (raw: string): number => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min || n > max)
      throw new ConfigProblem(`expected a number from ${min} to ${max}, got "${raw}"`);
    return n;
  };
/** Empty means "decided by the target": see resolveTargetDefaults. */
const optional =
  <T>(parse: (raw: string) => T) =>
  (raw: string): T | undefined =>
    raw === '' ? undefined : parse(raw);
const flag = (raw: string): boolean => {
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off|)$/i.test(raw)) return false;
  throw new ConfigProblem(`expected true or false, got "${raw}"`);
};
const list =
  <T>(item: (raw: string) => T) =>
  (raw: string): T[] => {
    const parts = raw
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    if (parts.length === 0) throw new ConfigProblem('expected a comma-separated list with at least one value');
    return parts.map(item);
  };
const regex = (raw: string): RegExp => {
  try {
    return new RegExp(raw, 'iu');
  } catch (e) {
    throw new ConfigProblem(`not a valid regular expression: ${(e as Error).message}`);
  }
};
const url = (raw: string): string => {
  if (raw === '') return '';
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigProblem(`not a URL: "${raw}"`);
  }
  if (!/^https?:$/.test(parsed.protocol)) throw new ConfigProblem(`expected an http or https URL, got "${raw}"`);
  if (parsed.username || parsed.password) throw new ConfigProblem('must not carry credentials; use RSF_BEARER_TOKEN');
  if (parsed.search || parsed.hash)
    throw new ConfigProblem('must not carry a query string or fragment: operation paths are appended to it');
  return raw;
};
const port = (raw: string): number => {
  if (!/^\d+$/.test(raw) || Number(raw) > 65535)
    throw new ConfigProblem(`expected a port number from 0 to 65535, got "${raw}"`);
  return Number(raw);
};
const json =
  (schema?: string) =>
  (raw: string): unknown => {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      throw new ConfigProblem(`not valid JSON: ${(e as Error).message}`);
    }
    if (schema) {
      const verdict = schemas().validate(schema, value);
      if (!verdict.valid)
        throw new ConfigProblem(`does not match schemas/${schema}.schema.json: ${verdict.errors.join('; ')}`);
    }
    return value;
  };

/** Shorter values could not be told apart from ordinary text, so they could not be redacted safely. */
const MIN_SECRET_LENGTH = 8;
const secretText = (raw: string): string => {
  if (raw !== '' && raw.length < MIN_SECRET_LENGTH)
    throw new ConfigProblem(
      `must be at least ${MIN_SECRET_LENGTH} characters, so that it can be redacted from every output`,
    );
  return raw;
};

/** The exit policies of RSF_FAIL_ON. */
export const FAIL_ON = ['must', 'regression', 'strict'] as const;
export type FailOn = (typeof FAIL_ON)[number];

const oneOf =
  <T extends string>(values: readonly T[]) =>
  (raw: string): T => {
    if (!(values as readonly string[]).includes(raw))
      throw new ConfigProblem(`expected one of ${values.join(', ')}, got "${raw}"`);
    return raw as T;
  };
const existingFile = (raw: string): string => {
  if (raw !== '' && !existsSync(resolve(raw))) throw new ConfigProblem(`no such file: ${resolve(raw)}`);
  return raw;
};

/**
 * The exit policy that RSF_FAIL_ON and RSF_STRICT ask for together: RSF_STRICT=true is another way to ask for strict,
 * so it contradicts any other RSF_FAIL_ON; regression needs a baseline to compare with.
 */
export function exitPolicy(failOn: FailOn | undefined, strict: boolean, baseline: string): FailOn {
  if (strict && failOn !== undefined && failOn !== 'strict') {
    throw new ConfigError([`RSF_STRICT=true asks for RSF_FAIL_ON=strict, but RSF_FAIL_ON=${failOn}: set one of them`]);
  }
  const policy = failOn ?? (strict ? 'strict' : 'must');
  if (policy === 'regression' && baseline === '') {
    throw new ConfigError(['RSF_FAIL_ON=regression needs RSF_BASELINE, the conformance.json of an earlier run']);
  }
  return policy;
}

const S = <T>(name: string, def: string, parse: (raw: string) => T, doc: string, secret = false): Setting<T> => ({
  name,
  default: def,
  parse,
  doc,
  secret,
});

/** The sample bodies of src/model/operations.ts, as defaults: the reference's seed data match them too. */
const sample = (value: unknown): string => JSON.stringify(value);
const { categoryId: sampleCategoryId, ...sampleCategoryFields } = SAMPLE_BODIES.updateCategory;
const sampleAddress = SAMPLE_BODIES.createShippingAddress;
const sampleStreet = Object.fromEntries(STREET_FIELDS.map((field) => [field, sampleAddress[field]]));
const [sampleCartItem] = SAMPLE_BODIES.updateCartItems;

/** The settings, in the order the README and .env.example list them. */
export const SETTINGS = {
  targetUrl: S(
    'RSF_TARGET_URL',
    '',
    url,
    'Base URL of the target, with or without a trailing /v1 or slash. Empty: start the embedded reference server.',
  ),
  bearerToken: S(
    'RSF_BEARER_TOKEN',
    'reference-bearer-token',
    secretText,
    'Access token sent as "Authorization: Bearer …" (§5.1).',
    true,
  ),
  invalidBearerToken: S(
    'RSF_INVALID_BEARER_TOKEN',
    '',
    secretText,
    'A token the target must refuse. Empty: a random one per run.',
    true,
  ),
  allowWrites: S(
    'RSF_ALLOW_WRITES',
    'false',
    flag,
    'Run requests that a conforming target carries out (client update, addresses, categories, cart, ' +
      'payment preference, deletion, post-sale). Always on against the embedded reference.',
  ),
  requestTimeoutMs: S(
    'RSF_REQUEST_TIMEOUT_MS',
    '10000',
    bounded(100, 120000),
    'Time-out of one request, in milliseconds (100 to 120000).',
  ),
  maxRequestsPerSecond: S(
    'RSF_MAX_REQUESTS_PER_SECOND',
    '',
    optional(bounded(0, 10000)),
    'Upper bound on requests per second, over all workers; 0 means unbounded. ' +
      'Empty: 10 against an external target, unbounded against the embedded reference.',
  ),
  maxResponseBytes: S(
    'RSF_MAX_RESPONSE_BYTES',
    '4194304',
    bounded(1024, 1073741824),
    'Response bodies are read up to this many bytes, counted after decompression (1024 to 1073741824); ' +
      'a larger one fails its check with "response larger than N bytes".',
  ),
  maxRetries: S(
    'RSF_MAX_RETRIES',
    '5',
    bounded(0, 20),
    'Times a request is sent again after HTTP 429, or 503 with Retry-After (0 to 20). ' +
      'A check whose every attempt was throttled is inconclusive, never failed.',
  ),
  retryMaxWaitMs: S(
    'RSF_RETRY_MAX_WAIT_MS',
    '30000',
    bounded(0, 600000),
    'Longest wait before a retry, in milliseconds (0 to 600000): Retry-After is honoured up to it; ' +
      'without one, exponential back-off with jitter.',
  ),
  productId: S('RSF_PRODUCT_ID', '1001', text, 'An existing product, for product detail (operation 8).'),
  missingProductId: S(
    'RSF_MISSING_PRODUCT_ID',
    '999999',
    integer,
    'A product id that does not exist (operations 5 and 8).',
  ),
  stockProductIds: S(
    'RSF_STOCK_PRODUCT_IDS',
    '1001,1002,1003,1004,1005',
    list(text),
    'Products whose logged-in stock fields are checked (§2.6, §8); ' +
      'cover stock above, at and below the display limit, and none.',
  ),
  productDetailQuery: S(
    'RSF_PRODUCT_DETAIL_QUERY',
    '',
    text,
    'Query string added to product detail requests, e.g. "type=1" (§4.8 leaves the price-context parameter open).',
  ),
  categoryId: S(
    'RSF_CATEGORY_ID',
    sample(sampleCategoryId),
    json(),
    'An existing personal category, as JSON (a number, or a quoted string: its declared type is not shown, §4.4).',
  ),
  missingCategoryId: S('RSF_MISSING_CATEGORY_ID', '99999', json(), 'A category that does not exist, as JSON.'),
  categoryFields: S(
    'RSF_CATEGORY_FIELDS',
    sample(sampleCategoryFields),
    json(),
    'utility, description and hide sent when updating RSF_CATEGORY_ID, ' +
      'as a JSON object (it is updated for real when writes are allowed).',
  ),
  addressId: S(
    'RSF_ADDRESS_ID',
    sample(SAMPLE_BODIES.updateShippingAddress.idDirCli),
    integer,
    'idDirCli of an existing shipping address (operation 3).',
  ),
  placeId: S(
    'RSF_PLACE_ID',
    sample(sampleAddress.placeId),
    json(),
    'A valid placeId, as JSON (a quoted string per §4.2).',
  ),
  provinceId: S('RSF_PROVINCE_ID', '21', integer, 'A valid provinceId (§4.2).'),
  placeString: S('RSF_PLACE_STRING', 'Rosario', text, 'A locality name that goes with RSF_PROVINCE_ID (§4.2).'),
  addressFields: S(
    'RSF_ADDRESS_FIELDS',
    sample(sampleStreet),
    json(),
    'direccion, telefono and codigoPostal used to create and update addresses, as a JSON object.',
  ),
  clientBody: S(
    'RSF_CLIENT_BODY',
    sample(SAMPLE_BODIES.updateClient),
    json('client.request'),
    'A valid body for PATCH /client (§2.1), as JSON; without the optional fields.',
  ),
  clientWebsite: S(
    'RSF_CLIENT_WEBSITE',
    'https://ferreteria-modelo.example',
    text,
    'A valid clientWebsite, for the optional-fields check (§4.1).',
  ),
  cartProductId: S(
    'RSF_CART_PRODUCT_ID',
    sample(sampleCartItem.productId),
    integer,
    'A product that can be put in the cart (operation 5).',
  ),
  cartAmount: S('RSF_CART_AMOUNT', sample(sampleCartItem.amount), integer, 'The amount used for cart items.'),
  cartAllowedType: S(
    'RSF_CART_ALLOWED_TYPE',
    sample(sampleCartItem.type),
    integer,
    'An item type the cart accepts (§4.5 leaves the values open).',
  ),
  cartDisallowedType: S('RSF_CART_DISALLOWED_TYPE', '99', integer, 'An item type the cart must refuse.'),
  paymentPreferenceBody: S(
    'RSF_PAYMENT_PREFERENCE_BODY',
    sample(SAMPLE_BODIES.createPaymentPreference),
    json('payment-preference.request'),
    'A valid payment preference request (§2.5), as JSON.',
  ),
  shippingPostalCode: S(
    'RSF_SHIPPING_POSTAL_CODE',
    '2000',
    text,
    'codigoPostalFavorito for the shipping quote (operation 7).',
  ),
  shippingAddressValid: S(
    'RSF_SHIPPING_ADDRESS_VALID',
    'Cordoba 1234, Rosario',
    text,
    'A full address the target can quote (operation 7).',
  ),
  shippingAddressInvalid: S(
    'RSF_SHIPPING_ADDRESS_INVALID',
    'no street number',
    text,
    'A full address the target must refuse as not valid (§4.7).',
  ),
  orderBranch: S('RSF_ORDER_BRANCH', '1', text, 'branch of an existing order (operation 11).'),
  orderAlbNumber: S('RSF_ORDER_ALB_NUMBER', '123456', text, 'albNumber of that order.'),
  voucherBranch: S('RSF_VOUCHER_BRANCH', '0001', text, 'branch of an existing payment voucher (operation 10).'),
  voucherOrder: S('RSF_VOUCHER_ORDER', '00012345', text, 'order of that voucher.'),
  deleteProductId: S(
    'RSF_DELETE_PRODUCT_ID',
    '2001',
    text,
    'A product of the account that may be deleted (operation 12). It is deleted for real when writes are allowed.',
  ),
  postSaleBody: S(
    'RSF_POSTSALE_BODY',
    sample(SAMPLE_BODIES.createPostSale),
    json('post-sale.request'),
    'The JSON body of POST /postventa; §4.13 does not show its fields.',
  ),
  postSaleId: S(
    'RSF_POSTSALE_ID',
    '7001',
    integer,
    'postsaleInboundId of an existing post-sale channel (operations 14 and 15).',
  ),
  channelToken: S(
    'RSF_CHANNEL_TOKEN',
    'reference-channel-token',
    secretText,
    'The channel token of that post-sale channel (operation 15).',
    true,
  ),
  channelUserId: S('RSF_CHANNEL_USER_ID', 'u-42', text, 'The userId that may write to that channel.'),
  channelMessage: S(
    'RSF_CHANNEL_MESSAGE',
    SAMPLE_BODIES.sendChannelMessage.message,
    text,
    'The message text sent to the channel.',
  ),
  clientSuccessStatus: S(
    'RSF_CLIENT_SUCCESS_STATUS',
    '^(ok|success|successful|updated|true|200|[eé]xito|actualizad[oa])$',
    regex,
    'PATCH /client answers {status, message} for success and failure alike (§4.1): ' +
      'a status matching this pattern means success.',
  ),
  rejectionText: S(
    'RSF_REJECTION_TEXT',
    '\\b(error|invalid|inv[aá]lid[oa]?|not (allowed|found|exist|authori[sz]ed|authenticated|valid)|denied|' +
      'unauthori[sz]ed|forbidden|fail(ed|ure)?|mandatory|required|obligatori[oa]|no existe|no permitid[oa]|' +
      'no autorizad[oa]|no autenticad[oa])\\b',
    regex,
    'Where success is a plain string or an unspecified body (operations 5 and 12), ' +
      'a body matching this pattern is a rejection, so that HTTP 200 errors are recognised.',
  ),
  stockLabelNone: S(
    'RSF_STOCK_LABEL_NONE',
    '^(no stock|out of stock|sin stock|agotado)$',
    regex,
    'The "no stock" form of availableStockLabel (§2.6).',
  ),
  stockLabelExact: S(
    'RSF_STOCK_LABEL_EXACT',
    '^(\\d+) (units?|unidad(es)?)$',
    regex,
    'The "N units" form; group 1 is N.',
  ),
  stockLabelAtLeast: S(
    'RSF_STOCK_LABEL_AT_LEAST',
    '^(\\d+) (units? or more|unidad(es)? o m[aá]s)$',
    regex,
    'The "X units or more" form; group 1 is X.',
  ),
  fcSeed: S(
    'RSF_FC_SEED',
    '',
    text,
    'fast-check seed, to replay a run. Empty: one random seed per run, recorded in the report.',
  ),
  fcPath: S(
    'RSF_FC_PATH',
    '',
    text,
    'fast-check path of a counterexample to replay, with RSF_FC_SEED, as printed by a failing property.',
  ),
  fcNumRuns: S(
    'RSF_FC_NUM_RUNS',
    '',
    optional(bounded(1, 100000)),
    'Runs per property. Empty: 100 against the embedded reference, 25 against an external target.',
  ),
  referenceMode: S(
    'RSF_REFERENCE_MODE',
    '',
    text,
    'Embedded reference, and the URL `npm run reference` prints: ' +
      'one of its conforming modes (reference, deployment, nulls; see reference/README.md).',
  ),
  referenceFault: S(
    'RSF_REFERENCE_FAULT',
    '',
    text,
    'Embedded reference, and the URL `npm run reference` prints: ' +
      'one of its faults (reference/faults.ts), e.g. to see what a failure looks like.',
  ),
  referencePort: S(
    'RSF_REFERENCE_PORT',
    '4010',
    port,
    "Port of `npm run reference`; 0 picks a free one. The suite's own embedded reference always takes a free port.",
  ),
  referenceLatencyMs: S(
    'RSF_REFERENCE_LATENCY_MS',
    '0',
    bounded(0, 10000),
    'Embedded reference and `npm run reference` only: milliseconds each answer waits, ' +
      'as if the target were that far away (0 to 10000; `npm run bench` uses it).',
  ),
  reportsDir: S('RSF_REPORTS_DIR', 'reports', text, 'Where the conformance reports are written.'),
  strict: S('RSF_STRICT', 'false', flag, 'Fail the run on SHOULD warnings too: another way to set RSF_FAIL_ON=strict.'),
  waiversFile: S(
    'RSF_WAIVERS_FILE',
    'conformance-waivers.json',
    text,
    'JSON file of waivers [{"id", "reason", "owner"?, "expires"?: "YYYY-MM-DD"}]; ' +
      'a waived requirement does not fail the run until its waiver expires. Missing file: no waivers.',
  ),
  failOn: S(
    'RSF_FAIL_ON',
    '',
    optional(oneOf(FAIL_ON)),
    'What fails the run (exit code 1): "must", any MUST failure; ' +
      '"regression", only a MUST failure that the baseline (RSF_BASELINE) did not have; ' +
      '"strict", MUST failures and SHOULD warnings. Empty: must, or strict with RSF_STRICT=true.',
  ),
  baseline: S(
    'RSF_BASELINE',
    '',
    existingFile,
    'conformance.json of an earlier run: each requirement is compared with it ' +
      '(regressed, fixed, still failing, new, gone), first in every report. ' +
      'Needed by RSF_FAIL_ON=regression; a file that cannot be read is a configuration error.',
  ),
} satisfies Record<string, Setting<unknown>>;

type Settings = typeof SETTINGS;
/** Settings whose default depends on the target (embedded or external). */
type TargetDependent = 'maxRequestsPerSecond' | 'fcNumRuns';
export type Config = { [K in Exclude<keyof Settings, TargetDependent>]: ReturnType<Settings[K]['parse']> } & {
  [K in TargetDependent]: number;
} & {
  /** True when the suite starts the embedded reference server itself. */
  embedded: boolean;
  /** Writes run: always against the embedded reference, by opt-in elsewhere. */
  writesEnabled: boolean;
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration (see README, "Configuration"):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const raw = env[setting.name]?.trim() || setting.default;
    try {
      values[key] = setting.parse(raw);
    } catch (e) {
      const shown = setting.secret ? '' : ` (${setting.name}=${raw})`;
      problems.push(`${setting.name}: ${(e as Error).message}${shown}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const config = values as Config;
  config.embedded = config.targetUrl === '';
  config.writesEnabled = config.embedded || config.allowWrites;
  // Gentle on shared staging, flat out against our own reference.
  config.maxRequestsPerSecond ??= config.embedded ? 0 : 10;
  config.fcNumRuns ??= config.embedded ? 100 : 25;
  if (config.invalidBearerToken === '') config.invalidBearerToken = `invalid-${randomBytes(12).toString('hex')}`;
  if (config.invalidBearerToken === config.bearerToken)
    throw new ConfigError(['RSF_INVALID_BEARER_TOKEN must differ from RSF_BEARER_TOKEN']);
  exitPolicy(config.failOn, config.strict, config.baseline); // checked before any test, applied by the reporter
  return config;
}

/** The secret settings of a config, with the variable that holds each. */
export function secretSettings(config: Config): { name: string; value: string }[] {
  return (Object.entries(SETTINGS) as [keyof Settings, Setting<unknown>][])
    .filter(([, s]) => s.secret)
    .map(([key, s]) => ({ name: s.name, value: String(config[key]) }));
}

/** The secret values of a config, for redaction. */
export function secretsOf(config: Config): string[] {
  return secretSettings(config).map((s) => s.value);
}

let current: Config | undefined;

/** This process's configuration, loaded once. */
export function config(): Config {
  current ??= loadConfig();
  return current;
}
