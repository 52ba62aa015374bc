// Did an operation succeed? Only a 2xx whose body matches the success schema and carries a success value.
// Anything else is a rejection: a 4xx, and equally an HTTP 200 with a documented error body (§7.3).
import type { RecognitionConfig } from '../config/settings/recognition';
import {
  type Exchange,
  JSON_MEDIA_TYPE,
  notJsonBecause,
  plainString,
  schemaInput,
  tooLargeMessage,
} from '../http/exchange';
import { type Operation, type SuccessSignal, isObject } from '../model/operations';
import { schemas } from '../model/schema-registry';

export interface Outcome {
  succeeded: boolean;
  /** Why it counts as a success or a rejection, in one line. */
  reason: string;
  schemaErrors: string[];
}

// One isObject for the suite and the reference: the neutral operation module's.
export { isObject };
export const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

const ERROR_WORD = /^(error|false|fail(ed|ure)?|ko|no|denied|invalid)$/i;

/** The error bodies the spec documents (§7.1, and each operation's own): `schemas/*.error` and `schemas/errors.*`. */
let documentedErrors: string[] | undefined;
const documentedErrorSchemas = (): string[] =>
  (documentedErrors ??= schemas().names.filter((name) => name.endsWith('.error') || name.startsWith('errors.')));

/** The operation's own error body, where the spec documents one (§7.1): `schemas/<its resource>.error`. */
function ownErrorSchema(operation: Operation): string | undefined {
  const name = operation.successSchema.replace(/\.response$/, '.error');
  return schemas().names.includes(name) ? name : undefined;
}

/** Whether the spec shows the operation's own error body (§7.1); where it does not (§7.4), any shape may be its. */
export const documentsErrors = (operation: Operation): boolean => ownErrorSchema(operation) !== undefined;

/**
 * A request refused before its data, in none of the error shapes the spec documents: with the valid token, which the
 * target accepts, a write refused as unauthorised (HTTP 401 or 403) or a read refused as forbidden (403); or an
 * operation that takes no credentials (§5.3) refused as forbidden. A 403 to a read, or to a write without a body,
 * counts only where the spec documents the operation's errors: where it does not (§7.4), a 403 in any shape may be
 * the API's own refusal. The account's rights
 * (an account that may not write) or a firewall's rule (against quotes or markup in the request, say; AWS API
 * Gateway's WAF answers `{"message":"Forbidden"}`) refused it, which the spec does not describe, rather than the API
 * the data. What such a test judges is not shown.
 */
export function refusedBeforeTheData(exchange: Exchange): boolean {
  const { operation, credentials, status } = exchange;
  if (exchange.truncated) return false;
  const documented = documentsErrors(operation);
  const forbidden = status === 403 && documented;
  // A write without a body where the spec shows no error bodies (§7.4: deleting a product): its 403 may be the API's
  // own refusal of what the request names (not one of the account's products), with no data for rights to come before.
  const ownRefusal = status === 403 && exchange.request.body === undefined && !documented;
  const refused =
    operation.auth === 'none'
      ? forbidden
      : credentials === 'valid' && (operation.writes ? (status === 401 || status === 403) && !ownRefusal : forbidden);
  return refused && inNoDocumentedErrorShape(exchange);
}

/** Whether an answer's body is in none of the error shapes the spec documents (§7.1 and the operations' own). */
export function inNoDocumentedErrorShape(exchange: Exchange): boolean {
  const body = schemaInput(exchange.body);
  return !documentedErrorSchemas().some((name) => schemas().validate(name, body).valid);
}

const saysSomething = (v: unknown): boolean => (typeof v === 'string' && v.trim() !== '') || v === true;

/**
 * An object that says it is an error in one of the ways §7.1 documents, or by an `error` member with a message.
 * Only a non-empty message counts: `error: null` or `error_message: ""` may be ordinary fields of a free-form body.
 * Nor does a member the request sent with the same value (`sent`, its JSON body): a success whose structure depends
 * on the request data (§4.13) may echo it, and a post-sale form may have a field named `error`.
 */
