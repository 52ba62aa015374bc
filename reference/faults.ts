// Fault switches (mutants): each makes the reference break exactly one requirement of
// specs/requirements.json, so that the suite can be shown to catch it. A request selects one by
// the path prefix /_faults/<name>; every fault works through the generic hooks of reference/hooks.ts.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ErrorObject } from 'ajv';
import { isObject, type OperationNumber, STREET_FIELDS } from '../src/model/operations';
import type { FaultHooks } from './hooks';
import { modeNamed } from './modes';
import { cartUpdated, rejectionReply, ROUTES, routeOf } from './operations';
import { loggedInFields } from './products';
import { type Body, type ErrorKind, json, plain, Rejection, type Reply, raw } from './reply';
import { ALLOWED_CART_TYPES, DEFAULT_CHANNEL_TOKEN, PRODUCTS, SEED_CHANNEL, VOUCHERS } from './seed';

export interface Fault {
  /** kebab-case, e.g. "op4-utility-unbounded". */
  name: string;
  /** The requirement ID in specs/requirements.json that this fault breaks. */
  breaks: string;
  description: string;
}

export interface FaultDefinition extends Fault {
  hooks: FaultHooks;
}

type Obj = Record<string, unknown>;
const jsonValue = (reply: Reply): unknown => (reply.body.kind === 'json' ? reply.body.value : undefined);
const isDocumentedError = (outcome: Reply['outcome']): outcome is ErrorKind =>
  ['auth', 'forbidden', 'invalid', 'missing-data', 'rule', 'not-found'].includes(outcome);

const fault = (name: string, breaks: string, description: string, hooks: FaultHooks): FaultDefinition => ({
  name,
  breaks,
  description,
  hooks,
});

/** The success body of `op` becomes `body(...)`. */
const successBecomes = (
  op: OperationNumber,
  name: string,
  breaks: string,
  description: string,
  body: (reply: Reply, requestBody: Obj) => Body | undefined,
) =>
  fault(name, breaks, description, {
    reply: (reply, facts) => {
      if (facts.op !== op || reply.outcome !== 'success') return reply;
      const changed = body(reply, isObject(facts.body) ? facts.body : {});
      return changed ? { ...reply, body: changed } : reply;
    },
  });

/** A reply of `op` with `outcome` (a refusal's kind, or success) answered as `change` makes it instead. */
const replyChanged = (
  op: OperationNumber,
  name: string,
  breaks: string,
  description: string,
  outcome: Reply['outcome'],
  change: (reply: Reply) => Reply,
) =>
  fault(name, breaks, description, {
    reply: (reply, facts) => (facts.op === op && reply.outcome === outcome ? change(reply) : reply),
  });

/**
 * A success of `op` whose request body `when` selects is answered with `instead`: a refusal (its documented error)
 * or another reply.
 */
const successReplaced = (
  op: OperationNumber,
  name: string,
  breaks: string,
  description: string,
  instead: () => Rejection | Reply,
  when: (requestBody: Obj) => boolean = () => true,
) =>
  fault(name, breaks, description, {
    reply: (reply, facts) => {
      if (facts.op !== op || reply.outcome !== 'success' || !when(isObject(facts.body) ? facts.body : {})) return reply;
      const answer = instead();
      return answer instanceof Rejection ? rejectionReply(routeOf(op), answer) : answer;
    },
  });

/** HTTP 500, as a write that fails answers. */
const internalError = (): Reply => ({ status: 500, body: plain('Internal server error'), outcome: 'internal' });

/** A cart update (op 5) refused as `outcome` is carried out instead, where its items are those `when` selects. */
const cartRefusalTaken =
  (outcome: Reply['outcome'], when: (items: unknown[]) => boolean): FaultHooks['reply'] =>
  (reply, { op, body }) =>
    op === 5 && reply.outcome === outcome && Array.isArray(body) && when(body) ? cartUpdated() : reply;

/** A character outside the Basic Multilingual Plane: four bytes in UTF-8. */
const ASTRAL_CHARACTER = /[\u{10000}-\u{10FFFF}]/u;

/** Far beyond any id the store hands out: an id moved by it names nothing. */
const UNKNOWN_ID_OFFSET = 1_000_000;

/** The success body of `op` with its integer `field` moved to an id that names nothing. */
const idMovedAway = (op: OperationNumber, field: string, name: string, breaks: string, description: string) =>
  successBecomes(op, name, breaks, description, (reply) => {
    const value = jsonValue(reply);
    if (!isObject(value) || typeof value[field] !== 'number') return undefined;
    return json({ ...value, [field]: value[field] + UNKNOWN_ID_OFFSET });
  });

/** Which documented errors an error-body fault reshapes. */
type Refusals = (reply: Reply) => boolean;
/** Missing or rejected credentials (§5.4). */
const CREDENTIAL_ERRORS: Refusals = (reply) => reply.outcome === 'auth';
/** Every other documented error. */
const OTHER_ERRORS: Refusals = (reply) => isDocumentedError(reply.outcome) && reply.outcome !== 'auth';
/** An unknown resource or a broken business rule (op 4: a category that does not exist, utility above 100). */
const RULE_ERRORS: Refusals = (reply) => reply.outcome === 'not-found' || reply.outcome === 'rule';
/** A missing or mistyped field, refused by the request schema (not malformed JSON, not a range rule). */
const FIELD_ERRORS: Refusals = (reply) =>
  reply.schemaKeywords !== undefined && (reply.outcome === 'missing-data' || reply.outcome === 'invalid');

/** A body that is not well-formed JSON (or none), refused before any schema. */
const MALFORMED_BODY: Refusals = (reply) => reply.outcome === 'invalid' && reply.schemaKeywords === undefined;

/** The documented errors of `op` that `which` selects get another body; the status stays. */
const errorBecomes = (
  op: OperationNumber,
  which: Refusals,
  name: string,
  breaks: string,
  description: string,
  body: (message: string) => Body,
) =>
  fault(name, breaks, description, {
    reply: (reply, facts) => (facts.op === op && which(reply) ? { ...reply, body: body(reply.message ?? '') } : reply),
  });

/** Ajv errors of `keyword` in op's request schema are ignored (for `fields` only, if given). */
type SchemaKeyword = 'required' | 'type';
/** Ajv errors of op's request schema for which `when` holds are ignored: a check skipped for one field or value. */
const requestErrorIgnored = (
  op: OperationNumber,
  name: string,
  breaks: string,
  description: string,
  when: (error: ErrorObject, body: unknown) => boolean,
) => fault(name, breaks, description, { ignoresRequestError: (o, e, body) => o === op && when(e, body) });

const schemaRuleIgnored = (op: OperationNumber, keyword: SchemaKeyword, breaks: string, fields?: readonly string[]) => {
  const fieldOf = (e: ErrorObject): string =>
    keyword === 'required' ? String(e.params.missingProperty) : (e.instancePath.split('/').pop() ?? '');
  const what = keyword === 'required' ? 'missing required fields' : 'fields of the wrong type';
  return requestErrorIgnored(
    op,
    `op${op}-${keyword === 'required' ? 'required-fields' : 'field-types'}-ignored`,
    breaks,
    `Operation ${op} accepts ${what}${fields ? ` (${fields.join(', ')})` : ''}: ` +
      `those ajv "${keyword}" errors of ${routeOf(op).requestSchema} are ignored.`,
    (e) => e.keyword === keyword && (!fields || fields.includes(fieldOf(e))),
  );
};

const authNotRequired = (op: OperationNumber) =>
  fault(
    `op${op}-auth-not-required`,
    `OP${op}-AUTH-REQUIRED`,
    `Operation ${op} succeeds with missing or invalid credentials.`,
    {
      authRule: (o, rule) => (o === op ? 'none' : rule),
    },
  );

/** Operation `op` compares the Bearer token with `matches` instead of exactly: a near miss gets in. */
const tokenComparedLoosely = (
  op: OperationNumber,
  name: string,
  description: string,
  matches: (presented: string, token: string) => boolean,
) =>
  fault(name, `OP${op}-AUTH-REQUIRED`, description, {
    tokenMatches: (o, presented, token) => (o === op ? matches(presented, token) : presented === token),
  });

const authDemanded = (op: OperationNumber, breaks: string) =>
  fault(`op${op}-auth-demanded`, breaks, `Operation ${op} demands a Bearer token and answers 401 without one.`, {
    authRule: (o, rule) => (o === op ? 'bearer' : rule),
  });

