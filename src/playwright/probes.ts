// A probe is one request and the checks that judge its answer, declared as data: `test(...probe(title, spec))` in a
// spec file gives the test its title, its location (the spec file's line) and its tags, derived from the checks.
// Families of probes (credential variants, dropped and retyped fields, malformed JSON) are lists of such declarations.
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestDetails } from '@playwright/test';
import type { ValidBodies } from '../model/bodies';
import { SCALAR_TYPES, listOf, requiredFields, typedFields, without, wrongTypeValue } from '../model/bodies';
import { everyRequiredFieldNull } from '../arbitraries';
import { isArraySchema } from '../model/schema-registry';
import { type BodyRule, type WrongRequest, type WrongSettings, bodyRequest } from '../model/body-rules';
import {
  type Check,
  ignoredAuthRejected,
  negativeDataRejection,
  notApplicable,
  succeedsAgain,
  tagsOf,
} from '../checks/checks';
import { type Config, SETTINGS } from '../config/config';
import { authorizationHeader } from '../http/request';
import type { Conformance, SettingKey } from './conformance';
import { stopAsInconclusive } from './unjudged';
import { consumedEarlier, recordConsumed } from './consumed';
import { outcomeOf, wasRefused } from '../checks/outcome';
import { redact } from '../http/redact';
import { printable } from '../model/printable';
import { refusedAsWrongSettings } from './wrong-settings';
import { CREDENTIALS_ANNOTATION, SIZE_REFUSALS } from '../checks/check-protocol';
import type { ApiClient } from './api-client';
import type { Credentials, Exchange, SendOptions } from '../http/exchange';
import { OPERATIONS, type OperationName } from '../model/operations';
import { type DeclaredRequest, type RequestContext, declarationKey, declareRequests } from './declarations';
import { WRITES_TAG, mayWrite } from '../checks/write-safety';

export interface ProbeFixtures {
  api: ApiClient;
  conformance: Conformance;
  bodies: ValidBodies;
  config: Config;
}

/** The arguments of Playwright's `test(title, details, body)`, to spread: `test(...probe(…))`. */
export type TestDeclaration = [title: string, details: TestDetails, body: (fixtures: ProbeFixtures) => Promise<void>];

export interface ProbeSpec {
  operation: OperationName;
  request: (ctx: RequestContext) => SendOptions;
  /** Judged in order over the one exchange. */
  checks: readonly Check[];
  /** Settings the request depends on that the preflight cannot check without writing: named if it goes wrong. */
  settings?: readonly SettingKey[];
  /** A request with one of its settings made wrong on purpose: a refusal alike is inconclusive (wrong-settings.ts). */
  wrongSettings?: WrongSettings<SettingKey>;
  annotation?: TestDetails['annotation'];
  /**
   * The resource of the settings that this test's request uses up (the deletion of RSF_DELETE_PRODUCT_ID). It is not
   * sent ahead: it goes out as the test runs, after the earlier tests of its file, which probe the same resource while
   * it is there (a product already deleted is refused as not found, whatever the target checks). A refusal after
   * another request of the run used the resource up (consumed.ts) is inconclusive.
   */
  consumes?: SettingKey;
  /**
   * The resource of the settings that a success of this request uses up, where a conforming target refuses it: the
   * success is recorded for the test that `consumes` it (the same URL). So is the success of that test itself, for the
   * next run against the same external target (consumed.ts).
   */
  mayConsume?: SettingKey;
  /** More requests of the same operation, after the first, each judged by the same checks (near misses, say). */
  alsoSending?: (ctx: RequestContext) => readonly SendOptions[];
}

/** Tags of a test that runs `checks` against `operation`: their requirements, and @writes where it may write. */
export function declaredTags(operation: OperationName, checks: readonly Check[], labels: string[] = []): string[] {
  return [...tagsOf(...checks), ...labels, ...(mayWrite(OPERATIONS[operation], checks) ? [WRITES_TAG] : [])];
}

/**
 * Why a request that a conforming target carries out is not judged when the target refused it for its size (413, 414
 * or 431): §8 leaves payload size limits open (indep110: a post-sale body of 105 kB, over Express's 100 kB). The run
 * cannot judge what it could not send, and says which settings make the request.
 */
