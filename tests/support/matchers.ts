// Custom matchers on an Exchange: toMatchSchema, toSucceed, toBeRejected, toHaveJsonContentType.
import type { ExpectMatcherState } from '@playwright/test';
import { config } from './config';
import { type Exchange, describeExchange, schemaInput } from './http';
import { outcomeOf } from './outcome';
import { schemas } from './schema-registry';

interface MatcherResult {
  pass: boolean;
  message: () => string;
  name: string;
  expected?: unknown;
  actual?: unknown;
}

/** Schema errors of the last failing schema match, picked up by the check runner as evidence. */
export const lastFailure = { schemaErrors: [] as string[] };

export function isExchange(value: unknown): value is Exchange {
  return typeof value === 'object' && value !== null && 'operation' in value && 'status' in value && 'body' in value;
}

function report(state: ExpectMatcherState, name: string, pass: boolean, expected: string, received: string, exchange?: Exchange, errors: string[] = []): MatcherResult {
  if (!pass) lastFailure.schemaErrors = errors;
  return {
    pass,
    name,
    expected,
    actual: received,
    message: () => [
      `${state.isNot ? 'expected not: ' : 'expected: '}${expected}`,
      `received: ${received}`,
      ...(errors.length ? ['schema errors:', ...errors.map((e) => `  - ${e}`)] : []),
      ...(exchange ? ['exchange:', describeExchange(exchange, config())] : []),
    ].join('\n'),
  };
}

const JSON_MEDIA_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

export const conformanceMatchers = {
  /** The body matches the schema, or one of the schemas when given several (documented alternatives). */
  toMatchSchema(this: ExpectMatcherState, received: unknown, schemaName: string | string[]) {
    const exchange = isExchange(received) ? received : undefined;
    const data = exchange ? schemaInput(exchange.body) : received;
    const names = Array.isArray(schemaName) ? schemaName : [schemaName];
    const verdicts = names.map((name) => ({ name, ...schemas().validate(name, data) }));
    const pass = verdicts.some((v) => v.valid);
    const errors = verdicts.flatMap((v) => (names.length > 1 ? v.errors.map((e) => `${v.name}: ${e}`) : v.errors));
    const shown = exchange ? `${exchange.body.kind} body` : (JSON.stringify(data) ?? 'undefined').slice(0, 300);
    const expected = `a body matching ${names.map((n) => `schemas/${n}.schema.json`).join(' or ')}`;
    return report(this, 'toMatchSchema', pass, expected, pass ? `a matching ${shown}` : `a ${shown} with schema errors`, exchange, pass ? [] : errors);
  },

  toSucceed(this: ExpectMatcherState, exchange: Exchange) {
    const outcome = outcomeOf(exchange, config());
    return report(this, 'toSucceed', outcome.succeeded, `the operation to succeed (2xx, a ${exchange.operation.successSchema} body, a success value)`, outcome.reason, exchange, outcome.schemaErrors);
  },

  toBeRejected(this: ExpectMatcherState, exchange: Exchange) {
    const outcome = outcomeOf(exchange, config());
    return report(this, 'toBeRejected', !outcome.succeeded, 'the operation to be rejected (a non-2xx status, or a body that is not a success)', outcome.succeeded ? `a success: ${outcome.reason}` : outcome.reason, exchange);
  },

  toHaveJsonContentType(this: ExpectMatcherState, exchange: Exchange) {
    const pass = JSON_MEDIA_TYPE.test(exchange.contentType);
    return report(this, 'toHaveJsonContentType', pass, 'Content-Type application/json', exchange.contentType || '(no Content-Type)', exchange);
  },
};