export function errorMarker(value: unknown, sent?: unknown): string | undefined {
  if (!isObject(value)) return undefined;
  const own = (key: string) => !(isObject(sent) && key in sent && sent[key] === value[key]);
  if (saysSomething(value.error_message) && own('error_message')) return 'it has an error_message (§7.1)';
  if ((value.success === false || value.success === 'error') && own('success'))
    return `its success is ${JSON.stringify(value.success)} (§7.1)`;
  if (saysSomething(value.error) && own('error')) return 'it has an error member';
  return undefined;
}

/** The request's JSON body, if it had one: what an answer only echoes back says nothing of the answer. */
export function sentJson(exchange: Exchange): unknown {
  try {
    return JSON.parse(exchange.request.body ?? '');
  } catch {
    return undefined;
  }
}

function successValue(exchange: Exchange, config: RecognitionConfig): string | undefined {
  const value = schemaInput(exchange.body);
  const object = isObject(value) ? value : {};
  switch (exchange.operation.successSignal) {
    case 'client-status':
      return config.clientSuccessStatus.test(String(object.status))
        ? undefined
        : `status ${JSON.stringify(object.status)} does not match ` +
            `RSF_CLIENT_SUCCESS_STATUS ${config.clientSuccessStatus} (§4.1 uses {status, message} for failures too)`;
    case 'success-ok':
      return object.success === 'ok' ? undefined : `success is ${JSON.stringify(object.success)}, not "ok"`;
    case 'success-true':
      return object.success === true ? undefined : `success is ${JSON.stringify(object.success)}, not true`;
    case 'success-string':
      return ERROR_WORD.test(String(object.success))
        ? `success is ${JSON.stringify(object.success)}, an error word`
        : undefined;
    case 'plain-string': {
      const text = plainString(exchange.body) ?? '';
      return config.rejectionText.test(text)
        ? `the text matches RSF_REJECTION_TEXT ${config.rejectionText}`
        : undefined;
    }
    case 'object':
    case 'array':
    case 'unspecified': {
      const marker = errorMarker(value, sentJson(exchange));
      if (marker) return `the body is an error: ${marker}`;
      const text = plainString(exchange.body);
      if (text !== undefined && exchange.operation.successSignal === 'unspecified' && config.rejectionText.test(text)) {
        return `the text matches RSF_REJECTION_TEXT ${config.rejectionText}`;
      }
      return undefined;
    }
  }
}

export function outcomeOf(exchange: Exchange, config: RecognitionConfig): Outcome {
  if (exchange.status < 200 || exchange.status > 299) {
    return { succeeded: false, reason: `HTTP ${exchange.status} is not 2xx`, schemaErrors: [] };
  }
  // Not read whole, so not judged a success: a plain-string or unspecified body would otherwise pass unseen.
  if (exchange.truncated) {
    return {
      succeeded: false,
      reason: `HTTP ${exchange.status}, but the ${tooLargeMessage(exchange.truncated.limitBytes)}`,
      schemaErrors: [],
    };
  }
  const verdict = schemas().validate(exchange.operation.successSchema, schemaInput(exchange.body));
  if (!verdict.valid) {
    // A body meant as JSON that does not parse says why, rather than only how its text fails the schema.
    const syntaxError = notJsonBecause(exchange);
    const body =
      syntaxError === undefined ? 'the body' : `the body is not valid JSON (${syntaxError}): read as text, it`;
    return {
      succeeded: false,
      reason: `HTTP ${exchange.status}, but ${body} does not match ${exchange.operation.successSchema}`,
      schemaErrors: verdict.errors,
    };
  }
  const notSuccess = successValue(exchange, config);
  if (notSuccess) return { succeeded: false, reason: `HTTP ${exchange.status}, but ${notSuccess}`, schemaErrors: [] };
  return {
    succeeded: true,
    reason: `HTTP ${exchange.status} with a body matching ${exchange.operation.successSchema}`,
    schemaErrors: [],
  };
}