function sizeRefusedReason(exchange: Exchange, settings: readonly SettingKey[] = []): string {
  const { method, url, body } = exchange.request;
  const size = body === undefined ? '' : `, its body ${Buffer.byteLength(body)} bytes`;
  const names = settings.map((key) => (SETTINGS[key] as { name: string }).name);
  const remedy = names.length
    ? `Its body is made from ${names.join(', ')}: a value the target takes lets the run judge it.`
    : 'The target limits requests below the size of this one.';
  return (
    `${method} ${redact(url)} was refused for its size (HTTP ${exchange.status}${size}), a limit §8 leaves open: ` +
    `not judged. ${remedy}`
  );
}

/** Sends the probe's request and judges the exchange with each of its checks. */
export async function runProbe(
  spec: ProbeSpec,
  { api, conformance, bodies, config }: ProbeFixtures,
): Promise<Exchange> {
  const ctx = { bodies, config };
  const request = spec.request(ctx);
  const exchange = await api.call(spec.operation, request);
  const { succeeded } = outcomeOf(exchange, config);
  const { url } = exchange.request;
  if ((spec.mayConsume || spec.consumes) && succeeded) recordConsumed(url, consumedBy(exchange));
  if (spec.mayConsume && succeeded && TOKEN_UNDER_ANOTHER_SCHEME.has(exchange.credentials))
    usedUpWithTheToken.set(url, exchange);
  // Used up by the token under another scheme, which the target may take: its answer is the one to judge.
  const byTheToken = spec.consumes && !succeeded ? usedUpWithTheToken.get(url) : undefined;
  const consumed = spec.consumes && !succeeded && !byTheToken ? consumedEarlier(spec.consumes, url) : undefined;
  if (consumed !== undefined) stopAsInconclusive(consumed);
  const judged = byTheToken ?? exchange;
  if (SIZE_REFUSALS.has(exchange.status) && spec.checks.some((c) => c.expects === 'success'))
    stopAsInconclusive(sizeRefusedReason(exchange, spec.settings));
  // Each other credential sent once, whichever check asks (worksWithoutCredentials, refusedAsWrongSettings).
  const resent = new Map<Credentials, Promise<Exchange>>();
  const resend = (credentials: Credentials) => {
    const sent = resent.get(credentials) ?? api.call(spec.operation, { ...request, credentials });
    resent.set(credentials, sent);
    return sent;
  };
  const wrong = spec.wrongSettings;
  if (wrong) {
    const sendWrong = (variant: WrongRequest) => api.call(spec.operation, variant.request(ctx));
    const control = { wrong, sendWrong, sendWithBearer: () => resend('valid') };
    const reason = await refusedAsWrongSettings(exchange, control, config);
    if (reason !== undefined) stopAsInconclusive(reason);
  }
  const taken =
    byTheToken &&
    `it was used up earlier in this run by ${consumedBy(byTheToken)}, which the target took (HTTP-AUTH-BEARER-ONLY ` +
      'judges that): that answer is judged';
  const note = [request.label && `the request judged: ${request.label}`, taken].filter(Boolean).join('; ');
  for (const check of spec.checks) {
    await conformance.check(check, judged, {
      resend,
      ...(spec.settings && { settings: spec.settings }),
      ...(note && { note }),
    });
  }
  return judged;
}

export function probe(title: string, spec: ProbeSpec): TestDeclaration {
  const tag = declaredTags(spec.operation, spec.checks);
  const requests = (ctx: RequestContext): SendOptions[] => [spec.request(ctx), ...(spec.alsoSending?.(ctx) ?? [])];
  // Playwright reads the fixtures a test uses from its parameter list: it must be a destructuring pattern.
  const body: TestDeclaration[2] = async ({ api, conformance, bodies, config }) => {
    for (const request of requests({ bodies, config }))
      await runProbe({ ...spec, request: () => request }, { api, conformance, bodies, config });
  };
  const own = { tag, ...(spec.annotation && { annotation: spec.annotation }) };
  const details = spec.consumes
    ? own
    : declareRequests(declarationKey(spec.operation, title), own, (ctx) =>
        requests(ctx).map((options) => ({ operation: spec.operation, options })),
      );
  return [title, details, body];
}