/** The value at a JSON pointer (an ajv error's instancePath) of `body`. */
function valueAt(body: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((at, key) => (isObject(at) || Array.isArray(at) ? (at as Obj)[key] : undefined), body);
}

/** Whether lax parsers (Jackson's, pydantic's) take `value` for a value of JSON Schema `type` (lax-type-coercion). */
export function laxCoercible(value: unknown, type: string): boolean {
  const numeric = typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim());
  if (type === 'integer')
    return numeric || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
  if (type === 'number') return numeric || typeof value === 'boolean';
  if (type === 'string') return typeof value === 'number' || typeof value === 'boolean';
  return type === 'boolean' && (value === 'true' || value === 'false' || value === 0 || value === 1);
}

const viewFault = (
  name: string,
  breaks: string,
  description: string,
  productView: NonNullable<FaultHooks['productView']>,
) => fault(name, breaks, description, { productView });

/** For a logged-in caller, the stock label says `label` where `applies` holds of availableStock and its limit. */
const labelSays = (
  name: string,
  breaks: string,
  description: string,
  applies: (stock: number, limit: number) => boolean,
  label: (stock: number) => string,
) =>
  viewFault(name, breaks, description, (view, { loggedIn }) => {
    const { availableStock: n, stockDisplayLimit: limit } = view;
    return loggedIn && typeof n === 'number' && typeof limit === 'number' && applies(n, limit)
      ? { ...view, availableStockLabel: label(n) }
      : view;
  });

/** The missing-data message of op 2 without the names of `fields` (the other missing fields stay named). */
const unnamed =
  (fields: readonly string[]) =>
  (reply: Reply): Reply => {
    const still = (reply.missingFields ?? []).filter((f) => !fields.includes(f));
    const text =
      still.length > 0
        ? `mandatory address data is missing; ${still.map((f) => `${f} is mandatory`).join('; ')}`
        : 'mandatory address data is missing';
    return { ...reply, body: plain(text) };
  };

/** The operations a requirement of specs/requirements.json names, read from the catalogue itself. */
function operationsOf(requirementId: string): ReadonlySet<number> {
  const catalogue = resolve(__dirname, '../specs/requirements.json');
  type Catalogue = { requirements: { id: string; operations: number[] }[] };
  const { requirements } = JSON.parse(readFileSync(catalogue, 'utf8')) as Catalogue;
  const found = requirements.find((r) => r.id === requirementId);
  if (!found) throw new Error(`${requirementId} is not in specs/requirements.json`);
  return new Set(found.operations);
}

const INVALID_INPUT_OUTCOMES: ReadonlySet<Reply['outcome']> = new Set(['invalid', 'missing-data', 'rule', 'not-found']);
const INVALID_INPUT_OPS = operationsOf('HTTP-INVALID-INPUT-4XX');
/** The operations that demand a Bearer token (§5), as the route table says. */
const BEARER_OPS: readonly OperationNumber[] = ROUTES.filter((r) => r.auth === 'bearer').map((r) => r.number);

