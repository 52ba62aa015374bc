// Checks that span operations: what one operation creates or changes, another one reads (§2.2, §2.6, §4.13-§4.15).
// Each link writes, so it runs only when writes are allowed (@writes), and its evidence shows every exchange.
import { randomBytes } from 'node:crypto';
import { channelParams } from '../support/body-rules';
import { linkCheck, notApplicable, successProblem } from '../support/checks';
import { failure } from '../support/failure';
import { test } from '../support/fixtures';
import { type Exchange, jsonBody } from '../support/http';
import { isObject, outcomeOf } from '../support/outcome';
import { declaredTags } from '../support/probes';
import type { Config } from '../support/config';

/** Why a chain stopped at its first step, or undefined when that step succeeded. */
function firstStepFailed(first: Exchange, config: Config, judgedBy: string): string | undefined {
  return outcomeOf(first, config).succeeded ? undefined : `the first step did not succeed (${judgedBy} judges it)`;
}

/** The integer a JSON object body carries under one of `names`, if any. */
function integerField(exchange: Exchange, names: readonly string[]): number | undefined {
  const body = jsonBody(exchange);
  if (!isObject(body)) return undefined;
  for (const name of names) {
    const value = body[name];
    if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
    if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  }
  return undefined;
}

/** Whether `text` stands in any string of a JSON value. */
function containsText(value: unknown, text: string): boolean {
  if (typeof value === 'string') return value.includes(text);
  if (Array.isArray(value)) return value.some((v) => containsText(v, text));
  if (isObject(value)) return Object.values(value).some((v) => containsText(v, text));
  return false;
}

const createdAddressUpdates = linkCheck('LINK-ADDRESS-CREATED-UPDATABLE', ([created, updated], { config }) => {
  if (!created) return notApplicable('no address was created');
  const stopped = firstStepFailed(created, config, 'OP2-SUCCESS-SHAPE');
  if (stopped) return notApplicable(stopped);
  if (!updated) return notApplicable('the creation returned no addressId (§4.2 makes it optional)');
  if (successProblem(updated, config)) {
    const expected = 'the update of the address just created (idDirCli = its addressId) to succeed';
    throw failure('A created address cannot be updated', expected, outcomeOf(updated, config).reason);
  }
});

const sentMessageReadable = linkCheck('LINK-CHANNEL-MESSAGE-READABLE', ([sent, read], { config }) => {
  if (!sent || !read) return notApplicable('no message was sent');
  const stopped =
    firstStepFailed(sent, config, 'OP15-SUCCESS-SHAPE') ?? firstStepFailed(read, config, 'OP14-SUCCESS-SHAPE');
  if (stopped) return notApplicable(stopped);
  const message = (JSON.parse(sent.request.body ?? '{}') as { message?: string }).message ?? '';
  if (containsText(jsonBody(read), message)) return;
  throw failure(
    'A sent message does not show on its channel',
    `the channel's messages to include ${JSON.stringify(message)}`,
    'no string of the channel holds it',
  );
});

const cartShowsInProduct = linkCheck('LINK-CART-AMOUNT-IN-PRODUCT', ([added, detail], { config }) => {
  if (!added || !detail) return notApplicable('no item was added');
  const stopped =
    firstStepFailed(added, config, 'OP5-SUCCESS-SHAPE') ?? firstStepFailed(detail, config, 'OP8-SUCCESS-SHAPE');
  if (stopped) return notApplicable(stopped);
  const body = jsonBody(detail);
  const amount = isObject(body) ? body.amountInCart : undefined;
  if (typeof amount === 'number' && amount > 0) return;
  throw failure(
    'The cart does not show in the product detail',
    'amountInCart above 0 for the product just added',
    `amountInCart ${JSON.stringify(amount)}`,
  );
});

const POST_SALE_ID_FIELDS = ['postsaleInboundId', 'postSaleInboundId', 'postsaleId', 'id'] as const;

const createdPostSaleReadable = linkCheck('LINK-POSTSALE-CHANNEL-READABLE', ([created, read], { config }) => {
  if (!created) return notApplicable('no post-sale request was created');
  const stopped = firstStepFailed(created, config, 'OP13-SUCCESS-SHAPE');
  if (stopped) return notApplicable(stopped);
  if (!read) return notApplicable(`the answer carries no integer id (${POST_SALE_ID_FIELDS.join(', ')})`);
  if (successProblem(read, config)) {
    const expected = 'operation 14 to read the channel by the id of the request just created';
    throw failure('A created post-sale request has no readable channel', expected, outcomeOf(read, config).reason);
  }
});

test.describe('links between operations', () => {
  // Each link is a chain of requests that wait for each other, with nothing to send ahead (send-ahead.ts): side by
  // side in several workers, their waits overlap.
  test.describe.configure({ mode: 'parallel' });

  test('updates an address it has just created, by the addressId the creation returned', {
    tag: declaredTags('createShippingAddress', [createdAddressUpdates]),
  }, async ({ api, conformance, bodies }) => {
    const created = await api.call('createShippingAddress', { json: bodies.addressWithPlaceId() });
    const addressId = integerField(created, ['addressId']);
    const chain = [created];
    if (addressId !== undefined) {
      chain.push(await api.call('updateShippingAddress', { json: { ...bodies.addressUpdate(), idDirCli: addressId } }));
    }
    await conformance.checkChain(createdAddressUpdates, chain, { settings: ['addressFields', 'placeId'] });
  });

  test('shows a message sent to a post-sale channel when the channel is read', {
    tag: declaredTags('sendChannelMessage', [sentMessageReadable]),
  }, async ({ api, conformance, bodies, config }) => {
    // A text of this run only, so that an earlier run's message cannot stand in for it.
    const message = `${bodies.channelMessage().message} (${randomBytes(4).toString('hex')})`;
    const params = channelParams({ bodies, config });
    const sent = await api.call('sendChannelMessage', { params, json: { message }, credentials: 'none' });
    const read = await api.call('getMessageChannel', { params: { postsaleInboundId: config.postSaleId } });
    await conformance.checkChain(sentMessageReadable, [sent, read], { settings: ['postSaleId', 'channelToken'] });
  });

  test('shows an item added to the cart in amountInCart of the product detail', {
    tag: declaredTags('updateCartItems', [cartShowsInProduct]),
  }, async ({ api, conformance, bodies, config }) => {
    const added = await api.call('updateCartItems', { json: [bodies.cartItem()] });
    const detail = await api.call('getProduct', {
      params: { product_id: config.cartProductId },
      query: config.productDetailQuery,
      credentials: 'valid',
    });
    await conformance.checkChain(cartShowsInProduct, [added, detail], { settings: ['cartProductId'] });
  });

  test('reads the channel of a post-sale request it has just created', {
    tag: declaredTags('createPostSale', [createdPostSaleReadable]),
  }, async ({ api, conformance, bodies }) => {
    const created = await api.call('createPostSale', { json: bodies.postSale() });
    const id = integerField(created, POST_SALE_ID_FIELDS);
    const chain = [created];
    if (id !== undefined) chain.push(await api.call('getMessageChannel', { params: { postsaleInboundId: id } }));
    await conformance.checkChain(createdPostSaleReadable, chain, { settings: ['postSaleBody'] });
  });
});
