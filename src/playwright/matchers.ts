// Custom matchers on an Exchange, for fixtures' `expect`:
// toMatchSchema, toSucceed, toBeRejected, toHaveJsonContentType.
// They say what the named checks say (checks.ts), so a plain `expect` in a test judges as a check would.
import type { ExpectMatcherState } from '@playwright/test';
import { jsonContentTypeProblem, rejectionProblem, schemaProblem, successProblem } from '../checks/checks';
import { type Config, secretSettings } from '../config/config';
import type { CheckFailure } from '../checks/failure';
import type { Exchange } from '../http/exchange';
import { describeExchange } from '../http/presentation';
import { configOf } from './api-client';

/** The configuration `exchange` was sent under: the matchers judge and redact by it, as the checks do. */
function sentUnder(exchange: Exchange): Config {
  const config = configOf(exchange);
  if (!config) throw new Error('The conformance matchers judge an exchange sent by the api fixture; this one was not');
  return config;
}

function report(state: ExpectMatcherState, name: string, exchange: Exchange, problem: CheckFailure | undefined) {
  const pass = problem === undefined;
  return {
    pass,
    name,
    message: () => {
      if (!problem)
        return (
          `${state.isNot ? 'expected not' : 'expected'} ${name}, and it held\n` +
          `${describeExchange(exchange, secretSettings(sentUnder(exchange)))}`
        );
      const errors = problem.data.schemaErrors ?? [];
      const lines = [
        problem.data.detail,
        ...(errors.length ? ['schema errors:', ...errors.map((e) => `  - ${e}`)] : []),
      ];
      return [...lines, 'exchange:', describeExchange(exchange, secretSettings(sentUnder(exchange)))].join('\n');
    },
  };
}

export const conformanceMatchers = {
  /** The body matches the schema, or one of the schemas when given several (documented alternatives). */
  toMatchSchema(this: ExpectMatcherState, exchange: Exchange, schemaName: string | string[]) {
    const names = Array.isArray(schemaName) ? schemaName : [schemaName];
    return report(this, 'toMatchSchema', exchange, schemaProblem(exchange, names));
  },

  toSucceed(this: ExpectMatcherState, exchange: Exchange) {
    return report(this, 'toSucceed', exchange, successProblem(exchange, sentUnder(exchange)));
  },

  toBeRejected(this: ExpectMatcherState, exchange: Exchange) {
    return report(this, 'toBeRejected', exchange, rejectionProblem(exchange, sentUnder(exchange)));
  },

  toHaveJsonContentType(this: ExpectMatcherState, exchange: Exchange) {
    return report(this, 'toHaveJsonContentType', exchange, jsonContentTypeProblem(exchange));
  },
};
