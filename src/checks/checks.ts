// Named checks, after Schemathesis' checks: each declares the requirements it asserts, and judges an exchange against
// them. A test's tags are derived from the checks it runs (tagsOf), so a helper that also judges the status code or the
// content type says so here, once, and never at each call site. Example tests and property probes run the same checks.
import { isUtf8 } from 'node:buffer';
import { isDeepStrictEqual } from 'node:util';
import { requirement } from '../model/catalogue';
import type { RecognitionConfig } from '../config/settings/recognition';
import { CheckFailure, expectedReceived, failure } from './failure';
import {
  type Credentials,
  type Exchange,
  JSON_MEDIA_TYPE,
  isHtmlDocument,
  mediaTypeParameter,
  notJsonBecause,
  plainString,
  schemaInput,
} from '../http/exchange';
import {
  documentsErrors,
  errorMarker,
  isObject,
  labelledJsonNotJson,
  neitherSuccessNorRefusal,
  outcomeOf,
  saysRefused,
  wasRefused,
} from './outcome';
import { schemas } from '../model/schema-registry';
import { printable } from '../model/printable';
import { SIZE_REFUSALS } from './check-protocol';

/** What an assertion may use besides the exchange. */
export interface CheckContext {
  /** The patterns that tell a success from a rejection: a check reads no other setting. */
  config: RecognitionConfig;
  /** Sends the judged request again with other credentials (the "works without credentials" diagnosis). */
  resend?: (credentials: Credentials) => Promise<Exchange>;
  /** A stateful link's exchanges, in order, when the judged exchange is the last of a chain. */
  chain?: readonly Exchange[];
}

/** The exchange cannot speak to the requirement: the check is recorded as untested, with the reason. */
export interface NotApplicable {
  notApplicable: string;
  /** A valid input refused for a reason the spec allows: not judged, but counted in the reports (property.ts). */
  allowedRefusal?: true;
}

export const notApplicable = (reason: string): NotApplicable => ({ notApplicable: reason });

export const isNotApplicable = (value: unknown): value is NotApplicable =>
  isObject(value) && typeof value.notApplicable === 'string';

/** One requirement's judgement of an exchange: returns, returns NotApplicable, or throws (CheckFailure or expect). */
export interface Assertion {
  id: string;
  /* biome-ignore lint/suspicious/noConfusingVoidType: a judge that returns nothing passed;
     callers pass plain `(x) => void` arrows */
  judge: (exchange: Exchange, context: CheckContext) => void | NotApplicable | Promise<void | NotApplicable>;
}

export interface Check {
  /** Plain name, after Schemathesis: negative_data_rejection, ignored_auth… */
  name: string;
  /** What a conforming target does with the request: carry it out, or refuse it (the write-safety gate reads this). */
  expects: 'success' | 'rejection' | 'either';
  /** Judged in order; a failed MUST stops the test. */
  assertions: readonly Assertion[];
}

/** The requirement IDs the checks assert, in order, once each. */
export function requirementsOf(...checks: readonly Check[]): string[] {
  return [...new Set(checks.flatMap((c) => c.assertions.map((a) => a.id)))];
}

/** Playwright tags of the checks' requirements, e.g. ['@OP4-UTILITY-MAX', '@HTTP-INVALID-INPUT-4XX']. */
export function tagsOf(...checks: readonly Check[]): string[] {
  return requirementsOf(...checks).map((id) => `@${id}`);
}

// Problems: the judgements themselves, shared by the checks and by the custom matchers of fixtures' `expect`.

/** A success, as a failure's "expected" says it. */
const expectedSuccess = (exchange: Exchange): string =>
  `the operation to succeed (2xx, a body matching ${exchange.operation.successSchema}, a success value)`;

export function successProblem(exchange: Exchange, config: RecognitionConfig): CheckFailure | undefined {
  const outcome = outcomeOf(exchange, config);
  if (outcome.succeeded) return undefined;
  // A 2xx the target served as a success, in a shape off the documented one, is no refusal (indep97: a 201 created).
  const title = neitherSuccessNorRefusal(exchange, config)
    ? 'The answer is not the documented success'
    : 'The operation did not succeed';
  return failure(title, expectedSuccess(exchange), outcome.reason, outcome.schemaErrors);
}