export const FAULT_DEFINITIONS: readonly FaultDefinition[] = [
  // General rules (§intro, §5, §7, §9).
  fault(
    'operations-under-v2',
    'GEN-V1-PREFIX',
    'Every operation is served under /v2 instead of /v1 (which answers 404).',
    { versionSegment: 'v2' },
  ),
  fault(
    'success-json-as-text-plain',
    'GEN-JSON-CONTENT-TYPE',
    'Success bodies that are JSON objects or arrays are labelled text/plain.',
    {
      contentType: (reply, type) =>
        reply.outcome === 'success' && reply.body.kind === 'json' ? 'text/plain; charset=utf-8' : type,
    },
  ),
  fault(
    'success-labelled-problem-json',
    'GEN-JSON-CONTENT-TYPE',
    'Success bodies that are JSON objects are labelled application/problem+json, as a shared response helper that ' +
      "uses the errors' media type for every body does.",
    {
      contentType: (reply, type) =>
        reply.outcome === 'success' && isObject(jsonValue(reply)) ? 'application/problem+json' : type,
    },
  ),
  fault(
    'error-json-as-text-plain',
    'GEN-ERROR-CONTENT-TYPE',
    'Error bodies that are JSON objects are labelled text/plain.',
    {
      contentType: (reply, type) =>
        reply.outcome !== 'success' && isObject(jsonValue(reply)) ? 'text/plain; charset=utf-8' : type,
    },
  ),
  fault(
    'forbidden-json-labelled-html',
    'GEN-ERROR-CONTENT-TYPE',
    "403 refusals (operation 15's channel token) whose body is a JSON object are labelled text/html, as a shared " +
      "'forbidden' helper that sets the type of its HTML template does: the API's refusal, not a firewall's page.",
    {
      contentType: (reply, type) =>
        reply.status === 403 && isObject(jsonValue(reply)) ? 'text/html; charset=utf-8' : type,
    },
  ),
  fault(
    'plain-error-raw-labelled-json',
    'GEN-ERROR-CONTENT-TYPE',
    'Plain-string errors are sent as their raw text, not as JSON strings, and labelled application/json all the ' +
      'same, as a middleware that sets that type on every answer does: a body labelled JSON that is not JSON.',
    { rawPlainLabelledJson: 'errors' },
  ),
  fault(
    'plain-success-raw-labelled-json',
    'GEN-JSON-CONTENT-TYPE',
    "Operation 5's plain-string success is sent as its raw text, not as a JSON string, and labelled " +
      'application/json all the same: a body labelled JSON that is not JSON.',
    { rawPlainLabelledJson: 'successes' },
  ),
  fault(
    'json-utf8-labelled-latin1',
    'GEN-JSON-UTF8',
    'JSON bodies are UTF-8 but labelled charset=iso-8859-1, as a server whose default charset is set apart from its ' +
      'encoder labels them: a client that decodes by the label reads "Ã\u0091andÃº" for "Ñandú".',
    {
      contentType: (reply, type) =>
        reply.body.kind === 'json' ? type.replace('charset=utf-8', 'charset=iso-8859-1') : type,
    },
  ),
  fault(
    'op4-success-labelled-utf16',
    'GEN-JSON-UTF8',
    "Operation 4's successes, whose text is ASCII, are labelled charset=utf-16, as a handler that sets the charset " +
      'of a legacy template does: a client that decodes by the label reads two bytes as one character.',
    {
      // Operation 4's success alone is {success: true, msg} (§4.4); operations 2 and 3 answer success "ok".
      contentType: (reply, type) => {
        const value = jsonValue(reply);
        const op4Success = reply.outcome === 'success' && isObject(value) && value.success === true;
        return op4Success ? type.replace('charset=utf-8', 'charset=utf-16') : type;
      },
    },
  ),
  fault(
    'json-latin1',
    'GEN-JSON-UTF8',
    'JSON bodies are encoded in ISO-8859-1 and labelled charset=iso-8859-1, a character beyond it as "?", as a ' +
      'legacy server does: an echoed "Ñandú" is not UTF-8.',
    { latin1Json: true },
  ),
  fault(
    'op9-prices-bom',
    'GEN-JSON-UTF8',
    'The price list, whose data is ASCII, is sent after a UTF-8 byte order mark: no answer to input of any script ' +
      'shows it, only a read of data the target chose (indep97, on operation 11).',
    {
      reply: (reply, facts) =>
        facts.op === 9 && reply.outcome === 'success' && reply.body.kind === 'json'
          ? {
              ...reply,
              body: {
                kind: 'raw',
                text: `\ufeff${JSON.stringify(reply.body.value)}`,
                contentType: 'application/json; charset=utf-8',
              },
            }
          : reply,
    },
  ),
  fault(
    'json-bom',
    'GEN-JSON-UTF8',
    'JSON bodies start with a UTF-8 byte order mark (EF BB BF), as some .NET and Java writers send them: RFC 8259 ' +
      "§8.1 forbids it, and Python's json.loads refuses such a text.",
    { jsonBom: true },
  ),
  fault(
    'malformed-json-accepted',
    'GEN-MALFORMED-JSON-REJECTED',
    'A body that is not well-formed JSON is answered as if a valid body had been sent.',
    { acceptsMalformedJson: () => true },
  ),
  fault(
    'lenient-json-parser',
    'GEN-STRICT-JSON',
    'Request bodies are read by a lenient parser, as Jackson reads the first value and ignores what follows, and ' +
      "Python's json.loads takes NaN: a body followed by other text, after a comment, with a comma after its last " +
      'member, or with NaN for a number is carried out as the valid body it holds.',
    { readsLenientJson: true },
  ),
  fault(
    'lax-type-coercion',
    'GEN-NO-TYPE-COERCION',
    'Request bodies are read as Jackson and pydantic read them by default: a fraction, a numeric string or a ' +
      'boolean passes for an integer, a numeric string or a boolean for a number, "true" or "false", 1 or 0 for ' +
      'a boolean, a number or a boolean for a string.',
    {
      ignoresRequestError: (_op, e, body) =>
        e.keyword === 'type' && laxCoercible(valueAt(body, e.instancePath), String(e.params.type)),
    },
  ),
  fault(
    'member-case-folded',
    'GEN-NO-MEMBER-CASE-FOLDING',
    'Request members are bound without regard to letter case, as ASP.NET Core does by default: FiscalName stands ' +
      'for fiscalName, so a body that names its required fields in another case is not missing them.',
    {
      ignoresRequestError: (_op, e, body) => {
        const holder = valueAt(body, e.instancePath);
        const missing = String(e.params.missingProperty).toLowerCase();
        return (
          e.keyword === 'required' && isObject(holder) && Object.keys(holder).some((k) => k.toLowerCase() === missing)
        );
      },
    },
  ),
  fault(
    'credential-errors-403',
    'HTTP-AUTH-401',
    'Missing or rejected credentials are answered 403 instead of 401 (same body).',
    {
      reply: (reply) => (reply.outcome === 'auth' ? { ...reply, status: 403 } : reply),
    },
  ),
  fault(
    'invalid-input-200',
    'HTTP-INVALID-INPUT-4XX',
    'Invalid input is answered HTTP 200 with the same documented error body.',
    {
      reply: (reply, facts) =>
        INVALID_INPUT_OUTCOMES.has(reply.outcome) && INVALID_INPUT_OPS.has(facts.op)
          ? { ...reply, status: 200 }
          : reply,
    },
  ),
  ...BEARER_OPS.map(authNotRequired),
  errorBecomes(
    10,
    CREDENTIAL_ERRORS,
    'op10-refusal-carries-voucher',
    'OP10-AUTH-REQUIRED',
    'A request without valid credentials is refused with 401, but its body is the voucher the token gets, as a ' +
      'handler that sets the status and goes on sends it.',
    () => json(VOUCHERS['0001-00012345']),
  ),
  fault(
    'op12-auth-not-required-deletes-once',
    'OP12-AUTH-REQUIRED',
    'Operation 12 deletes with missing or invalid credentials, and a deleted product stays deleted (not found), as ' +
      'a real store does: sent after the deletion with the token, a request without credentials is refused as not ' +
      'found, whatever the server checks.',
    { authRule: (o, rule) => (o === 12 ? 'none' : rule), choices: { deletions: 'once' } },
  ),
  tokenComparedLoosely(
    9,
    'op9-token-case-insensitive',
    'GET /prices compares the Bearer token without regard to case (as a case-insensitive collation would): ' +
      'the token in the other letter case is accepted.',
    (presented, token) => presented.toLowerCase() === token.toLowerCase(),
  ),
  tokenComparedLoosely(
    11,
    'op11-token-last-character-unchecked',
    'GET /miCuenta/pedidos/… compares only the first n − 1 characters of an n-character Bearer token ' +
      '(an off-by-one in a hand-written comparison): a token differing in its last character is accepted.',
    (presented, token) => presented.length === token.length && presented.slice(0, -1) === token.slice(0, -1),
  ),
  tokenComparedLoosely(
    10,
    'op10-token-prefix-accepted',
    'GET /paymentVoucher/… accepts any prefix of the Bearer token of 8 characters or more (a comparison of the ' +
      "presented token's length only): the token without its last character is accepted.",
    (presented, token) => presented.length >= 8 && token.startsWith(presented),
  ),
  tokenComparedLoosely(
    13,
    'op13-token-extension-accepted',
    'POST /postventa accepts the Bearer token with more characters after it (only its first bytes compared, as ' +
      'bcrypt hashes 72): the token with one character added is accepted.',
    (presented, token) => presented.startsWith(token),
  ),
  tokenComparedLoosely(
    12,
    'op12-undefined-token-accepted',
    'DELETE /miCuenta/misProductos/… also takes a legacy token, compared as text while its setting is unset: ' +
      '"Bearer undefined", what a client whose token is unset sends, is accepted.',
    (presented, token) => presented === token || presented === 'undefined',
  ),
  tokenComparedLoosely(
    14,
    'op14-channel-token-as-bearer',
    "GET /postventa/{id}/messageChannel takes the seeded channel's token (the default RSF_CHANNEL_TOKEN) as a Bearer " +
      'token too, as if the two were one kind.',
    (presented, token) => presented === token || presented === DEFAULT_CHANNEL_TOKEN,
  ),
  fault(
    'op13-auth-refusal-server-error',
    'OP13-AUTH-REQUIRED',
    'POST /postventa answers refused credentials with HTTP 500 and a plain "Internal Server Error", as a handler ' +
      'that cannot parse the Authorization header crashes: refused, but with no "not authenticated" error (§5.4).',
    {
      reply: (reply, facts) =>
        facts.op === 13 && reply.outcome === 'auth'
          ? { ...reply, status: 500, body: plain('Internal Server Error') }
          : reply,
    },
  ),
  fault(
    'op13-token-without-scheme-accepted',
    'HTTP-AUTH-BEARER-ONLY',
    'POST /postventa takes an Authorization header of one word, the token alone, as if "Bearer" came before it.',
    {
      authorization: (op, header) =>
        op === 13 && header !== undefined && !/\s/.test(header) ? `Bearer ${header}` : header,
    },
  ),

  fault(
    'op9-lowercase-scheme-any-token',
    'OP9-AUTH-REQUIRED',
    'GET /prices takes any token under the scheme written in lower case, "bearer <token>", as a path for legacy ' +
      'clients that skips the token check does (indep98).',
    { authorization: (op, header, token) => (op === 9 && header?.startsWith('bearer ') ? `Bearer ${token}` : header) },
  ),
  fault(
    'bearer-scheme-case-sensitive',
    'HTTP-AUTH-SCHEME-CASE',
    'The Authorization scheme is compared as written: "bearer <token>" is refused as "Bearer <token>" is taken, ' +
      'where RFC 9110 §11.1 makes the scheme case-insensitive (indep95).',
    { authorization: (_op, header) => (header?.startsWith('bearer ') ? `Invalid ${header.slice(7)}` : header) },
  ),

  // Operation 1, PATCH /client.
  ((): FaultDefinition => {
    let taken: string | undefined;
    return successBecomes(
      1,
      'op1-unchanged-update-without-message',
      'OP1-SUCCESS-SHAPE',
      'An update whose body is the one just taken finds nothing to change, and answers {status: "ok"} without ' +
        'the message §4.1 requires (indep98).',
      (_reply, body) => {
        const text = JSON.stringify(body);
        const unchanged = text === taken;
        taken = text;
        return unchanged ? json({ status: 'ok' }) : undefined;
      },
    );
  })(),
  successBecomes(
    1,
    'op1-success-message-missing',
    'OP1-SUCCESS-SHAPE',
    'An update without the optional fields answers {status: "ok"}, without message.',
    (_reply, body) => ('secondaryPhone' in body || 'clientWebsite' in body ? undefined : json({ status: 'ok' })),
  ),
  successBecomes(
    1,
    'op1-success-status-number',
    'OP1-SUCCESS-SHAPE',
    'Every successful update answers {status: 200, message}: the HTTP status as a number, where §4.1 shows a ' +
      'string. The optional fields are taken all the same: OP1-OPTIONAL-FIELDS is not broken (indep97).',
    (reply) =>
      reply.body.kind === 'json' && isObject(reply.body.value) ? json({ ...reply.body.value, status: 200 }) : undefined,
  ),
  successBecomes(
    1,
    'op1-success-message-empty',
    'OP1-SUCCESS-MESSAGE',
    'A successful update answers {status: "ok", message: ""}: the message lists the optional data changed, and an ' +
      'update without them has none to list.',
    (_reply, body) =>
      'secondaryPhone' in body || 'clientWebsite' in body ? undefined : json({ status: 'ok', message: '' }),
  ),
  schemaRuleIgnored(1, 'required', 'OP1-REQUIRED-FIELDS'),
  requestErrorIgnored(
    1,
    'op1-list-for-string-joined',
    'OP1-FIELD-TYPES',
    'A client update with a list for mainPhone (["+54 …", "+54 …"]) is carried out, as a "several phones" ' +
      'normaliser that joins a list into one string takes it; a number there is still refused.',
    (e, body) =>
      e.keyword === 'type' && e.instancePath === '/mainPhone' && isObject(body) && Array.isArray(body.mainPhone),
  ),
  schemaRuleIgnored(1, 'type', 'OP1-FIELD-TYPES'),
  requestErrorIgnored(
    1,
    'op1-main-phone-optional-with-secondary',
    'OP1-REQUIRED-FIELDS',
    'A client update that carries secondaryPhone may leave mainPhone out, as if the one stood in for the other.',
    (e, body) => e.params.missingProperty === 'mainPhone' && isObject(body) && 'secondaryPhone' in body,
  ),
  successReplaced(
    1,
    'op1-optional-fields-rejected',
    'OP1-OPTIONAL-FIELDS',
    'A client update carrying secondaryPhone or clientWebsite is rejected.',
    () => new Rejection('invalid', 'secondaryPhone and clientWebsite are not accepted'),
    (body) => 'secondaryPhone' in body || 'clientWebsite' in body,
  ),
  successReplaced(
    1,
    'op1-optional-fields-coupled',
    'OP1-OPTIONAL-FIELDS',
    'A client update with secondaryPhone but no clientWebsite is rejected, as if the two were required together.',
    () => new Rejection('invalid', 'secondaryPhone needs clientWebsite'),
    (body) => 'secondaryPhone' in body && !('clientWebsite' in body),
  ),
  successReplaced(
    1,
    'op1-astral-text-crash',
    'OP1-SUCCESS-SHAPE',
    'A client update whose strings hold a character outside the Basic Multilingual Plane (an emoji, say) answers ' +
      'HTTP 500 "Internal server error", as a write to a 3-byte utf8 database column fails.',
    internalError,
    (body) => ASTRAL_CHARACTER.test(JSON.stringify(body)),
  ),
  successReplaced(
    3,
    'op3-combining-marks-crash',
    'OP3-SUCCESS-SHAPE',
    'An address update whose strings hold a combining mark (U+0300 to U+036F: an accent typed apart from its ' +
      'letter, NFD) answers HTTP 500, as a column collation that refuses them fails (indep100).',
    internalError,
    (body) => /[\u0300-\u036f]/.test(JSON.stringify(body)),
  ),
  successReplaced(
    1,
    'op1-secondary-phone-beyond-ascii-crash',
    'OP1-SUCCESS-SHAPE',
    'A client update whose optional secondaryPhone holds a character outside ASCII answers HTTP 500, as a column ' +
      'of a legacy charset that only the optional fields kept fails (indep100: they were never varied).',
    internalError,
    (body) => [...String(body.secondaryPhone ?? '')].some((c) => c > '\x7f'),
  ),
  fault(
    'op1-array-body-crash',
    'OP1-ERROR-SHAPE',
    'A client update whose body is a JSON array answers HTTP 500 with a stack line, as code that reads a field of ' +
      "a list does (\"'list' object has no attribute 'get'\"), instead of {status, message}.",
    {
      ignoresRequestError: (op, e, body) => op === 1 && e.instancePath === '' && Array.isArray(body),
      reply: (reply, { op, body }) =>
        op === 1 && Array.isArray(body)
          ? { status: 500, body: plain("AttributeError: 'list' object has no attribute 'get'"), outcome: 'internal' }
          : reply,
    },
  ),
  errorBecomes(
    1,
    OTHER_ERRORS,
    'op1-error-shape-wrong',
    'OP1-ERROR-SHAPE',
    'Rejected client updates answer {error: "..."} instead of {status, message}.',
    (m) => json({ error: m }),
  ),
  requestErrorIgnored(
    1,
    'op1-website-not-checked',
    'OP1-WEBSITE-URI',
    'A clientWebsite that is not a URI is accepted (the ajv "format" error is ignored).',
    (e) => e.keyword === 'format' && e.instancePath === '/clientWebsite',
  ),
  requestErrorIgnored(
    1,
    'op1-website-unchecked-beside-secondary-phone',
    'OP1-WEBSITE-URI',
    'A clientWebsite that is not a URI is accepted when secondaryPhone is sent too: the check runs on one path only.',
    (e, body) =>
      e.keyword === 'format' && e.instancePath === '/clientWebsite' && isObject(body) && 'secondaryPhone' in body,
  ),

  // Operation 2, POST /miCuenta/shippingAddress.
  successBecomes(
    2,
    'op2-success-msg-missing',
    'OP2-SUCCESS-SHAPE',
    'An address created with placeId (and no provinceId) answers {success: "ok", addressId} without msg.',
    (reply, body) =>
      body.placeId !== undefined && body.provinceId === undefined && isObject(jsonValue(reply))
        ? json({ success: 'ok', addressId: (jsonValue(reply) as Obj).addressId })
        : undefined,
  ),
  fault(
    'op2-redirect-via-localhost',
    'OP2-SUCCESS-SHAPE',
    'An address creation answers 307 to the same path on "localhost", the name the app builds its URLs from, at the ' +
      'port it was reached at: nothing is created, and the redirect stays on this machine.',
    {
      reply: (reply, { op, host }) => {
        if (op !== 2 || reply.outcome !== 'success') return reply;
        const port = host.slice(host.lastIndexOf(':') + 1);
        const location = `http://localhost:${port}/v1/miCuenta/shippingAddress/`;
        // A transport kind keeps its status in every mode (deployment's errors with 200 included).
        return { status: 307, outcome: 'no-route', body: plain('Temporary Redirect'), headers: { location } };
      },
    },
  ),
  successReplaced(
    2,
    'op2-long-street-crash',
    'OP2-SUCCESS-SHAPE',
    'An address creation whose direccion is longer than 255 characters answers HTTP 500, as a write to a ' +
      'VARCHAR(255) column that fails does: a server error, never a refusal for the size §8 leaves open, though the ' +
      'same address cut short is taken.',
    internalError,
    (body) => [...String(body.direccion ?? '')].length > 255,
  ),
  successReplaced(
    2,
    'op2-beyond-latin1-refused',
    'OP2-SUCCESS-SHAPE',
    'An address creation whose direccion holds a character beyond Latin-1 (Greek, CJK, an emoji) is refused as ' +
      "invalid, as a Latin-1 column's validation refuses it: §4.2 lists no such refusal. A refusal of the " +
      'characters, not of the length: the configured address at the same length is taken (the size control).',
    () => new Rejection('invalid', 'direccion holds characters that are not allowed'),
    (body) => [...String(body.direccion ?? '')].some((c) => c > '\u00ff'),
  ),
  schemaRuleIgnored(2, 'required', 'OP2-REQUIRED-FIELDS', STREET_FIELDS),
  schemaRuleIgnored(2, 'type', 'OP2-FIELD-TYPES'),
  requestErrorIgnored(
    2,
    'op2-placestring-not-required',
    'OP2-PROVINCE-REQUIRES-PLACESTRING',
    'provinceId without placeString is accepted.',
    (e) => e.keyword === 'required' && e.params.missingProperty === 'placeString',
  ),
  requestErrorIgnored(
    2,
    'op2-placeid-not-required',
    'OP2-PLACEID-REQUIRED-WITHOUT-PROVINCE',
    'An address with neither provinceId nor placeId is accepted.',
    (e) => e.keyword === 'required' && e.params.missingProperty === 'placeId',
  ),
  successReplaced(
    2,
    'op2-province-variant-rejected',
    'OP2-PROVINCE-VARIANT-ACCEPTED',
    'An address with provinceId and placeString but no placeId is rejected as "placeId is mandatory".',
    () => new Rejection('missing-data', 'placeId is mandatory', ['placeId']),
    (body) => body.provinceId !== undefined && body.placeId === undefined,
  ),
  replyChanged(
    2,
    'op2-missing-data-as-object',
    'OP2-MISSING-DATA-PLAIN-STRING',
    'Missing address data is answered {success: "error", msg} instead of a plain string.',
    'missing-data',
    (reply) => ({ ...reply, body: json({ success: 'error', msg: reply.message }) }),
  ),
  replyChanged(
    2,
    'op2-missing-data-as-web-page',
    'OP2-MISSING-DATA-PLAIN-STRING',
    "Missing address data is answered with nginx's own page for a 400 (proxy_intercept_errors in front of the API), " +
      'a whole HTML document, instead of the plain string naming the missing item.',
    'missing-data',
    (reply) => ({
      ...reply,
      body: raw(
        '<html>\r\n<head><title>400 Bad Request</title></head>\r\n<body>\r\n<center><h1>400 Bad Request</h1>' +
          '</center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n',
        'text/html',
      ),
    }),
  ),
  fault(
    'op2-missing-placeid-unnamed',
    'OP2-MISSING-PLACEID-NAMED',
    'The plain string for a missing placeId does not name placeId.',
    {
      reply: (reply, facts) =>
        facts.op === 2 && reply.missingFields?.includes('placeId') ? unnamed(['placeId'])(reply) : reply,
    },
  ),
  fault(
    'op2-missing-field-unnamed',
    'OP2-MISSING-FIELD-NAMED',
    'The plain string for a missing direccion, telefono or codigoPostal does not name it.',
    {
      reply: (reply, facts) =>
        facts.op === 2 && reply.missingFields?.some((f) => STREET_FIELDS.includes(f as never))
          ? unnamed(STREET_FIELDS)(reply)
          : reply,
    },
  ),
  errorBecomes(
    2,
    CREDENTIAL_ERRORS,
    'op2-auth-error-unlisted-shape',
    'OP2-AUTH-ERROR-BODY',
    'The credentials error is {error_message}, a shape §7.1 does not list for operations 2 to 4.',
    (m) => json({ error_message: m }),
  ),
  successBecomes(
    2,
    'op2-address-id-omitted',
    'OP2-ADDRESS-ID-RETURNED',
    'The creation response has no addressId.',
    (reply) => {
      const value = jsonValue(reply);
      if (!isObject(value)) return undefined;
      const { addressId: _omitted, ...rest } = value;
      return json(rest);
    },
  ),

  // Operation 3, PATCH /miCuenta/shippingAddress.
  successBecomes(
    3,
    'op3-success-msg-missing',
    'OP3-SUCCESS-SHAPE',
    'The success body lacks msg: {success: "ok"}.',
    () => json({ success: 'ok' }),
  ),
  schemaRuleIgnored(3, 'required', 'OP3-REQUIRED-FIELDS'),
  schemaRuleIgnored(3, 'type', 'OP3-FIELD-TYPES', ['direccion', 'telefono', 'codigoPostal', 'idDirCli']),
  errorBecomes(
    3,
    OTHER_ERRORS,
    'op3-error-unlisted-shape',
    'OP3-ERROR-SHAPE',
    'Rejected address updates answer {error_message}, a shape §7.1 does not list for operations 2 to 4.',
    (m) => json({ error_message: m }),
  ),
  errorBecomes(
    3,
    OTHER_ERRORS,
    'op3-error-plain-string',
    'OP3-ERROR-SHAPE',
    'Rejected address updates answer their message as a plain string, which §7.1 lists for operations 2, 7, 8 and ' +
      '9, not 3 (as an unhandled parse error of a framework is answered).',
    (m) => plain(m),
  ),
  errorBecomes(
    3,
    CREDENTIAL_ERRORS,
    'op3-auth-error-unlisted-shape',
    'OP3-AUTH-ERROR-BODY',
    'The credentials error is {error_message}, a shape §7.1 does not list for operations 2 to 4.',
    (m) => json({ error_message: m }),
  ),

  // Operation 4, PATCH /miCuenta/misCategorias.
  successBecomes(
    4,
    'op4-success-not-boolean',
    'OP4-SUCCESS-SHAPE',
    'The success body carries success as the string "ok" instead of true.',
    () => json({ success: 'ok', msg: 'Category updated' }),
  ),
  successBecomes(
    4,
    'op4-hidden-category-success-without-msg',
    'OP4-SUCCESS-SHAPE',
    'An update that hides its category (hide true) answers {success: true} without msg; one that shows it is right.',
    (_reply, body) => (body.hide === true ? json({ success: true }) : undefined),
  ),
  schemaRuleIgnored(4, 'required', 'OP4-REQUIRED-FIELDS'),
  schemaRuleIgnored(4, 'type', 'OP4-FIELD-TYPES', ['utility', 'description', 'hide']),
  requestErrorIgnored(
    4,
    'op4-utility-unchecked-when-hidden',
    'OP4-UTILITY-MAX',
    'A category update with hide true has its utility left unchecked: above 100 is accepted.',
    (e, body) => e.keyword === 'maximum' && e.instancePath === '/utility' && isObject(body) && body.hide === true,
  ),
  requestErrorIgnored(
    4,
    'op4-description-null-accepted',
    'GEN-NO-TYPE-COERCION',
    'A category update whose description is null is carried out, as if null were a description.',
    (e, body) => e.instancePath === '/description' && isObject(body) && body.description === null,
  ),
  requestErrorIgnored(
    4,
    'op4-utility-unbounded',
    'OP4-UTILITY-MAX',
    'utility is not bounded: 100.01 and 1e9 are accepted (the ajv "maximum" error is ignored).',
    (e) => e.keyword === 'maximum' && e.instancePath === '/utility',
  ),
  successReplaced(
    4,
    'op4-utility-limit-refused',
    'OP4-UTILITY-MAX',
    'utility 100 is refused, as if the bound were checked as utility < 100 (off by one).',
    () => new Rejection('rule', 'utility must be below 100'),
    (body) => body.utility === 100,
  ),
  fault(
    'op4-unknown-category-accepted',
    'OP4-UNKNOWN-CATEGORY',
    'An update of a category that does not exist answers success.',
    { ignoresRule: 'category-exists' },
  ),
  errorBecomes(
    4,
    RULE_ERRORS,
    'op4-error-shape-wrong',
    'OP4-ERROR-SHAPE',
    'An update of a category that does not exist, or with utility above 100, is refused with {error: "..."} ' +
      'instead of {success: false, msg} (same status; a missing or mistyped field keeps its body).',
    (m) => json({ error: m }),
  ),
  errorBecomes(
    4,
    FIELD_ERRORS,
    'op4-invalid-body-error-unlisted-shape',
    'OP4-INVALID-BODY-ERROR-SHAPE',
    'A category update with a missing or mistyped field is refused with {error_message}, ' +
      'a shape §7.1 does not list for operations 2 to 4 ' +
      '(same status; unknown-category and utility refusals keep their body).',
    (m) => json({ error_message: m }),
  ),
  errorBecomes(
    4,
    CREDENTIAL_ERRORS,
    'op4-auth-error-unlisted-shape',
    'OP4-AUTH-ERROR-BODY',
    'The credentials error is {error_message}, a shape §7.1 does not list for operations 2 to 4.',
    (m) => json({ error_message: m }),
  ),
  errorBecomes(
    4,
    CREDENTIAL_ERRORS,
    'op4-auth-error-plain-string',
    'OP4-AUTH-ERROR-BODY',
    'The credentials error is the plain string "Unauthorized", as an authentication middleware answers it; §7.1 ' +
      'lists the plain string for operations 2, 7, 8 and 9, not 4.',
    () => plain('Unauthorized'),
  ),

  fault(
    'op11-path-decoded-twice',
    'OP11-SUCCESS-SHAPE',
    'The order route decodes its path parameters a second time, as a router and a framework in front of it each ' +
      'do: a branch or albNumber with a percent sign not followed by two hex digits ("50% +") answers HTTP 500 ' +
      '(URIError: URI malformed), where §4.11 shows no limit on the text.',
    {
      reply: (reply, { op, params = {} }) => {
        if (op !== 11) return reply;
        try {
          for (const value of Object.values(params)) decodeURIComponent(value);
          return reply;
        } catch {
          return { status: 500, body: plain('URIError: URI malformed'), outcome: 'internal' };
        }
      },
    },
  ),

  fault(
    'op13-echo-without-escaping',
    'OP13-SUCCESS-SHAPE',
    'The post-sale request created is answered with the request echoed by a hand-written JSON encoder that does not ' +
      'escape a double quote: a request whose text holds one (3º "B") gets a body that is not JSON, under ' +
      'application/json, where §4.13 shows a JSON object.',
    {
      reply: (reply, { op, body }) => {
        const value = jsonValue(reply);
        if (op !== 13 || reply.outcome !== 'success' || !isObject(value)) return reply;
        const naive = JSON.stringify({ ...value, request: body }).replace(/\\"/g, '"');
        return { ...reply, body: raw(naive, 'application/json') };
      },
    },
  ),

  // Operation 5, POST /carrito/item.
  successBecomes(
    5,
    'op5-success-as-object',
    'OP5-SUCCESS-SHAPE',
    'The success body is a JSON object instead of a plain string.',
    () => json({ msg: 'Items added to the cart' }),
  ),
  schemaRuleIgnored(5, 'required', 'OP5-REQUIRED-FIELDS'),
  schemaRuleIgnored(5, 'type', 'OP5-FIELD-TYPES'),
  requestErrorIgnored(
    5,
    'op5-boolean-amount-accepted',
    // A form lax parsers take (pydantic reads true as 1): not a wrong type that no parser coerces (indep109).
    'GEN-NO-TYPE-COERCION',
    'A cart item whose amount is a boolean is taken, true as 1 and false as 0, as a lax validator reads it.',
    (e, body) =>
      e.keyword === 'type' &&
      /^\/\d+\/amount$/.test(e.instancePath) &&
      typeof valueAt(body, e.instancePath) === 'boolean',
  ),
  fault(
    'op5-type-null-taken-as-allowed',
    'GEN-NO-TYPE-COERCION',
    'A cart item whose type is null is taken as of the allowed type, as a default fills in a null.',
    {
      ignoresRequestError: (op, e, body) =>
        op === 5 && /^\/\d+\/type$/.test(e.instancePath) && valueAt(body, e.instancePath) === null,
      reply: cartRefusalTaken('rule', (items) =>
        items.every((item) => isObject(item) && (item.type === null || ALLOWED_CART_TYPES.has(item.type as number))),
      ),
    },
  ),
  fault(
    'op5-unknown-product-accepted',
    'OP5-UNKNOWN-PRODUCT',
    'A cart item naming a product that does not exist is accepted.',
    { ignoresRule: 'cart-product-exists' },
  ),
  fault(
    'op5-type-not-allowed-accepted',
    'OP5-TYPE-NOT-ALLOWED',
    'A cart item of a type that is not allowed is accepted.',
    { ignoresRule: 'cart-type-allowed' },
  ),
  fault(
    'op5-type-checked-in-first-item-only',
    'OP5-TYPE-NOT-ALLOWED',
    "Only the first cart item's type is checked: a type that is not allowed in a later item is accepted.",
    {
      reply: cartRefusalTaken(
        'rule',
        ([first, ...others]) => others.length > 0 && isObject(first) && ALLOWED_CART_TYPES.has(first.type as number),
      ),
    },
  ),
  fault(
    'op5-product-checked-in-first-item-only',
    'OP5-UNKNOWN-PRODUCT',
    "Only the first cart item's product is looked up: a product that does not exist in a later item is accepted.",
    {
      reply: cartRefusalTaken(
        'not-found',
        ([first, ...others]) => others.length > 0 && isObject(first) && PRODUCTS.some((p) => p.id === first.productId),
      ),
    },
  ),
  fault(
    'op5-type-unchecked-for-amount-zero',
    'OP5-TYPE-NOT-ALLOWED',
    'An item of amount 0 (nothing to add) alone has its type left unchecked: a type that is not allowed is accepted.',
    {
      // One item only: its product exists, since products are checked before types.
      reply: cartRefusalTaken('rule', (items) => items.length === 1 && isObject(items[0]) && items[0].amount === 0),
    },
  ),
  fault(
    'op5-six-items-crash',
    'OP5-SUCCESS-SHAPE',
    'A cart update of more than five items answers HTTP 500, as a fixed-size buffer of five overflows (indep100): ' +
      '§4.5 shows no limit on the array.',
    {
      reply: (reply, { op, body }) =>
        op === 5 && Array.isArray(body) && body.length > 5
          ? { status: 500, body: plain('java.lang.ArrayIndexOutOfBoundsException: 5'), outcome: 'internal' }
          : reply,
    },
  ),
  fault(
    'op6-price-in-exponent-crashes',
    'OP6-SUCCESS-SHAPE',
    'A unit_price that JSON writes with an exponent (1e+21 and above, or below 1e-6: 1e-7) answers HTTP 500, as a ' +
      'decimal parser that takes plain notation only throws (indep100): §2.5 says number, format float.',
    {
      reply: (reply, { op, body }) => {
        const price = op === 6 && isObject(body) ? body.unit_price : undefined;
        const exponent = typeof price === 'number' && /e/i.test(String(price));
        return exponent && reply.outcome === 'success'
          ? { status: 500, body: plain('java.lang.NumberFormatException: 1E+21'), outcome: 'internal' }
          : reply;
      },
    },
  ),
  fault(
    'op5-amount-beyond-int32-crashes',
    'OP5-SUCCESS-SHAPE',
    'A cart item of a known product and an allowed type whose amount does not fit in 32 bits (2^32, say) answers ' +
      'HTTP 500, as a Java int column overflows: §8 shows no limit on it, and §4.5 lists no such refusal.',
    {
      reply: (reply, { op, body }) =>
        op === 5 &&
        reply.outcome === 'success' &&
        Array.isArray(body) &&
        body.some((item) => isObject(item) && typeof item.amount === 'number' && item.amount > 2 ** 31 - 1)
          ? { status: 500, body: plain('java.lang.ArithmeticException: integer overflow'), outcome: 'internal' }
          : reply,
    },
  ),
  fault(
    'op5-several-items-answered-as-object',
    'OP5-SUCCESS-SHAPE',
    'A cart update of several items is answered with a JSON object counting them, instead of a plain string.',
    {
      reply: (reply, { op, body }) =>
        op === 5 && reply.outcome === 'success' && Array.isArray(body) && body.length > 1
          ? { ...reply, body: json({ added: body.length }) }
          : reply,
    },
  ),

  // Operation 6, POST /carrito/processPreferenceProvider.
  successBecomes(
    6,
    'op6-preference-id-missing',
    'OP6-SUCCESS-SHAPE',
    'The success body names the id preferenceId instead of preference_id.',
    (reply) => json({ preferenceId: (jsonValue(reply) as Obj).preference_id }),
  ),
  authDemanded(6, 'OP6-NO-AUTH-HEADER'),
  schemaRuleIgnored(6, 'required', 'OP6-REQUIRED-FIELDS'),
  schemaRuleIgnored(6, 'type', 'OP6-FIELD-TYPES'),
  errorBecomes(
    6,
    OTHER_ERRORS,
    'op6-error-shape-wrong',
    'OP6-ERROR-SHAPE',
    'A preference that could not be created answers {message} instead of {error_message}.',
    (m) => json({ message: m }),
  ),
  errorBecomes(
    6,
    MALFORMED_BODY,
    'op6-malformed-json-error-camel-case',
    'OP6-ERROR-SHAPE',
    'A body that is not well-formed JSON is refused by the body parser with {errorMessage}, not {error_message}; ' +
      'a body of the wrong fields keeps the documented shape.',
    (m) => json({ errorMessage: m }),
  ),
  fault(
    'op6-several-errors-as-array',
    'OP6-ERROR-SHAPE',
    'A preference with several fields missing answers error_message as an array, a message per field.',
    {
      reply: (reply, { op }) =>
        op === 6 && (reply.missingFields?.length ?? 0) > 1
          ? { ...reply, body: json({ error_message: reply.missingFields?.map((f) => `${f} is mandatory`) }) }
          : reply,
    },
  ),
  successBecomes(
    6,
    'op6-camel-case-id-for-other-quantity',
    'OP6-SUCCESS-SHAPE',
    'A preference of another quantity than 1 names its id preferenceId instead of preference_id.',
    (reply, body) =>
      body.quantity === 1 ? undefined : json({ preferenceId: (jsonValue(reply) as Obj).preference_id }),
  ),

  // Operation 7, GET /carrito/calcularEnvioPara/{codigoPostalFavorito}/{direccionCompleta}.
  successBecomes(
    7,
    'op7-success-as-array',
    'OP7-SUCCESS-SHAPE',
    'The shipping quote is a JSON array of options instead of an object.',
    (reply) => json((jsonValue(reply) as Obj).options),
  ),
  fault(
    'op7-invalid-address-quoted',
    'OP7-INVALID-ADDRESS',
    'A full address without a letter or without a digit is quoted anyway.',
    { ignoresRule: 'address-format' },
  ),
  errorBecomes(
    7,
    OTHER_ERRORS,
    'op7-error-as-object',
    'OP7-ERROR-SHAPE',
    'The shipping error is a JSON object {error} instead of a plain string.',
    (m) => json({ error: m }),
  ),

  // Operation 8, GET /item/{product_id}.
  viewFault(
    'op8-title-null',
    'OP8-SUCCESS-SHAPE',
    'For a logged-in user, the product detail carries title null (not nullable in §2.6).',
    (view, { loggedIn }) => (loggedIn ? { ...view, title: null } : view),
  ),
  viewFault(
    'op8-available-stock-string',
    'OP8-SUCCESS-SHAPE',
    'For a logged-in user, availableStock is a string such as "7".',
    (view, { loggedIn }) =>
      loggedIn && typeof view.availableStock === 'number'
        ? { ...view, availableStock: String(view.availableStock) }
        : view,
  ),
  viewFault(
    'op8-attributes-null-without-stock',
    'OP8-SUCCESS-SHAPE',
    'A product with no stock carries attributes null (not nullable in §2.6); RSF_PRODUCT_ID has stock.',
    (view, { product }) => (product.rawStock <= 0 ? { ...view, attributes: null } : view),
  ),
  viewFault(
    'op8-description-without-type',
    'OP8-SUCCESS-SHAPE',
    'Product 1003 (as if imported from an older catalogue) has a description without its type (§2.6: object ' +
      '{type, value}); RSF_PRODUCT_ID has both.',
    (view, { product }) => (product.id === 1003 ? { ...view, description: { value: 'Imported.' } } : view),
  ),
  authDemanded(8, 'OP8-TOKEN-OPTIONAL'),
  viewFault(
    'op8-anonymous-without-amount-in-cart',
    'OP8-SUCCESS-SHAPE',
    'For a caller without a token, the product detail lacks amountInCart (a guest view built without a cart): ' +
      'served, in a shape §2.6 does not allow, and no refusal of the anonymous caller (§5.2).',
    (view, { presented }) => {
      if (presented !== 'absent') return view;
      const { amountInCart: _, ...guestView } = view;
      return guestView;
    },
  ),
  viewFault(
    'op8-logged-in-fields-leaked',
    'OP8-ANONYMOUS-NO-LOGGED-IN-FIELDS',
    'Callers without an Authorization header get the logged-in stock fields too.',
    (view, { presented, product, choices }) =>
      presented === 'absent' ? { ...view, ...loggedInFields(product, choices) } : view,
  ),
  fault(
    'op8-invalid-token-logged-in',
    'OP8-INVALID-TOKEN-NO-LOGGED-IN-FIELDS',
    'Any Bearer token, even one not accepted, counts as logged in.',
    {
      credentials: (op, presented) => (op === 8 && presented === 'invalid' ? 'valid' : presented),
    },
  ),
  fault(
    'token-scheme-taken',
    'HTTP-AUTH-BEARER-ONLY',
    "Every operation takes the token under the scheme Token as under Bearer, as Rails' " +
      'authenticate_with_http_token does: "Token <token>" is the caller\'s token (indep113); a deleted product ' +
      'stays deleted (not found), as a real store does.',
    { authorization: (_op, header) => header?.replace(/^Token /, 'Bearer '), choices: { deletions: 'once' } },
  ),
  fault(
    'op8-any-scheme-logged-in',
    'HTTP-AUTH-BEARER-ONLY',
    "Operation 8's optional sign-in reads the last word of the Authorization header, whatever its scheme: the " +
      'token alone, or under another scheme than Bearer, counts as logged in.',
    {
      authorization: (op, header) => {
        const last = header?.trim().split(/\s+/).at(-1);
        return op === 8 && last ? `Bearer ${last}` : header;
      },
    },
  ),
  viewFault(
    'op8-logged-in-fields-omitted',
    'OP8-LOGGED-IN-FIELDS',
    'The logged-in stock fields are never sent.',
    (view) => {
      const { stockDisplayLimit: _l, availableStock: _a, availableStockLabel: _s, ...rest } = view;
      return rest;
    },
  ),
  viewFault(
    'op8-stock-label-missing-without-stock',
    'OP8-LOGGED-IN-FIELDS',
    'availableStockLabel is left out for a logged-in caller when the product has no stock.',
    (view, facts) => {
      if (!facts.loggedIn || view.availableStock !== 0) return view;
      const { availableStockLabel: _s, ...rest } = view;
      return rest;
    },
  ),
  viewFault(
    'op8-stock-unclamped',
    'OP8-STOCK-BOUNDS',
    'availableStock is the raw stock, not clamped to [0, stockDisplayLimit] (-3 and 500 leak).',
    (view, { loggedIn, product }) => (loggedIn ? { ...view, availableStock: product.rawStock } : view),
  ),
  labelSays(
    'op8-stock-label-mismatch',
    'OP8-STOCK-LABEL',
    'Below the display limit the label says "N units or more" instead of "N units".',
    (n, limit) => n > 0 && n < limit,
    (n) => `${n} units or more`,
  ),
  labelSays(
    'op8-exact-label-at-limit',
    'OP8-STOCK-LABEL-AT-LIMIT',
    'At the display limit the label says "N units" instead of "N units or more".',
    (n, limit) => n > 0 && n === limit,
    (n) => `${n} units`,
  ),
  fault(
    'op8-unknown-product-found',
    'OP8-UNKNOWN-PRODUCT',
    'A product that does not exist answers 200 with a stand-in product detail.',
    { ignoresRule: 'product-exists' },
  ),
  errorBecomes(
    8,
    OTHER_ERRORS,
    'op8-error-as-object',
    'OP8-ERROR-SHAPE',
    'The "could not be obtained" error is a JSON object {error} instead of a plain string.',
    (m) => json({ error: m }),
  ),

  // Operation 9, GET /prices.
  successBecomes(9, 'op9-sku-not-string', 'OP9-SUCCESS-SHAPE', 'Price entries carry sku as a number.', (reply) =>
    json((jsonValue(reply) as Obj[]).map((e) => ({ ...e, sku: Number(String(e.sku).replace(/\D/g, '')) }))),
  ),
  successBecomes(
    9,
    'op9-prices-keyed-by-id',
    'OP9-SUCCESS-SHAPE',
    "The price list is an object keyed by id, as PHP's json_encode writes an array whose keys are ids: the " +
      'preflight takes it for the price list, and the test fails its shape.',
    (reply) => json(Object.fromEntries((jsonValue(reply) as Obj[]).map((e) => [String(e.id), e]))),
  ),
  successBecomes(
    9,
    'op9-prices-as-ndjson',
    'OP9-SUCCESS-SHAPE',
    'The price list is sent as one entry a line (application/x-ndjson), as an export endpoint streams it: the ' +
      'preflight takes it for the price list, since its lines name the fields of §2.7, and the test fails its shape.',
    (reply) => raw(`${(jsonValue(reply) as Obj[]).map((e) => JSON.stringify(e)).join('\n')}\n`, 'application/x-ndjson'),
  ),
  errorBecomes(
    9,
    CREDENTIAL_ERRORS,
    'op9-auth-error-as-object',
    'OP9-AUTH-ERROR-BODY',
    'The "not authenticated" error is {error_message} instead of a plain string.',
    (m) => json({ error_message: m }),
  ),
  successBecomes(
    9,
    'op9-final-price-without-iva',
    'OP9-FINAL-PRICE',
    'finalPrice ignores iva: it equals value.',
    (reply) => json((jsonValue(reply) as Obj[]).map((e) => ({ ...e, finalPrice: e.value }))),
  ),

  // Operations 10 to 15.
  successBecomes(
    10,
    'op10-success-as-array',
    'OP10-SUCCESS-SHAPE',
    'The payment voucher is wrapped in a JSON array.',
    (reply) => json([jsonValue(reply)]),
  ),
  successBecomes(
    11,
    'op11-success-as-array',
    'OP11-SUCCESS-SHAPE',
    'The order detail is wrapped in a JSON array.',
    (reply) => json([jsonValue(reply)]),
  ),
  successReplaced(
    12,
    'op12-delete-not-found',
    'OP12-DELETE-SUCCEEDS',
    'Deleting a product of the account answers 404 "not found".',
    () => new Rejection('not-found', 'product not found'),
  ),
  successBecomes(
    13,
    'op13-success-as-string',
    'OP13-SUCCESS-SHAPE',
    'The created post-sale request is answered with the plain string "created".',
    () => plain('created'),
  ),
  requestErrorIgnored(
    13,
    'op13-body-not-object-accepted',
    'OP13-FIELD-TYPES',
    'Operation 13 accepts a body that is not a JSON object (an array, say): the ajv "type" error of ' +
      'post-sale.request is ignored.',
    (e) => e.keyword === 'type' && e.instancePath === '',
  ),
  fault(
    'op13-malformed-json-accepted',
    'OP13-FIELD-TYPES',
    'Operation 13 answers a body that is not well-formed JSON as if its sample body had come, as a handler that ' +
      'falls back to a default object when the parse fails does.',
    { acceptsMalformedJson: (op) => op === 13 },
  ),
  successBecomes(
    14,
    'op14-success-as-array',
    'OP14-SUCCESS-SHAPE',
    'The message channel is answered with the bare JSON array of messages.',
    (reply) => json((jsonValue(reply) as Obj).messages),
  ),
  replyChanged(
    14,
    'op14-id-not-integer-answered',
    'OP14-FIELD-TYPES',
    'A postsaleInboundId that is not an integer is answered with an empty channel instead of refused.',
    'invalid',
    () => ({ status: 200, outcome: 'success', body: json({ messages: [] }) }),
  ),
  successBecomes(
    15,
    'op15-success-as-string',
    'OP15-SUCCESS-SHAPE',
    'A sent message is answered with the plain string "ok" instead of {success}.',
    () => plain('ok'),
  ),
  fault(
    'op15-route-method-not-allowed',
    'OP15-SUCCESS-SHAPE',
    "Operation 14's route, registered without an end anchor, takes operation 15's paths too, and answers every POST " +
      'of them 405 Method Not Allowed (Allow: GET), whatever the channel token.',
    {
      reply: (reply, { op }) =>
        op === 15
          ? { status: 405, outcome: 'method', body: plain('Method Not Allowed'), headers: { allow: 'GET' } }
          : reply,
    },
  ),
  authDemanded(15, 'OP15-NO-AUTH-HEADER'),
  fault('op15-channel-token-unchecked', 'OP15-CHANNEL-TOKEN', 'Any channel token in the path is accepted.', {
    ignoresRule: 'channel-token',
  }),
  fault(
    'op15-channel-token-case-insensitive',
    'OP15-CHANNEL-TOKEN',
    'The channel token is compared without regard to case: the token in the other letter case is accepted.',
    { channelTokenMatches: (presented, token) => presented.toLowerCase() === token.toLowerCase() },
  ),
  fault(
    'op15-access-token-as-channel-token',
    'OP15-CHANNEL-TOKEN',
    "The account's access token (RSF_BEARER_TOKEN, or a token minted) is taken in place of the channel token.",
    { channelTokenMatches: (presented, token, isAccessToken) => presented === token || isAccessToken(presented) },
  ),
  fault(
    'op15-bearer-overrides-channel-token',
    'OP15-CHANNEL-TOKEN',
    'A valid Bearer header, which operation 15 does not carry (§5.3), lets any channel token through: a logged-in ' +
      'account posts to any channel as any of its users.',
    { channelTokenMatches: (presented, token, _isAccessToken, bearer) => presented === token || bearer === 'valid' },
  ),
  fault(
    'op15-channel-found-by-token',
    'OP15-TOKEN-OF-ITS-CHANNEL',
    "Operation 15 finds the channel by the token in its path and ignores the path's postsaleInboundId: one " +
      "channel's token posts to it through any other channel's path (indep95).",
    { findsChannelByToken: true },
  ),
  schemaRuleIgnored(15, 'required', 'OP15-REQUIRED-FIELDS'),
  requestErrorIgnored(
    15,
    'op15-array-body-accepted',
    'OP15-FIELD-TYPES',
    'A body that is a JSON array (the message object in a list of one) is taken, as if it were the message.',
    (e, body) => e.instancePath === '' && Array.isArray(body),
  ),
  fault(
    'op15-multiline-message-answered-empty',
    'OP15-SUCCESS-SHAPE',
    'A message with a line break is stored, but answered {} without success, as if its second line were lost.',
    {
      reply: (reply, { op, body }) =>
        op === 15 && reply.outcome === 'success' && isObject(body) && /\n/.test(String(body.message))
          ? { ...reply, body: json({}) }
          : reply,
    },
  ),
  schemaRuleIgnored(15, 'type', 'OP15-FIELD-TYPES'),

  // Links between operations: each operation answers as it should on its own.
  idMovedAway(
    2,
    'addressId',
    'op2-address-id-unknown',
    'LINK-ADDRESS-CREATED-UPDATABLE',
    'The addressId of a created address names no address: an update by it is refused as not found.',
  ),
  successBecomes(
    14,
    'op14-sent-messages-missing',
    'LINK-CHANNEL-MESSAGE-READABLE',
    "Operation 14 leaves out the messages the channel's user sent with operation 15 (support's messages stay).",
    (reply) => {
      const value = jsonValue(reply);
      if (!isObject(value) || !Array.isArray(value.messages)) return undefined;
      const fromOthers = value.messages.filter((m) => !isObject(m) || m.userId !== SEED_CHANNEL.userId);
      return json({ ...value, messages: fromOthers });
    },
  ),
  viewFault(
    'op8-description-type-label',
    'OP8-DESCRIPTION-MEDIA-TYPE',
    "The description's type is an enum's label, PLAIN_TEXT, where §2.6 says a media-type-like string (text/plain).",
    (view) =>
      isObject(view.description) ? { ...view, description: { ...view.description, type: 'PLAIN_TEXT' } } : view,
  ),
  viewFault(
    'op8-anonymous-sees-account-cart',
    'OP8-ANONYMOUS-NO-CART',
    "An anonymous caller is shown the account's amountInCart (a guest view that reads the storefront account's " +
      'cart): product 1003, which the seeded cart holds, shows 2 without a token.',
    (view, { loggedIn, accountCart }) => (loggedIn ? view : { ...view, amountInCart: accountCart }),
  ),
  viewFault(
    'op8-amount-in-cart-zero',
    'LINK-CART-AMOUNT-IN-PRODUCT',
    'For a logged-in user, amountInCart is 0 whatever the cart holds.',
    (view, { loggedIn }) => (loggedIn ? { ...view, amountInCart: 0 } : view),
  ),
  idMovedAway(
    13,
    'postsaleInboundId',
    'op13-id-unknown',
    'LINK-POSTSALE-CHANNEL-READABLE',
    'The postsaleInboundId of a created post-sale request names no channel: operation 14 answers not found.',
  ),
];

/** The faults, without their wiring. */
export const FAULTS: readonly Fault[] = FAULT_DEFINITIONS.map(({ name, breaks, description }) => ({
  name,
  breaks,
  description,
}));

export function faultNamed(name: string): FaultDefinition | undefined {
  return FAULT_DEFINITIONS.find((f) => f.name === name);
}

/**
 * Path prefix of a profile: '' (clean reference), '/_modes/<mode>' or '/_faults/<fault>'.
 * Faults run in the reference mode.
 */
export function profilePath({ mode, fault: faultName }: { mode?: string; fault?: string } = {}): string {
  if (mode !== undefined && faultName !== undefined && mode !== 'reference')
    throw new Error('a profile has a mode or a fault, not both');
  if (faultName !== undefined) {
    if (!faultNamed(faultName)) throw new Error(`unknown fault "${faultName}"`);
    return `/_faults/${encodeURIComponent(faultName)}`;
  }
  if (mode === undefined || mode === 'reference') return '';
  if (!modeNamed(mode)) throw new Error(`unknown mode "${mode}"`);
  return `/_modes/${encodeURIComponent(mode)}`;
}
