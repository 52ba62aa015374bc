import {
  BODY_RULES,
  MADE_UP_CHANNEL_TOKEN,
  VALID_WRITES,
  WRONG_CHANNEL_SETTINGS,
  channelMessageRequest,
} from '../../src/model/body-rules';
import {
  errorContentType,
  jsonUtf8,
  negativeDataRejection,
  rejects,
  succeedsWithJson,
  worksWithoutCredentials,
} from '../../src/checks/checks';
import { test } from '../../src/playwright/fixtures';
import { nearMissesToSend } from '../../src/http/near-miss-tokens';
import { credentialProbes, malformedJsonProbe, probe, requestBodyProbes } from '../../src/playwright/probes';

test.describe('POST /postventa · operation 13 · §4.13', () => {
  test(
    ...probe('creates a post-sale request', {
      operation: 'createPostSale',
      request: VALID_WRITES.createPostSale,
      checks: [succeedsWithJson('OP13-SUCCESS-SHAPE')],
      settings: ['postSaleBody'],
    }),
  );

  test(
    ...probe('refuses a body that is an array, not an object', {
      operation: 'createPostSale',
      request: ({ bodies }) => ({ json: [bodies.postSale()] }),
      checks: [negativeDataRejection('OP13-FIELD-TYPES')],
    }),
  );

  // Not a JSON object either; §4.13 shows no required fields, so GEN-MALFORMED-JSON-REJECTED does not reach it.
  test(...malformedJsonProbe('createPostSale', { id: 'OP13-FIELD-TYPES' }));

  const refusedCredentials = credentialProbes('createPostSale', {
    id: 'OP13-AUTH-REQUIRED',
    request: ({ bodies }) => ({ json: bodies.postSale() }),
  });
  for (const declaration of refusedCredentials) test(...declaration);
});

test.describe('GET /postventa/{postsaleInboundId}/messageChannel · operation 14 · §4.14', () => {
  test(
    ...probe('returns the messages of a post-sale channel', {
      operation: 'getMessageChannel',
      request: ({ config }) => ({ params: { postsaleInboundId: config.postSaleId } }),
      checks: [succeedsWithJson('OP14-SUCCESS-SHAPE'), jsonUtf8()],
    }),
  );

  test(
    ...probe('refuses a postsaleInboundId that is not an integer', {
      operation: 'getMessageChannel',
      // The configured id with a letter after it: what a lax parse (parseInt) reads as the configured channel.
      request: ({ config }) => ({ params: { postsaleInboundId: `${config.postSaleId}x` } }),
      checks: [negativeDataRejection('OP14-FIELD-TYPES')],
    }),
  );

  const refusedCredentials = credentialProbes('getMessageChannel', {
    id: 'OP14-AUTH-REQUIRED',
    request: ({ config }) => ({ params: { postsaleInboundId: config.postSaleId } }),
  });
  for (const declaration of refusedCredentials) test(...declaration);
});

test.describe('POST /postventa/{postsaleInboundId}/messageChannel/{token}/{userId} · operation 15 · §4.15', () => {
  const rule = BODY_RULES.sendChannelMessage;

  test(
    ...probe('sends a message with the channel token and no Authorization header', {
      operation: 'sendChannelMessage',
      request: (ctx) => channelMessageRequest(ctx),
      checks: [worksWithoutCredentials('OP15-NO-AUTH-HEADER'), succeedsWithJson('OP15-SUCCESS-SHAPE')],
      settings: WRONG_CHANNEL_SETTINGS.settings,
      wrongSettings: WRONG_CHANNEL_SETTINGS,
    }),
  );

  test(
    ...probe(
      'refuses a message with a wrong channel token: made up (alone, or beside a valid Bearer header), one ' +
        "character off at its end, in the other case, or the account's access token",
      {
        operation: 'sendChannelMessage',
        request: MADE_UP_CHANNEL_TOKEN.request,
        // What a comparison of a prefix, of too few characters, or without case lets in (near-miss-tokens.ts); and
        // the Bearer token, a token the target issued for another use, unless it is the channel token itself. Last,
        // the made-up token with a valid Authorization header, which operation 15 does not carry (§5.3): a server
        // that lets a logged-in account through would let it post to any channel.
        alsoSending: (ctx) => [
          ...[
            ...nearMissesToSend(ctx.config.channelToken).map(({ token, change }) => ({
              token,
              label: `RSF_CHANNEL_TOKEN ${change}`,
            })),
            ...(ctx.config.bearerToken === ctx.config.channelToken
              ? []
              : [{ token: ctx.config.bearerToken, label: 'RSF_BEARER_TOKEN as the channel token' }]),
          ].map(({ token, label }) => ({ ...channelMessageRequest(ctx, { token }), label })),
          {
            ...MADE_UP_CHANNEL_TOKEN.request(ctx),
            credentials: 'valid',
            label: 'a made-up channel token, beside a valid Authorization header',
          },
        ],
        checks: [rejects('OP15-CHANNEL-TOKEN'), errorContentType()],
      },
    ),
  );

  test(
    ...probe('refuses a message with the channel token in the path of another channel, the next postsaleInboundId', {
      operation: 'sendChannelMessage',
      // Another channel, or none: either refuses the token of RSF_POSTSALE_ID's (a SHOULD, so sent with writes on:
      // a server that finds the channel by its token posts the message there).
      request: (ctx) => ({
        ...channelMessageRequest(ctx, { postsaleInboundId: String(BigInt(ctx.config.postSaleId) + 1n) }),
        label: 'RSF_CHANNEL_TOKEN in the path of the next postsaleInboundId, whose channel it is not',
      }),
      checks: [rejects('OP15-TOKEN-OF-ITS-CHANNEL')],
    }),
  );

  for (const declaration of requestBodyProbes(rule)) test(...declaration);
});