export function rejectionProblem(exchange: Exchange, config: RecognitionConfig): CheckFailure | undefined {
  const expected = 'the operation to be rejected (a non-2xx status, or a body that is not a success)';
  // A 2xx body not read whole may be a success: it proves no rejection (§8 bounds no body; the cap is ours).
  if (exchange.truncated && exchange.status >= 200 && exchange.status <= 299) {
    const received = `HTTP ${exchange.status} with a response larger than ${exchange.truncated.limitBytes} bytes`;
    return failure('Response too large to tell a rejection', expected, `${received} (RSF_MAX_RESPONSE_BYTES)`);
  }
  const outcome = outcomeOf(exchange, config);
  if (!outcome.succeeded) return undefined;
  return failure('The operation was carried out', expected, `a success: ${outcome.reason}`);
}

export function schemaProblem(exchange: Exchange, names: readonly string[]): CheckFailure | undefined {
  const data = schemaInput(exchange.body);
  const verdicts = names.map((name) => ({ name, ...schemas().validate(name, data) }));
  if (verdicts.some((v) => v.valid)) return typeof data === 'string' ? webPageProblem(exchange, names) : undefined;
  const errors = verdicts.flatMap((v) => (names.length > 1 ? v.errors.map((e) => `${v.name}: ${e}`) : v.errors));
  const expected = `a body matching ${names.map((n) => `schemas/${n}.schema.json`).join(' or ')}`;
  const syntaxError = notJsonBecause(exchange);
  const received = exchange.truncated
    ? `a response larger than ${exchange.truncated.limitBytes} bytes (RSF_MAX_RESPONSE_BYTES), not read whole`
    : syntaxError !== undefined
      ? `a body that is not valid JSON (${syntaxError}), read as text`
      : `a ${exchange.body.kind} body with schema errors`;
  return failure('Response does not match the schema', expected, received, errors);
}

/**
 * A whole HTML document where the spec shows a plain string (§7.1): the page of a web server or proxy in front of the
 * API, or of a framework's error handler (Tomcat's 404), not the API's message; markup inside a message is judged as
 * the text it is. A page with a 2xx status, or a firewall's 403, is not judged at all (blockedInFront, pageInFront).
 */
function webPageProblem(exchange: Exchange, names: readonly string[]): CheckFailure | undefined {
  if (!isHtmlDocument(exchange)) return undefined;
  return failure(
    'A web page where the API answers a plain string',
    `a plain string, as ${names.map((n) => `schemas/${n}.schema.json`).join(' or ')} shows it (§7.1)`,
    `a whole HTML document (HTTP ${exchange.status}): ${printable(exchange.text, { maxChars: 160 })}`,
  );
}

/** The charset a Content-Type names, if any. */
const labelledCharset = (contentType: string): string | undefined =>
  mediaTypeParameter(contentType, 'charset') || undefined;

/**
 * The names of UTF-8: its labels in the WHATWG Encoding Standard, which browsers and Node's TextDecoder read as UTF-8,
 * and csUTF8, its alias in IANA's charset registry. Compared in any case (RFC 9110 §8.3.2).
 */
const UTF8_LABELS = new Set([
  'utf-8',
  'utf8',
  'unicode-1-1-utf-8',
  'unicode11utf8',
  'unicode20utf8',
  'x-unicode20utf8',
  'csutf8',
]);

/** Charsets in which ASCII bytes do not read as ASCII: two or four bytes a character. */
const NOT_ASCII_COMPATIBLE = /^(utf-?(16|32)(be|le)?|ucs-?[24]|unicode(fffe|feff)?)$/i;