export interface LinkSpec {
  /** The operation of the first step: a write, whose effect the second step shows. */
  operation: OperationName;
  request: (ctx: RequestContext) => SendOptions;
  /** The second step, which reads what the first did; undefined when the first answer gives nothing to read it by. */
  read: (ctx: RequestContext, first: Exchange) => DeclaredRequest | undefined;
  /** Judges the chain (linkCheck). */
  check: Check;
  settings: readonly SettingKey[];
  /**
   * Whether a second step that fails the chain is sent again after SETTLE_WAITS_MS, as one that reads what the first
   * wrote elsewhere is (the default): not where the second step is the first again.
   */
  settles?: boolean;
}

/**
 * The waits before a link's second step is sent again, while the chain would fail: what one operation wrote may show
 * in another a moment later (a replica, a cache, a queue behind the API), and the spec sets no time for it (§3 shows
 * no lifecycle, §8 no time-outs). A target that never shows it still fails, after them.
 */
export const SETTLE_WAITS_MS: readonly number[] = [500, 1500];

/** Whether `check` fails the chain `[first, second]`: judged quietly, to decide whether to send the second again. */
async function failsChain(check: Check, chain: readonly Exchange[], config: Config): Promise<boolean> {
  const [assertion] = check.assertions;
  const last = chain.at(-1);
  if (!assertion || !last) return false;
  try {
    await assertion.judge(last, { config, chain });
    return false;
  } catch {
    return true;
  }
}

/**
 * A link between operations, `test(...link(title, spec))`: a chain of two requests, the second sent once the first
 * is answered, and the check that judges the chain. Declared as data, so that the whole chain is sent as its spec
 * file starts (prefetch.ts). A second step that does not show the first yet is sent again after each of
 * SETTLE_WAITS_MS; the check judges the first step and the last answer, and the evidence shows every attempt.
 */
export function link(title: string, spec: LinkSpec): TestDeclaration {
  const body: TestDeclaration[2] = async ({ api, conformance, bodies, config }) => {
    const ctx = { bodies, config };
    const first = await api.call(spec.operation, spec.request(ctx));
    const second = spec.read(ctx, first);
    if (!second) return conformance.checkChain(spec.check, [first], { settings: spec.settings });
    const attempts = [await api.call(second.operation, second.options)];
    for (const waitMs of spec.settles === false ? [] : SETTLE_WAITS_MS) {
      if (!(await failsChain(spec.check, [first, ...attempts.slice(-1)], config))) break;
      await sleep(waitMs);
      attempts.push(await api.call(second.operation, second.options));
    }
    const chain = [first, ...attempts.slice(-1)];
    const waits = SETTLE_WAITS_MS.slice(0, attempts.length - 1).map((ms) => `${ms / 1000} s`);
    const settled =
      attempts.length > 1
        ? `the second step was sent ${attempts.length} times, again after ${waits.join(' and ')} more, since what ` +
          'the first wrote may show a moment later (the spec sets no time for it): the last answer is judged'
        : undefined;
    const labelled = second.options.label && `the second request: ${second.options.label}`;
    const note = [labelled, settled].filter(Boolean).join('; ');
    const evidence = [first, ...attempts];
    await conformance.checkChain(spec.check, chain, { settings: spec.settings, evidence, ...(note && { note }) });
  };
  const details = declareRequests(
    declarationKey(spec.operation, title),
    { tag: declaredTags(spec.operation, [spec.check]) },
    (ctx) => [{ operation: spec.operation, options: spec.request(ctx) }],
    (ctx, [first]) => {
      const second = first && spec.read(ctx, first);
      return second ? [second] : [];
    },
  );
  return [title, details, body];
}

export { CREDENTIALS_ANNOTATION };

/** A test each, by the first credentials it sends; each test's title says how. */
const REFUSED_CREDENTIALS: [Credentials, string][] = [
  ['none', 'without an Authorization header'],
  [
    'unknown-token',
    'with a token the target does not know (under Bearer or bearer), the channel token, or undefined or null',
  ],
  ['non-bearer', 'with the token under a scheme other than Bearer, or alone'],
  ['empty-bearer', 'with an empty Bearer token'],
  // Near misses (near-miss-tokens.ts): what a comparison of a prefix, of too few characters, or without case lets in.
  ['last-character-changed', 'with the token one character off at its end (changed, dropped, or one added)'],
  ['other-case', 'with the token in the other letter case'],
];