/** The success signals read from a shape that the operation's failures share (§4.1, §4.2 to §4.4, §7.1). */
const SHARED_SHAPES: ReadonlySet<SuccessSignal> = new Set(['client-status', 'success-ok', 'success-true']);

/**
 * §4.1's {status, message} and §7.1's {success, msg} are success shapes too: a body whose success value says it
 * succeeded is a malformed success (an addressId "712"), not a refusal for matching one of them. §7.1's successes
 * are "ok" and true, whichever of the two an operation of 2 to 4 shows (indep97: {success: true, msg} from
 * operation 3, which shows "ok", read as a refusal, and a link's hint naming the address settings).
 */
function saysItSucceeded(exchange: Exchange, config: RecognitionConfig): boolean {
  const signal = exchange.operation.successSignal;
  if (!SHARED_SHAPES.has(signal)) return false;
  if (signal === 'client-status') return !successValue(exchange, config);
  const body = schemaInput(exchange.body);
  return isObject(body) && (body.success === 'ok' || body.success === true);
}

/**
 * Whether an answer says the request was refused: a non-2xx status, a body not read whole, a success body whose
 * success value says it failed, an error marker of §7.1, a body of one of `errorSchemas`, or a plain string matching
 * RSF_REJECTION_TEXT. A success is no refusal, and neither is a 2xx of another shape that says neither.
 */
export function saysRefused(exchange: Exchange, config: RecognitionConfig, errorSchemas: readonly string[]): boolean {
  const outcome = outcomeOf(exchange, config);
  if (outcome.succeeded) return false;
  if (exchange.status < 200 || exchange.status > 299 || exchange.truncated) return true;
  // The success shape, with a success value that says it failed: the only 2xx outcome without schema errors.
  if (outcome.schemaErrors.length === 0) return true;
  const body = schemaInput(exchange.body);
  if (errorMarker(body, sentJson(exchange)) !== undefined) return true;
  if (!saysItSucceeded(exchange, config) && errorSchemas.some((name) => schemas().validate(name, body).valid))
    return true;
  const text = plainString(exchange.body);
  return text !== undefined && config.rejectionText.test(text);
}

/**
 * Whether the settings that named what a request sent may be to blame for its answer: not once the target took the
 * request (a 2xx that is no refusal: a wrong shape of its answer is the target's alone), nor once it sent the request
 * elsewhere (a 3xx, a trailing slash added, say: its Location says where).
 */
export function settingsMayBeToBlame(exchange: Exchange, config: RecognitionConfig): boolean {
  if (exchange.status >= 300 && exchange.status < 400) return false;
  // A 2xx labelled JSON that does not parse: the target's encoder broke (a raw control character in a string,
  // indep101), not a refusal in §7.1's plain string, which so labelled is a JSON string.
  if (exchange.status >= 200 && exchange.status <= 299 && labelledJsonNotJson(exchange)) return false;
  return !neitherSuccessNorRefusal(exchange, config);
}

/** A body whose Content-Type says JSON, read whole, that JSON.parse refuses. */
export function labelledJsonNotJson(exchange: Exchange): boolean {
  return JSON_MEDIA_TYPE.test(exchange.contentType) && !exchange.truncated && exchange.body.kind === 'text';
}

/**
 * A 2xx answer that is neither a documented success nor a refusal in any shape the spec documents: the target took
 * the request, whatever it answered, so the settings that named what it sent are not to blame for the answer.
 */
export function neitherSuccessNorRefusal(exchange: Exchange, config: RecognitionConfig): boolean {
  return !outcomeOf(exchange, config).succeeded && !wasRefused(exchange, config);
}

/** Whether the target refused the request, in any way the spec documents or HTTP says (saysRefused). */
export function wasRefused(exchange: Exchange, config: RecognitionConfig): boolean {
  return saysRefused(exchange, config, documentedErrorSchemas());
}