/** A JSON body whose bytes are not UTF-8 (RFC 8259 §8.1), shown escaped (\xNN) with the charset it was labelled. */
function jsonUtf8Problem(exchange: Exchange): CheckFailure | undefined {
  if (startsWithBom(exchange.rawBody)) {
    // Ignored here, as WHATWG's decode does; not by every client: Python's json.loads refuses such a text.
    const text = printable(exchange.rawBody, { maxChars: 80 });
    const received = `the bytes EF BB BF (U+FEFF) before the JSON text: ${text}`;
    return failure(
      'A JSON body that starts with a byte order mark',
      'UTF-8 without a byte order mark, which RFC 8259 §8.1 forbids before JSON sent over a network',
      received,
    );
  }
  const charset = labelledCharset(exchange.contentType);
  // UTF-8 as RFC 3629 has it (isUtf8): a byte sequence that is not is an error, not a replacement character.
  if (!isUtf8(exchange.rawBody)) {
    const labelled = charset ? `, labelled charset=${charset}` : '';
    const received = `bytes that are not UTF-8${labelled}: ${printable(exchange.rawBody, { maxChars: 160 })}`;
    return failure('A JSON body that is not UTF-8', 'UTF-8, which RFC 8259 §8.1 requires of JSON', received);
  }
  // UTF-8 labelled as another charset: a client that decodes by the label garbles every letter beyond ASCII.
  if (charset === undefined || UTF8_LABELS.has(charset.toLowerCase())) return undefined;
  const asLabelled = printable(Buffer.from(exchange.rawBody).toString('latin1'), { maxChars: 120 });
  return failure(
    'A UTF-8 JSON body labelled with another charset',
    'UTF-8 labelled charset=utf-8, or no charset at all (RFC 8259 §11 defines none for application/json)',
    `charset=${charset}, over UTF-8 bytes: a client that decodes by the label reads ${asLabelled}`,
  );
}

const startsWithBom = (bytes: Uint8Array): boolean => bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;

export function jsonContentTypeProblem(exchange: Exchange): CheckFailure | undefined {
  if (JSON_MEDIA_TYPE.test(exchange.contentType)) return undefined;
  const received = exchange.contentType || '(no Content-Type)';
  return failure('Undocumented Content-Type', 'Content-Type application/json', received);
}

const rejectedOnly = (exchange: Exchange, config: RecognitionConfig): NotApplicable | undefined =>
  outcomeOf(exchange, config).succeeded
    ? notApplicable('the target carried the request out: no error to judge')
    : undefined;

const throwIf = (problem: CheckFailure | undefined): void => {
  if (problem) throw problem;
};

/**
 * One check of `first`'s assertions, then `more`'s, expecting what `first` expects. Only the first assertion of a check
 * names the request's settings as suspects (Conformance.check): what follows judges the answer's own wording or form.
 */
export function combined(name: string, first: Check, ...more: Check[]): Check {
  return { name, expects: first.expects, assertions: [first, ...more].flatMap((c) => c.assertions) };
}

/** A check of one requirement, judged by `judge` (plain `expect` is fine inside). */
export function requirementCheck(id: string, judge: Assertion['judge'], expects: Check['expects'] = 'either'): Check {
  return { name: id, expects, assertions: [{ id, judge }] };
}

/**
 * A stateful link between operations: `judge` sees every exchange of the chain, in order; a chain that stopped
 * early (its first step did not give what the next one needs) has fewer.
 */
export function linkCheck(
  id: string,
  judge: (chain: readonly Exchange[], context: CheckContext) => ReturnType<Assertion['judge']>,
): Check {
  return requirementCheck(id, (last, context) => judge(context.chain ?? [last], context), 'success');
}

/**
 * An update sent twice with the same body: the second finds nothing to change, a branch of its own in many servers,
 * and answers the same documented success (`id`); so may the first, when the target holds its values already. Both
 * are judged. A first update refused is its own test's to judge, with the settings that may be to blame.
 */
export function succeedsAgain(id: string): Check {
  return linkCheck(id, ([first, again], { config }) => {
    if (!first) return notApplicable('the update was not sent');
    if (wasRefused(first, config)) return notApplicable('the update was refused: the test of the update judges it');
    throwIf(successProblem(first, config));
    if (!again) return notApplicable('the update was not sent again');
    throwIf(successProblem(again, config));
  });
}

