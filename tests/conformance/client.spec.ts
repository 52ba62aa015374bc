import { BODY_RULES } from '../../src/model/body-rules';
import {
  combined,
  negativeDataRejection,
  notApplicable,
  notRejected,
  requirementCheck,
  succeedsWithJson,
} from '../../src/checks/checks';
import { isObject, outcomeOf } from '../../src/checks/outcome';
import { jsonBody } from '../../src/http/exchange';
import { expect, test } from '../../src/playwright/fixtures';
import { credentialProbes, probe, requestBodyProbes, updatedTwice } from '../../src/playwright/probes';

const rule = BODY_RULES.updateClient;

const successShape = succeedsWithJson('OP1-SUCCESS-SHAPE');
// Refused, the optional fields were not taken; a success off §4.1's shape is OP1-SUCCESS-SHAPE's to judge, not this.
const optionalFieldsAccepted = notRejected('OP1-OPTIONAL-FIELDS', 'OP1-ERROR-SHAPE');
const confirmsTheUpdate = requirementCheck('OP1-SUCCESS-MESSAGE', (exchange, { config }) => {
  const body = jsonBody(exchange);
  if (!outcomeOf(exchange, config).succeeded || !isObject(body) || typeof body.message !== 'string')
    return notApplicable('no success with a message to judge');
  expect(body.message.trim(), 'a message that confirms the update').not.toBe('');
});

test.describe('PATCH /client · operation 1 · §4.1', () => {
  test(
    ...probe('updates the client with the eleven required fields', {
      operation: 'updateClient',
      request: ({ bodies }) => ({ json: bodies.client() }),
      // One check: the message is the target's own wording, never a setting's fault (a second assertion names none).
      checks: [combined(successShape.name, successShape, confirmsTheUpdate)],
      settings: ['clientBody', 'clientSuccessStatus'],
    }),
  );

  test(
    ...updatedTwice('answers the same update sent again, which changes nothing, with the same success', {
      operation: 'updateClient',
      request: ({ bodies }) => ({ json: bodies.client() }),
      id: 'OP1-SUCCESS-SHAPE',
    }),
  );

  // Right after the update, while the client holds the values they send (a "nothing changed" shortcut taken before
  // the credentials are checked would answer them as a success).
  const refusedCredentials = credentialProbes('updateClient', {
    id: 'OP1-AUTH-REQUIRED',
    request: ({ bodies }) => ({ json: bodies.client() }),
  });
  for (const declaration of refusedCredentials) test(...declaration);

  test(
    ...probe('accepts the optional secondaryPhone and clientWebsite', {
      operation: 'updateClient',
      request: ({ bodies }) => ({ json: bodies.clientWithOptionalFields() }),
      checks: [optionalFieldsAccepted, successShape],
      settings: ['clientBody', 'clientWebsite', 'clientSuccessStatus'],
    }),
  );

  // Each optional field is optional on its own: one is not required with the other.
  for (const alone of ['secondaryPhone', 'clientWebsite'] as const) {
    test(
      ...probe(`accepts the optional ${alone} alone`, {
        operation: 'updateClient',
        request: ({ bodies }) => ({ json: { ...bodies.client(), [alone]: bodies.clientWithOptionalFields()[alone] } }),
        checks: [optionalFieldsAccepted, successShape],
        settings: ['clientBody', 'clientWebsite', 'clientSuccessStatus'],
      }),
    );
  }

  test(
    ...probe('refuses a clientWebsite that is not a URI, alone or beside secondaryPhone', {
      operation: 'updateClient',
      request: ({ bodies }) => ({ json: { ...bodies.client(), clientWebsite: 'not a uri' } }),
      // A validator may check it on one path only: with or without the other optional field.
      alsoSending: ({ bodies }) => [{ json: { ...bodies.clientWithOptionalFields(), clientWebsite: 'not a uri' } }],
      checks: [negativeDataRejection('OP1-WEBSITE-URI', { errorShape: 'OP1-ERROR-SHAPE' })],
    }),
  );

  for (const declaration of requestBodyProbes(rule)) test(...declaration);
});
