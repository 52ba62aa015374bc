// Test families that every operation with credentials or a request body shares: declared once, used per file.
import type { Config } from './config';
import { INVALID_INPUT_IDS, AUTH_REJECTION_IDS, tags } from './checks';
import { type ValidBodies, requiredFields, retyped, typedFields, without } from './bodies';
import { type Credentials, type SendOptions } from './http';
import { OPERATIONS, type OperationName } from './operations';
import { MAY_BE_CARRIED_OUT, refusalMayBeCarriedOut, test } from './fixtures';

type Body = Record<string, unknown>;

export interface RequestContext {
  bodies: ValidBodies;
  config: Config;
}

const REFUSED_CREDENTIALS: [Credentials, string][] = [
  ['none', 'without an Authorization header'],
  ['unknown-token', 'with a token the target does not know'],
  ['non-bearer', 'with the token under a scheme other than Bearer'],
  ['empty-bearer', 'with an empty Bearer token'],
];

const shapeTags = (shapeId?: string): string[] => (shapeId ? [shapeId] : []);

/** §5.1, §5.4: each way of not presenting the token is refused. */
/** `errorShapeId`: the requirement documenting the body of the credentials error, if any. */
export function bearerAuthTests(name: OperationName, request: (ctx: RequestContext) => SendOptions, errorShapeId?: string): void {
  const id = `OP${OPERATIONS[name].number}-AUTH-REQUIRED`;
  for (const [credentials, how] of REFUSED_CREDENTIALS) {
    test(`refuses a request ${how}`, { tag: tags(id, ...AUTH_REJECTION_IDS, ...shapeTags(errorShapeId)) }, async ({ api, conformance, bodies, config }) => {
      const exchange = await api.call(name, { ...request({ bodies, config }), credentials });
      await conformance.ignoredAuthRejected(id, exchange, errorShapeId);
    });
  }
}

export interface BodyRules {
  /** A valid body (for cart items: one valid item). */
  valid: (ctx: RequestContext) => Body;
  /** Turns a (broken) body into the request; by default it is sent as JSON. */
  send?: (body: Body, ctx: RequestContext) => SendOptions;
  /** The request schema whose fields are dropped and retyped. */
  schema: string;
  /** Each with the requirement documenting the error body, if any. */
  required?: { id: string; errorShape?: string };
  types?: { id: string; errorShape?: string };
}

/** Each required field dropped, and each field of a declared type retyped, is refused. */
export function requestBodyTests(name: OperationName, rules: BodyRules): void {
  const send = rules.send ?? ((json: Body) => ({ json }));
  const required = rules.required;
  for (const field of required ? requiredFields(rules.schema) : []) {
    test(`refuses a body without ${field.name}`, { tag: tags(required!.id, ...INVALID_INPUT_IDS, ...shapeTags(required!.errorShape)) }, async ({ api, conformance, bodies, config }) => {
      const ctx = { bodies, config };
      const exchange = await api.call(name, send(without(rules.valid(ctx), field.name), ctx));
      await conformance.negativeDataRejection(required!.id, exchange, required!.errorShape);
    });
  }
  const types = rules.types;
  if (!types) return;
  for (const field of typedFields(rules.schema)) {
    test(`refuses ${field.name} that is not of type ${field.type}`, { tag: tags(types.id, ...INVALID_INPUT_IDS, ...shapeTags(types.errorShape)) }, async ({ api, conformance, bodies, config }) => {
      test.skip(refusalMayBeCarriedOut(config, types.id, name), MAY_BE_CARRIED_OUT);
      const ctx = { bodies, config };
      const exchange = await api.call(name, send(retyped(rules.valid(ctx), field), ctx));
      await conformance.negativeDataRejection(types.id, exchange, types.errorShape);
    });
  }
}

/** intro paragraph: a body that is not JSON cannot carry the required fields. */
export function malformedJsonTest(name: OperationName, request: (ctx: RequestContext) => SendOptions = () => ({})): void {
  test('refuses a body that is not well-formed JSON', { tag: tags('GEN-MALFORMED-JSON-REJECTED', ...INVALID_INPUT_IDS) }, async ({ api, conformance, bodies, config }) => {
    const exchange = await api.call(name, { ...request({ bodies, config }), raw: { text: '{"truncated": ', contentType: 'application/json' } });
    await conformance.negativeDataRejection('GEN-MALFORMED-JSON-REJECTED', exchange);
  });
}