/** positive_data_acceptance: the operation succeeds with its documented success body. */
export function succeeds(id: string): Check {
  return requirementCheck(id, (x, { config }) => throwIf(successProblem(x, config)), 'success');
}

/** The schemas that requirement `id` documents an error body by: a declaration naming none is a bug of the suite. */
function documentedSchemas(id: string): readonly string[] {
  const shapes = requirement(id).schemas;
  if (!shapes?.length) throw new Error(`${id} names no schema in specs/requirements.json`);
  return shapes;
}

/** Why a check of a refusal is untested on a 2xx that is neither a documented success nor a refusal. */
const servedUnlikeSuccess = (x: Exchange): string =>
  `HTTP ${x.status} with a body that is neither a documented success nor a refusal: no refusal to judge, ` +
  'and its shape is for the success requirement to judge';

/**
 * The half of a rule whose valid values are "not rejected for it" (OP4-UTILITY-MAX): a refusal fails it (a non-2xx
 * status, a success value that says it failed, an error marker of §7.1, the operation's documented error shape
 * `errorShape`, or a plain string matching RSF_REJECTION_TEXT). A 2xx answer that is neither a documented success nor
 * a refusal leaves it unjudged: that shape is the success requirement's to judge, one fault and not two.
 */
export function notRejected(id: string, errorShape: string): Check {
  const shapes = documentedSchemas(errorShape);
  return requirementCheck(
    id,
    (x, { config }) => {
      const problem = successProblem(x, config);
      if (!problem) return;
      if (saysRefused(x, config, shapes)) throw problem;
      return notApplicable(servedUnlikeSuccess(x));
    },
    'success',
  );
}

/** Why a valid request may still be refused: a reason the spec lists for the operation, that may apply to it. */
export interface AllowedRefusal {
  /** The reason, with its section, as the untested check shows it: '§4.1: data not possible to update'. */
  reason: string;
  /** The requirement whose schemas document the error body; none when the spec does not show it (§7.4). */
  errorShape?: string;
  /** The spec documents this failure as an internal server error (§4.8): a 5xx is then a refusal like another. */
  serverError?: boolean;
  /**
   * Where the spec shows no error body (§7.4) and the success is a plain string (operation 5): whether the request
   * may be refused in a JSON shape the suite cannot read (an item of a product the target may not have). Without
   * it, or where it says no, a 2xx JSON object or array that is no recognised refusal is a success off its shape.
   */
  refusedInAnyShape?: (exchange: Exchange) => boolean;
  /**
   * Whether a refusal of the request is to be expected from its drawn values (a generated id names nothing): such a
   * refusal is not shown in the reports, where the others are (allowedRefusal), lest a run list every made-up id.
   */
  expected?: (exchange: Exchange) => boolean;
}

/**
 * positive_data_acceptance for valid input of any length and characters (§8 shows no limits, the spec no character
 * set): the operation succeeds (`id`, its success requirement). Where the spec lists a refusal reason that may apply,
 * `refusal` allows a refusal in the documented error shape, which leaves `id` unjudged, as does a refusal for the
 * request's size (SIZE_REFUSALS); a 5xx is the server failing, never a refusal, unless the spec documents one. Its
 * JSON answers, which may echo text of any script, are UTF-8 (jsonUtf8).
 */
export function acceptsValidInput(id: string, refusal?: AllowedRefusal): Check {
  const accepted = validInputAccepted(id, refusal);
  return combined(accepted.name, accepted, jsonUtf8());
}

/**
 * Valid inputs refused for their size, though not with 413, 414 or 431: the property runner sent the input again with
 * its long texts cut to the configured values' size (cutToConfiguredLengths), and it was carried out (sizeControl). §8
 * leaves payload size limits open, and a limit on a field's length may come with any status and body (indep102: 400
 * in the documented shape, where the same limit answered 413 passed).
 */
const refusedForItsSize = new WeakMap<Exchange, string>();