/** Variants sent in the test of another, after it (near misses, another token, no scheme): its title names them. */
const SENT_ALSO: Partial<Record<Credentials, readonly Credentials[]>> = {
  'unknown-token': ['lowercase-scheme-unknown-token', 'channel-token', 'undefined-token', 'null-token'],
  'non-bearer': ['bare-token'],
  'last-character-changed': ['last-character-dropped', 'character-added'],
};

/** How a request's credentials failed to be the token, as the reason of a test that names the request says it. */
const HOW_SENT: Partial<Record<Credentials, string>> = {
  ...Object.fromEntries(REFUSED_CREDENTIALS),
  'unknown-token': 'with a token the target does not know',
  'channel-token': "with operation 15's channel token as the Bearer token",
  'undefined-token': 'with the word undefined as the Bearer token (a client whose token is unset)',
  'null-token': 'with the word null as the Bearer token (a client whose token is unset)',
  'lowercase-scheme-unknown-token': 'with a token the target does not know, under the scheme in lower case, bearer',
  'non-bearer': 'with the token under a scheme other than Bearer',
  'bare-token': 'with the token alone, without a scheme',
  'last-character-changed': 'with the token, its last character changed',
  'last-character-dropped': 'with the token, its last character dropped',
  'character-added': 'with the token and one character more',
};

/** The request that used up a resource, as the reason of the test that needed it names it. */
function consumedBy(exchange: Exchange): string {
  const how = HOW_SENT[exchange.credentials];
  const url = printable(redact(exchange.request.url), { maxChars: 300 });
  return `${exchange.request.method} ${url}${how ? ` ${how}` : ''} (HTTP ${exchange.status})`;
}

/**
 * Why a variant cannot be sent with this token, if it cannot (authorizationHeader refuses to build it, and says why):
 * it is then left untested, never failed.
 */
