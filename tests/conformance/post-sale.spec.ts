import { WRITES_OFF, bearerAuthTests, malformedJsonTest, requestBodyTests, tags, test, type RequestContext } from '../support/fixtures';

const channel = ({ config }: RequestContext, token = config.channelToken) => ({ postsaleInboundId: config.postSaleId, token, userId: config.channelUserId });

test.describe('POST /postventa · operation 13 · §4.13', () => {
  test('creates a post-sale request', { tag: tags('OP13-SUCCESS-SHAPE', 'GEN-JSON-CONTENT-TYPE') }, async ({ api, conformance, bodies, config }) => {
    test.skip(!config.writesEnabled, WRITES_OFF);
    const exchange = await api.call('createPostSale', { json: bodies.postSale() });
    await conformance.succeedsWithJson('OP13-SUCCESS-SHAPE', exchange);
  });

  bearerAuthTests('createPostSale', ({ bodies }) => ({ json: bodies.postSale() }));
});

test.describe('GET /postventa/{postsaleInboundId}/messageChannel · operation 14 · §4.14', () => {
  test('returns the messages of a post-sale channel', { tag: tags('OP14-SUCCESS-SHAPE', 'GEN-JSON-CONTENT-TYPE') }, async ({ api, conformance, config }) => {
    const exchange = await api.call('getMessageChannel', { params: { postsaleInboundId: config.postSaleId } });
    await conformance.succeedsWithJson('OP14-SUCCESS-SHAPE', exchange);
  });

  bearerAuthTests('getMessageChannel', ({ config }) => ({ params: { postsaleInboundId: config.postSaleId } }));
});

test.describe('POST /postventa/{postsaleInboundId}/messageChannel/{token}/{userId} · operation 15 · §4.15', () => {
  test('sends a message with the channel token and no Authorization header', { tag: tags('OP15-SUCCESS-SHAPE', 'OP15-NO-AUTH-HEADER', 'GEN-JSON-CONTENT-TYPE') }, async ({ api, conformance, bodies, config }) => {
    test.skip(!config.writesEnabled, WRITES_OFF);
    const request = { params: channel({ bodies, config }), json: bodies.channelMessage() };
    const exchange = await api.call('sendChannelMessage', { ...request, credentials: 'none' });
    await conformance.worksWithoutCredentials('OP15-NO-AUTH-HEADER', exchange, () => api.call('sendChannelMessage', { ...request, credentials: 'valid' }));
    await conformance.succeedsWithJson('OP15-SUCCESS-SHAPE', exchange);
  });

  test('refuses a message with a wrong channel token', { tag: tags('OP15-CHANNEL-TOKEN', 'GEN-ERROR-CONTENT-TYPE') }, async ({ api, conformance, bodies, config }) => {
    const exchange = await api.call('sendChannelMessage', { params: channel({ bodies, config }, `wrong-${config.channelUserId}-token`), json: bodies.channelMessage() });
    await conformance.rejects('OP15-CHANNEL-TOKEN', exchange);
    await conformance.errorContentType(exchange);
  });

  requestBodyTests('sendChannelMessage', {
    schema: 'message-channel-send.request',
    valid: ({ bodies }) => bodies.channelMessage(),
    send: (json, ctx) => ({ json, params: channel(ctx) }),
    required: { id: 'OP15-REQUIRED-FIELDS' },
    types: { id: 'OP15-FIELD-TYPES' },
  });
  malformedJsonTest('sendChannelMessage', (ctx) => ({ params: channel(ctx) }));
});