/** Marks `x` refused for its size, for the reason `how`: its sample is not judged (acceptsValidInput). */
export function noteRefusedForItsSize(x: Exchange, how: string): void {
  refusedForItsSize.set(x, how);
}

/** acceptsValidInput's first half: `id`, or a refusal the spec allows. */
function validInputAccepted(id: string, refusal?: AllowedRefusal): Check {
  const shapes = refusal?.errorShape ? documentedSchemas(refusal.errorShape) : [];
  return requirementCheck(
    id,
    (x, { config }) => {
      const problem = successProblem(x, config);
      if (problem && SIZE_REFUSALS.has(x.status))
        return notApplicable(`refused for its size (HTTP ${x.status}), a limit §8 leaves open: no success to judge`);
      const forSize = refusedForItsSize.get(x);
      if (problem && forSize) return notApplicable(`refused for its size, a limit §8 leaves open (${forSize})`);
      if (!problem || !refusal) return throwIf(problem);
      // A 2xx body labelled JSON that does not parse is a success gone wrong (an echoed quote left unescaped), not
      // the documented plain string, which so labelled is a JSON string.
      if (x.status >= 200 && x.status <= 299 && labelledJsonProblem(x)) throw problem;
      if (x.status >= 500 && !refusal.serverError) {
        const expected = `the operation to succeed, or a refusal in its documented error shape (${refusal.reason})`;
        throw failure('A valid request answered with a server error', expected, `HTTP ${x.status}`);
      }
      const refused = shapes.length ? schemaProblem(x, shapes) : undefined;
      if (refused) throw neitherSuccessNorRefusalProblem(x, config, refused, refusal.reason);
      // A success that is a plain string (operation 5), answered 2xx with a JSON object or array that the suite
      // recognises as no refusal (docs/judging.md, "How a rejection is recognised"), {added: 2} to two cart items, is
      // a success off its shape. Where the success is JSON, a 2xx refusal of another shape (null, a text in another
      // language) is too likely to judge.
      const unreadable = shapes.length === 0 && jsonInPlaceOfText(x) && neitherSuccessNorRefusal(x, config);
      if (unreadable && !refusal.refusedInAnyShape?.(x)) throw problem;
      const allowed = notApplicable(`refused for a reason the spec allows (${refusal.reason}): no success to judge`);
      return refusal.expected?.(x) ? allowed : { ...allowed, allowedRefusal: true };
    },
    'success',
  );
}

/** A JSON object or array where the operation's success is a plain string. */
function jsonInPlaceOfText(x: Exchange): boolean {
  const { body } = x;
  return (
    x.operation.successSignal === 'plain-string' &&
    body.kind === 'json' &&
    typeof body.value === 'object' &&
    body.value !== null
  );
}

/**
 * An answer to a valid request that is neither a success nor a refusal in the documented error shape. Its status
 * cannot say which it meant (a refusal may come with HTTP 200), so the schema errors of both readings are shown.
 */
function neitherSuccessNorRefusalProblem(
  exchange: Exchange,
  config: RecognitionConfig,
  refused: CheckFailure,
  reason: string,
): CheckFailure {
  const outcome = outcomeOf(exchange, config);
  const expected = `${expectedSuccess(exchange)}, or a refusal in its documented error shape (${reason})`;
  const errors = [
    ...outcome.schemaErrors.map((e) => `as a success: ${e}`),
    ...(refused.data.schemaErrors ?? []).map((e) => `as a refusal: ${e}`),
  ];
  const received = `${outcome.reason}; nor is it a refusal in the documented error shape`;
  return failure('Neither a success nor a documented refusal', expected, received, errors);
}

/**
 * JSON practice (RFC 8259 §8.1): a JSON body is UTF-8, without a byte order mark. Only a body with a byte beyond ASCII
 * can show it, as an ASCII one reads alike in any encoding that ASCII is part of (not UTF-16 or UTF-32, whose label
 * garbles every character); answers to input of any script (§8) are where a target echoes such bytes, and a byte
 * order mark is beyond ASCII.
 */
