// What a handler answers, before the mode and the fault decide how it goes on the wire.

/**
 * A JSON value, a plain string (§7.1: sent per mode as a JSON string or raw text), nothing, or (faults only) text sent
 * as it is under a type of its own.
 */
export type Body =
  | { kind: 'json'; value: unknown }
  | { kind: 'plain'; text: string }
  | { kind: 'empty' }
  | { kind: 'raw'; text: string; contentType: string };

export const json = (value: unknown): Body => ({ kind: 'json', value });
export const plain = (text: string): Body => ({ kind: 'plain', text });
export const EMPTY: Body = { kind: 'empty' };
export const raw = (text: string, contentType: string): Body => ({ kind: 'raw', text, contentType });

/**
 * Why a request failed. The documented kinds get the op's error shape and, in the deployment
 * mode, HTTP 200; the transport kinds keep their status in every mode.
 */
export type ErrorKind =
  | 'auth' // credentials missing or not accepted (§5.4)
  | 'forbidden' // channel token or user of op 15 not accepted
  | 'invalid' // body not valid JSON, or not of its schema
  | 'missing-data' // a required field is absent (op 2 names it in a plain string)
  | 'rule' // a business rule is broken (utility > 100, item type, address format, …)
  | 'not-found'; // unknown product, category, order, …
/** Kinds outside the documented errors: they keep their status in every mode. 'internal' is a real bug (500). */
export type TransportKind = 'no-route' | 'method' | 'too-large' | 'media-type' | 'internal';

export const STATUS_OF: Readonly<Record<ErrorKind | TransportKind, number>> = {
  auth: 401,
  forbidden: 403,
  invalid: 400,
  'missing-data': 400,
  rule: 422,
  'not-found': 404,
  'no-route': 404,
  method: 405,
  'too-large': 413,
  'media-type': 415,
  internal: 500,
};

export const isTransportKind = (kind: Reply['outcome']): kind is TransportKind =>
  kind === 'no-route' || kind === 'method' || kind === 'too-large' || kind === 'media-type' || kind === 'internal';

export interface Reply {
  status: number;
  body: Body;
  outcome: 'success' | ErrorKind | TransportKind;
  headers?: Record<string, string>;
  /** For a rejection: its message, so that a fault can reshape the body. */
  message?: string;
  /** For missing-data: the absent fields, so that a fault can reword the message. */
  missingFields?: string[];
  /**
   * For a refusal by the request schema: the ajv keywords that refused the body (e.g. `required`, `type`,
   * `maximum`), so that a fault can tell a missing or mistyped field from a broken rule or malformed JSON.
   */
  schemaKeywords?: string[];
}

/**
 * Thrown by handlers and by the request pipeline; the route's error shape turns it into a Reply. It is how most
 * requests of a conformance run end, not a fault, so it captures no stack (a test runner asks for 200 frames).
 */
export class Rejection extends Error {
  readonly kind: ErrorKind | TransportKind;
  readonly missingFields: string[] | undefined;
  /** Set when the request schema refused the body: the ajv keywords of the errors that counted. */
  readonly schemaKeywords: string[] | undefined;

  constructor(kind: ErrorKind | TransportKind, message: string, missingFields?: string[], schemaKeywords?: string[]) {
    const frames = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = frames;
    this.kind = kind;
    this.missingFields = missingFields;
    this.schemaKeywords = schemaKeywords;
  }
}

export const ok = (body: Body, status = 200): Reply => ({ status, body, outcome: 'success' });