function unsendable(credentials: Credentials, config: Config): string | undefined {
  try {
    authorizationHeader(credentials, config);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * The token itself under another scheme than Bearer, or alone: whoever sends it holds the token, and §5 states no
 * refusal of it, which Rails and GitHub's API take by default (indep113). Judged under the SHOULD
 * HTTP-AUTH-BEARER-ONLY, by the same check as the other variants.
 */
const TOKEN_UNDER_ANOTHER_SCHEME: ReadonlySet<Credentials> = new Set(['non-bearer', 'bare-token']);
const BEARER_ONLY = 'HTTP-AUTH-BEARER-ONLY';
/**
 * This worker's answers that used up a resource (the product of RSF_DELETE_PRODUCT_ID) with the token under another
 * scheme, by URL: the test that consumes it runs after them, in the same worker (account-products.spec.ts).
 */
const usedUpWithTheToken = new Map<string, Exchange>();

/** `check` whose first assertion, the rule, judges requirement `id`; its status, type and shape judge their own. */
function judgedAs(check: Check, id: string): Check {
  return { ...check, name: id, assertions: check.assertions.map((a, i) => (i === 0 ? { ...a, id } : a)) };
}

/** §5.1, §5.4: each way of not presenting the token is refused (`id`, e.g. 'OP4-AUTH-REQUIRED'). */
export function credentialProbes(
  operation: OperationName,
  options: {
    id: string;
    request: (ctx: RequestContext) => SendOptions;
    errorShape?: string;
    /** The resource of the settings a request the target should refuse would use up, if it succeeded. */
    mayConsume?: SettingKey;
  },
): TestDeclaration[] {
  const check = ignoredAuthRejected(options.id, { ...(options.errorShape && { errorShape: options.errorShape }) });
  return credentialVariants(operation, REFUSED_CREDENTIALS, (how) => `refuses a request ${how}`, check, options);
}

/**
 * §4.8, §5: operation 8 answers anyone, and the token only adds the logged-in data; each way of presenting what is not
 * the token (all of credentialProbes' but none at all, which is the anonymous caller) is judged by `check`.
 */
export function unacceptedTokenProbes(
  operation: OperationName,
  check: Check,
  request: (ctx: RequestContext) => SendOptions,
): TestDeclaration[] {
  const presented = REFUSED_CREDENTIALS.filter(([credentials]) => credentials !== 'none');
  return credentialVariants(operation, presented, (how) => `gives no logged-in data to a caller ${how}`, check, {
    request,
  });
}

/**
 * `test(...updatedTwice(title, spec))`: an update sent twice with the same body, as a form saved again, unless the
 * first was refused: the second finds nothing to change and answers the same documented success (`id`; indep98's
 * server answered {status} without the message §4.1 requires).
 */
export function updatedTwice(
  title: string,
  spec: { operation: OperationName; request: (ctx: RequestContext) => SendOptions; id: string },
): TestDeclaration {
  const again = 'the same update again, which changes nothing';
  return link(title, {
    operation: spec.operation,
    request: spec.request,
    // Refused, the first says nothing of an update that changes nothing: no second is sent.
    read: (ctx, first) =>
      wasRefused(first, ctx.config)
        ? undefined
        : { operation: spec.operation, options: { ...spec.request(ctx), label: again } },
    check: succeedsAgain(spec.id),
    // The first update, refused, is its own test's to judge; taken, it cleared the settings (checkChain).
    settings: [],
    settles: false,
  });
}

/** A test for each of `variants`, titled by how its credentials are sent, and judged by `check`. */
function credentialVariants(
  operation: OperationName,
  variants: readonly [Credentials, string][],
  titled: (how: string) => string,
  mustCheck: Check,
  options: { request: (ctx: RequestContext) => SendOptions; mayConsume?: SettingKey },
): TestDeclaration[] {
  return variants.map(([credentials, how]): TestDeclaration => {
    const check = TOKEN_UNDER_ANOTHER_SCHEME.has(credentials) ? judgedAs(mustCheck, BEARER_ONLY) : mustCheck;
    const also = SENT_ALSO[credentials];
    const [title, details, body] = probe(titled(how), {
      operation,
      request: (ctx) => ({ ...options.request(ctx), credentials }),
      checks: [check],
      annotation: [{ type: CREDENTIALS_ANNOTATION, description: credentials }],
      ...(options.mayConsume && { mayConsume: options.mayConsume }),
      ...(also && {
        alsoSending: (ctx: RequestContext) =>
          also
            .filter((c) => unsendable(c, ctx.config) === undefined)
            .map((c) => ({ ...options.request(ctx), credentials: c })),
      }),
    });
    // Its declared request cannot be built either (authorizationHeader throws alike), so none is sent ahead.
    const guarded: TestDeclaration[2] = async ({ api, conformance, bodies, config }) => {
      const reason = unsendable(credentials, config);
      if (reason === undefined) return body({ api, conformance, bodies, config });
      for (const { id } of check.assertions) await conformance.verify(id, [], () => notApplicable(reason));
    };
    return [title, details, guarded];
  });
}

const errorShapeOption = (errorShape?: string) => (errorShape ? { errorShape } : {});

/** Each required field dropped is refused. */
export function requiredFieldProbes(rule: BodyRule): TestDeclaration[] {
  const { required } = rule;
  if (!required) return [];
  const check = negativeDataRejection(required.id, errorShapeOption(required.errorShape));
  return requiredFields(rule.schema).map((field) =>
    probe(`refuses a body without ${field.name}`, {
      operation: rule.operation,
      request: (ctx) => bodyRequest(rule, without(rule.valid(ctx), field.name), ctx),
      checks: [check],
    }),
  );
}

/**
 * A probe's request and those it also sends, from one list of them: `why` says what is wrong when it is empty, which
 * no rule that calls this allows.
 */
function sendingEach(
  requests: (ctx: RequestContext) => SendOptions[],
  why: string,
): Pick<ProbeSpec, 'request' | 'alsoSending'> {
  return {
    request: (ctx) => {
      const [first] = requests(ctx);
      if (!first) throw new Error(why);
      return first;
    },
    alsoSending: (ctx) => requests(ctx).slice(1),
  };
}

/**
 * Each required field sent as null, where its schema takes no null (everyRequiredFieldNull): read as absent or as of
 * another type, it is refused either way, ideally. One test of the operation, under the SHOULD GEN-NO-TYPE-COERCION.
 */
export function requiredNullProbes(rule: BodyRule): TestDeclaration[] {
  const { required } = rule;
  if (!required) return [];
  const nulls = (ctx: RequestContext) =>
    everyRequiredFieldNull(rule.schema, rule.valid(ctx)).map((m) => bodyRequest(rule, m.body, ctx));
  // A null is present, as JSON Schema's required has it, and of no declared type: Ajv's coerceTypes (Fastify's
  // default) reads it as "", 0 or false, and Go's encoding/json leaves the zero value. A lax form, then, judged as
  // the others are (indep116: six REQUIRED-FIELDS MUSTs failed a conforming Fastify server before).
  return [
    probe('refuses a body with a required field null, each in turn', {
      operation: rule.operation,
      ...sendingEach(nulls, `${rule.schema}: every required field takes null`),
      checks: [negativeDataRejection('GEN-NO-TYPE-COERCION', errorShapeOption(required.errorShape))],
    }),
  ];
}

/**
 * The valid body inside a JSON array, where the body is an object (a client that sends a list of one): refused, in
 * the documented error shape where there is one. Operation 5, whose body is an array, has its own probe of an object.
 */
export function arrayBodyProbes(rule: BodyRule): TestDeclaration[] {
  const { types } = rule;
  if (!types || isArraySchema(rule.schema)) return [];
  return [
    probe('refuses the valid body inside a JSON array, not an object', {
      operation: rule.operation,
      request: (ctx) => {
        const valid = bodyRequest(rule, rule.valid(ctx), ctx);
        return { ...valid, json: [valid.json] };
      },
      checks: [negativeDataRejection(types.id, errorShapeOption(types.errorShape))],
    }),
  ];
}

/** The valid body in which `field` has a role (BodyRule.validFor), else the rule's valid body. */
const baseFor = (rule: BodyRule, field: string, ctx: RequestContext) => rule.validFor?.(field, ctx) ?? rule.valid(ctx);

/** Each field of a declared type, retyped in a body where it has a role, is refused. */
export function typedFieldProbes(rule: BodyRule): TestDeclaration[] {
  const { types } = rule;
  if (!types) return [];
  const check = negativeDataRejection(types.id, errorShapeOption(types.errorShape));
  return typedFields(rule.schema).map((field) => {
    const type = field.type ?? '';
    const withValue = (ctx: RequestContext, value: (valid: unknown) => unknown) => {
      const base = baseFor(rule, field.name, ctx);
      return bodyRequest(rule, { ...base, [field.name]: value(base[field.name]) }, ctx);
    };
    return probe(`refuses ${field.name} that is not of type ${type}`, {
      operation: rule.operation,
      request: (ctx) => withValue(ctx, () => wrongTypeValue(type)),
      // And a list of the valid value for a scalar, which a normaliser joins or takes the first element of. Not a
      // boolean for a number: pydantic's lax mode reads true as 1, a form GEN-NO-TYPE-COERCION probes (indep109).
      ...(SCALAR_TYPES.has(type) && { alsoSending: (ctx: RequestContext) => [withValue(ctx, listOf)] }),
      checks: [check],
    });
  });
}

/** Every probe of a request body: each required field dropped, each typed field retyped, and malformed JSON. */
export function requestBodyProbes(rule: BodyRule): TestDeclaration[] {
  const otherParts = (ctx: RequestContext): SendOptions => {
    const { json: _body, ...rest } = bodyRequest(rule, {}, ctx);
    return rest;
  };
  return [
    ...requiredFieldProbes(rule),
    ...requiredNullProbes(rule),
    ...typedFieldProbes(rule),
    ...arrayBodyProbes(rule),
    ...coercibleValueProbes(rule),
    ...memberCaseProbes(rule),
    ...lenientJsonProbes(rule),
    // In the documented error shape of a body of the wrong types: a body that is no JSON at all is the extreme of it.
    malformedJsonProbe(rule.operation, { request: otherParts, errorShape: rule.types?.errorShape }),
  ];
}

/**
 * What lax parsers take for a value of `type` (Jackson's defaults, say), made from a valid one: a fraction, a
 * numeric string or a boolean for an integer, a numeric string or a boolean for a number (pydantic's lax mode reads
 * true as 1), "true" or "false", 1 or 0 for a boolean, a number or a boolean for a string (Jackson, Gson and
 * Json.NET write it as text).
 */
const COERCED: Record<string, { how: string; forms: readonly ((valid: unknown) => unknown)[] }> = {
  integer: {
    how: 'a fraction, a numeric string or a boolean',
    // None from 2^52 on, where a double holds no fraction: valid + 0.5 is another integer, a valid value (another
    // product, say), which would be sent, and carried out, as if it were a fraction.
    forms: [
      (valid) => (typeof valid !== 'number' ? 1.5 : Number.isInteger(valid + 0.5) ? undefined : valid + 0.5),
      String,
      () => true,
    ],
  },
  number: { how: 'a numeric string or a boolean', forms: [String, () => true] },
  // 0 and 1 too: what `value in (True, False)` takes in Python, and C-like validators.
  boolean: { how: 'a string or as 0 or 1', forms: [String, (valid) => (valid ? 1 : 0)] },
  string: { how: 'a number or a boolean', forms: [() => 12345, () => true] },
};

/**
 * GEN-NO-TYPE-COERCION (SHOULD): each field of a coercible type, in each form lax parsers take for that type, is
 * refused (a hand-written validator may be lax for one field only); one test of the operation. The MUST and SHOULD
 * field-type probes send no such form (a wrong type that no common parser coerces, body-mutations.ts), so a
 * framework's coercion is a warning here, and only here.
 */
export function coercibleValueProbes(rule: BodyRule): TestDeclaration[] {
  const fields = typedFields(rule.schema).filter((f) => (f.type ?? '') in COERCED);
  // A form that has no value for the configured one (undefined) is not sent.
  const requests = (ctx: RequestContext): SendOptions[] =>
    fields.flatMap((field) => {
      const base = baseFor(rule, field.name, ctx);
      return (COERCED[field.type ?? '']?.forms ?? []).flatMap((form) => {
        const coerced = form(base[field.name]);
        return coerced === undefined ? [] : [bodyRequest(rule, { ...base, [field.name]: coerced }, ctx)];
      });
    });
  if (fields.length === 0) return [];
  const types = Object.keys(COERCED).filter((type) => fields.some((f) => f.type === type));
  const what = types.map((type) => `each ${type} field as ${COERCED[type]?.how}`).join(' and ');
  return [
    probe(`refuses ${what}, forms lax parsers take for ${types.length > 1 ? 'their types' : 'its type'}`, {
      operation: rule.operation,
      // Each coercible field has a numeric string or a string form, whatever its value: never none.
      ...sendingEach(requests, `${rule.schema}: no coercible form`),
      checks: [negativeDataRejection('GEN-NO-TYPE-COERCION')],
    }),
  ];
}

/** A member name with its first letter in the other case (fiscalName → FiscalName), or undefined if it has none. */
const otherCaseName = (name: string): string | undefined => {
  const first = name.charAt(0);
  const other = first === first.toLowerCase() ? first.toUpperCase() : first.toLowerCase();
  return other === first ? undefined : `${other}${name.slice(1)}`;
};

/**
 * GEN-NO-MEMBER-CASE-FOLDING (SHOULD): the valid body with every required field named in the other case of its first
 * letter (FiscalName, as a .NET client sends it) lacks them all, and is refused. One request per operation: a server
 * that folds case takes the whole body, one that does not refuses it as missing every field.
 */
export function memberCaseProbes(rule: BodyRule): TestDeclaration[] {
  const required = requiredFields(rule.schema).map((f) => f.name);
  if (required.length === 0 || required.some((name) => otherCaseName(name) === undefined)) return [];
  const example = `${otherCaseName(required[0] as string)} for ${required[0]}`;
  return [
    probe(`refuses a body whose required members are named in another letter case (${example})`, {
      operation: rule.operation,
      request: (ctx) => {
        const body = { ...rule.valid(ctx) };
        for (const name of required) {
          const value = body[name];
          delete body[name];
          body[otherCaseName(name) as string] = value;
        }
        return bodyRequest(rule, body, ctx);
      },
      checks: [negativeDataRejection('GEN-NO-MEMBER-CASE-FOLDING')],
    }),
  ];
}

/** A member that names something on the target (categoryId, idDirCli): NaN there would be refused as naming nothing. */
const NAMES_SOMETHING = /^id|id$/i;

/**
 * The valid body's JSON text with its first number (depth first) that names nothing written NaN, or undefined when it
 * holds none: a lenient server reads NaN as a number, stores it, and answers a success.
 */
function withNaN(json: unknown): string | undefined {
  const marker = '@@rsf-not-a-number@@';
  let replaced = false;
  const walk = (value: unknown, name = ''): unknown => {
    if (replaced) return value;
    if (typeof value === 'number' && !NAMES_SOMETHING.test(name)) {
      replaced = true;
      return marker;
    }
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    return value;
  };
  const text = JSON.stringify(walk(json));
  return replaced ? text.replace(JSON.stringify(marker), 'NaN') : undefined;
}

/**
 * What lenient parsers read that is not JSON (RFC 8259), made from the valid body's text: the body followed by other
 * text (Jackson by default reads the first value and ignores the rest; Python's raw_decode), a comment before it
 * (JSON5, Jackson's ALLOW_COMMENTS), a comma after its last member or element, and NaN for its first number that
 * names nothing (Python's json.loads by default). Each carries every required field, where a strict
 * parser refuses it whole.
 */
const LENIENT_JSON: readonly { how: string; text: (valid: string, json: unknown) => string | undefined }[] = [
  { how: 'followed by other text', text: (valid) => `${valid} trailing text` },
  { how: 'after a comment', text: (valid) => `/* comment */ ${valid}` },
  { how: 'with a comma after its last member', text: (valid) => `${valid.slice(0, -1)},${valid.slice(-1)}` },
  { how: 'with NaN for a number', text: (_valid, json) => withNaN(json) },
];

/**
 * GEN-STRICT-JSON (SHOULD): the valid body in each form of LENIENT_JSON, one test per operation. A server whose parser
 * is lenient takes it, and carries out the request; a strict one refuses it as not JSON.
 */
export function lenientJsonProbes(rule: BodyRule): TestDeclaration[] {
  const forms = (ctx: RequestContext): SendOptions[] => {
    const { json, ...otherParts } = bodyRequest(rule, rule.valid(ctx), ctx);
    const valid = JSON.stringify(json);
    return LENIENT_JSON.flatMap(({ text }) => {
      const lenient = text(valid, json);
      return lenient === undefined ? [] : [{ ...otherParts, raw: { text: lenient, contentType: 'application/json' } }];
    });
  };
  return [
    probe('refuses the valid body in forms only lenient parsers read: followed by text, commented, NaN', {
      operation: rule.operation,
      // Text after the body, and a comment before it, are forms of any body: never none.
      ...sendingEach(forms, `${rule.schema}: no lenient form`),
      checks: [negativeDataRejection('GEN-STRICT-JSON')],
    }),
  ];
}

/**
 * The spec's intro paragraph: a body that is not well-formed JSON cannot carry the required fields
 * (GEN-MALFORMED-JSON-REJECTED); `id` names another requirement it breaks where an operation shows no required
 * fields (OP13-FIELD-TYPES: not a JSON object).
 */
export function malformedJsonProbe(
  operation: OperationName,
  {
    request = () => ({}),
    errorShape,
    id = 'GEN-MALFORMED-JSON-REJECTED',
  }: {
    /** The request's other parts (its path parameters, say): the body is replaced. */
    request?: (ctx: RequestContext) => SendOptions;
    errorShape?: string | undefined;
    id?: string;
  } = {},
): TestDeclaration {
  return probe('refuses a body that is not well-formed JSON', {
    operation,
    request: (ctx) => ({ ...request(ctx), raw: { text: '{"truncated": ', contentType: 'application/json' } }),
    checks: [negativeDataRejection(id, errorShapeOption(errorShape))],
  });
}