export function jsonUtf8(): Check {
  return requirementCheck('GEN-JSON-UTF8', (x) => {
    if (x.truncated) return notApplicable('the body was not read whole (RSF_MAX_RESPONSE_BYTES)');
    if (x.body.kind !== 'json' && !JSON_MEDIA_TYPE.test(x.contentType)) return notApplicable('the body is not JSON');
    const wide = NOT_ASCII_COMPATIBLE.test(labelledCharset(x.contentType) ?? '');
    if (x.rawBody.every((byte) => byte < 0x80) && !wide) {
      // PHP's json_encode, and others by default, escape every character beyond ASCII: such a target sends no other.
      const escaped = /\\u(?!00[0-7])[0-9a-fA-F]{4}/.test(x.text)
        ? ', its characters beyond ASCII escaped as \\uXXXX'
        : '';
      return notApplicable(`the body is ASCII${escaped}: every encoding reads it alike`);
    }
    throwIf(jsonUtf8Problem(x));
  });
}

/** RFC 9457's media type of problem details: JSON, but declaring an error. */
const PROBLEM_MEDIA_TYPE = /^application\/problem\+json\s*(;|$)/i;

/**
 * content_type_conformance for JSON success bodies (intro paragraph). A JSON-based type passes, as it passes for
 * errors, but not problem details: read either way (the media type the intro names, or any JSON), a success so
 * labelled breaks it, and a client that tells errors by their media type takes it for one.
 */
export function jsonContentType(): Check {
  return requirementCheck('GEN-JSON-CONTENT-TYPE', (x) => {
    throwIf(jsonContentTypeProblem(x));
    if (PROBLEM_MEDIA_TYPE.test(x.contentType))
      throw failure(
        'A success labelled as problem details',
        'Content-Type application/json',
        `${x.contentType}, RFC 9457's type for problem details (an error): a client that tells errors by their ` +
          'media type takes this success for one',
      );
  });
}

/** positive_data_acceptance and content_type_conformance, for operations whose success body is JSON. */
export function succeedsWithJson(id: string): Check {
  return combined('positive_data_acceptance', succeeds(id), jsonContentType());
}

/**
 * positive_data_acceptance and content_type_conformance, for a success that is a plain string (operation 5, §4.5):
 * one labelled JSON is JSON, a JSON string; one labelled otherwise has nothing to check, the spec stating plain
 * strings otherwise.
 */
export function succeedsWithPlainString(id: string): Check {
  const contentType = requirementCheck('GEN-JSON-CONTENT-TYPE', (x, { config }) => {
    if (!outcomeOf(x, config).succeeded) return notApplicable('the target refused it: no success to judge');
    throwIf(labelledJsonProblem(x));
    if (!JSON_MEDIA_TYPE.test(x.contentType)) return notApplicable('a plain string labelled other than JSON');
  });
  return combined('positive_data_acceptance', succeeds(id), contentType);
}

/** response_schema_conformance: the body matches `schema`. */
export function matchesSchema(id: string, schema: string): Check {
  return requirementCheck(id, (x) => throwIf(schemaProblem(x, [schema])));
}

/** negative_data_rejection / ignored_auth, the MUST half: the operation does not succeed. */
export function rejects(id: string): Check {
  return requirementCheck(id, (x, { config }) => throwIf(rejectionProblem(x, config)), 'rejection');
}

/** The error body has one of the shapes that requirement `id` documents; judged on rejections only. */
export function documentedErrorShape(id: string): Check {
  const shapes = documentedSchemas(id);
  return requirementCheck(id, (x, { config }) => rejectedOnly(x, config) ?? throwIf(schemaProblem(x, shapes)));
}

/**
 * content_type_conformance for error bodies: a JSON object is labelled JSON, and a body labelled JSON is JSON (a plain
 * string so labelled is a JSON string); a plain string labelled otherwise has nothing to check.
 */
export function errorContentType(): Check {
  return requirementCheck('GEN-ERROR-CONTENT-TYPE', (x, { config }) => {
    const rejected = rejectedOnly(x, config);
    if (rejected) return rejected;
    throwIf(labelledJsonProblem(x));
    if (x.body.kind !== 'json' || !isObject(x.body.value)) return notApplicable('the error body is not a JSON object');
    throwIf(jsonContentTypeProblem(x));
  });
}

/** A body whose Content-Type says JSON, read whole, that JSON.parse refuses (labelledJsonNotJson). */
function labelledJsonProblem(exchange: Exchange): CheckFailure | undefined {
  if (!labelledJsonNotJson(exchange)) return;
  return failure(
    'A body labelled JSON that is not JSON',
    `a well-formed JSON body, as Content-Type ${exchange.contentType} says (a plain string sent as JSON is a JSON ` +
      'string, in double quotes)',
    `not JSON: ${notJsonBecause(exchange) ?? 'it does not parse'}`,
  );
}

/**
 * HTTP practice for the status of a refusal: judged on rejections only (an acceptance is the rejection check's
 * failure), and `expected` describes the status a refusal should have. Where the spec shows the operation's error
 * body, a 2xx that is neither a documented success nor a refusal is no refusal to judge either: a creation answered
 * 201 with its id and a success value off §4.2's shape was carried out, and the success requirement judges it
 * (indep107, indep112, indep115: it also warned here). Where it shows none (§7.4), any shape may be a refusal.
 */
function refusalStatus(id: string, title: string, expected: string, fits: (status: number) => boolean): Check {
  return requirementCheck(id, (x, { config }) => {
    const rejected = rejectedOnly(x, config);
    if (rejected) return rejected;
    const served = x.status >= 200 && x.status <= 299 && neitherSuccessNorRefusal(x, config);
    if (served && documentsErrors(x.operation)) return notApplicable(servedUnlikeSuccess(x));
    if (!fits(x.status)) throw failure(title, expected, `HTTP ${x.status}`);
  });
}

/**
 * A refusal: `primary` (the rule, refused), then its status, content type and documented shape, which a refusal for
 * the request's size does not answer to: §8 leaves payload size limits open, and a framework refuses an oversized body
 * before the API's code reads it (Express's body-parser: a 413 page, before the credentials are looked at; indep110).
 */
function refusal(name: string, primary: Check, status: Check, errorShape?: string): Check {
  const shape = errorShape ? [documentedErrorShape(errorShape)] : [];
  return combined(name, primary, ...[status, errorContentType(), ...shape].map(unlessRefusedForSize));
}

/** `check`, not judged on a refusal for the request's size (SIZE_REFUSALS). */
function unlessRefusedForSize(check: Check): Check {
  const assertions = check.assertions.map(({ id, judge }) => ({
    id,
    judge: (x: Exchange, context: CheckContext) =>
      SIZE_REFUSALS.has(x.status)
        ? notApplicable(`refused for its size (HTTP ${x.status}), a limit §8 leaves open: how is not judged`)
        : judge(x, context),
  }));
  return { ...check, assertions };
}

/**
 * negative_data_rejection: invalid input is refused (`id`), ideally with a 4xx (SHOULD), with a JSON content type
 * when the error is a JSON object, and in the shape requirement `errorShape` documents, if given.
 */
export function negativeDataRejection(id: string, options: { errorShape?: string } = {}): Check {
  const status = refusalStatus(
    'HTTP-INVALID-INPUT-4XX',
    'Invalid input not answered with a 4xx',
    'a 4xx status for invalid input',
    (code) => code >= 400 && code <= 499,
  );
  return refusal('negative_data_rejection', rejects(id), status, options.errorShape);
}

/** ignored_auth: missing or refused credentials are refused (MUST `id`), ideally with 401 (SHOULD). */
export function ignoredAuthRejected(id: string, options: { errorShape?: string } = {}): Check {
  const status = refusalStatus(
    'HTTP-AUTH-401',
    'Refused credentials not answered with 401',
    'HTTP 401 for missing or refused credentials',
    (code) => code === 401,
  );
  return refusal('ignored_auth', refusedWithAnError(id, options.errorShape), status, options.errorShape);
}

/** Data, not a message: a JSON object of two members or more, or a list that is not empty. */
const holdsData = (value: unknown): boolean =>
  Array.isArray(value) ? value.length > 0 : isObject(value) && Object.keys(value).length >= 2;

/**
 * ignored_auth's MUST half: refused with an error, not a server's failure (a 500 from a header it could not parse),
 * and not with the data the token gets (a 401 whose body is the voucher, as a handler that sets the status and goes
 * on sends it). Only for a read whose refusal holds data and says no error, the same request is sent once with the
 * token, and the two bodies compared. A gateway's 5xx never gets here: it is sent again, or not judged (retry.ts).
 * A 5xx carrying the JSON object that `errorShape` documents for credentials is that error, with a status §7.3 leaves
 * open; one carrying a plain string is not told from a crash's ("Internal Server Error", a stack trace), so it fails.
 */
function refusedWithAnError(id: string, errorShape?: string): Check {
  const shapes = errorShape !== undefined ? documentedSchemas(errorShape) : [];
  return requirementCheck(
    id,
    async (x, { config, resend }) => {
      throwIf(rejectionProblem(x, config));
      const documented =
        shapes.length > 0 && x.body.kind === 'json' && isObject(x.body.value) && !schemaProblem(x, shapes);
      if (x.status >= 500 && !documented) {
        throw failure(
          'Credentials refused with a server error',
          'a "credentials required" or "not authenticated" error (§5.4), not a 5xx (RFC 9110 §15.6: a server failing)',
          `HTTP ${x.status}: ${printable(x.rawBody, { maxChars: 200 })}`,
        );
      }
      if (!resend || x.operation.writes || x.credentials === 'valid' || x.body.kind !== 'json') return;
      if (!holdsData(x.body.value) || errorMarker(x.body.value) !== undefined) return;
      const withToken = await resend('valid');
      if (!outcomeOf(withToken, config).succeeded || withToken.body.kind !== 'json') return;
      if (!isDeepStrictEqual(withToken.body.value, x.body.value)) return;
      const body = printable(x.rawBody, { maxChars: 200 });
      throw failure(
        'A refusal that carries the data',
        'an error: no data without valid credentials (§5.4)',
        `HTTP ${x.status} with the very body the token gets: ${body}`,
      );
    },
    'rejection',
  );
}

/**
 * An operation that takes no credentials (§5.2, §5.3) succeeds without an Authorization header. Only when it does
 * not is the same request sent once more, with the token: if that succeeds, the missing header was the reason and
 * `id` fails; if not, the operation fails in some other way, which its success check reports, so `id` stays untested.
 */
export function worksWithoutCredentials(id: string): Check {
  return requirementCheck(
    id,
    async (exchange, { config, resend }) => {
      if (outcomeOf(exchange, config).succeeded) return;
      // Served, but not in the success shape: no refusal, and that shape is the success requirement's to judge.
      if (neitherSuccessNorRefusal(exchange, config)) return notApplicable(servedUnlikeSuccess(exchange));
      if (!resend) throw new Error(`${id}: worksWithoutCredentials needs the request to send it again with the token`);
      const withToken = await resend('valid');
      if (!outcomeOf(withToken, config).succeeded) {
        return notApplicable('the request failed with the token as well, so the missing header is not the reason');
      }
      const received =
        `refused without an Authorization header (${outcomeOf(exchange, config).reason}), ` +
        'while the same request with the token succeeds';
      throw new CheckFailure({
        title: 'Credentials required where the spec takes none',
        detail: expectedReceived('the operation to succeed without an Authorization header', received),
        exchanges: [exchange, withToken],
        settingsCleared: true,
      });
    },
    'success',
  );
}

/** §4.2's "a plain string naming the missing item": judged on rejections only. */
export function namesMissingField(id: string, field: string, names: (text: string, field: string) => boolean): Check {
  return requirementCheck(id, (x, { config }) => {
    const rejected = rejectedOnly(x, config);
    if (rejected) return rejected;
    const text = plainString(x.body) ?? '';
    if (names(text, field)) return;
    throw failure('The error does not name the missing item', `a message naming ${field}`, JSON.stringify(text));
  });
}
