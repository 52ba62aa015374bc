// Checks that span operations: what one operation creates or changes, another one reads (§2.2, §2.6, §4.13-§4.15).
// Each link writes, so it runs only when writes are allowed (@writes), and its evidence shows every exchange.
import { channelParams } from '../../src/model/body-rules';
import { linkCheck, notApplicable, successProblem } from '../../src/checks/checks';
import { failure } from '../../src/checks/failure';
import { test } from '../../src/playwright/fixtures';
import { type Exchange, integerDigits, jsonBody } from '../../src/http/exchange';
import { isObject, neitherSuccessNorRefusal, outcomeOf } from '../../src/checks/outcome';
import { link } from '../../src/playwright/probes';
import { runNonce } from '../../src/http/run-state';
import type { RecognitionConfig } from '../../src/config/settings/recognition';

/** Why a chain stopped at its first step, or undefined when that step succeeded. */
function firstStepFailed(first: Exchange, config: RecognitionConfig, judgedBy: string): string | undefined {
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

/**
 * An integer id beyond 2^53 (a 64-bit one: a Snowflake id, a Java long) under one of `names`, as the answer's text
 * writes it, in its decimal digits: JSON.parse rounds it, so that the id sent back as a number would not be the one
 * returned (indep101). Also when written with an exponent (1.58e+18, as PHP writes an integer that became a float:
 * indep112), which JSON's grammar allows for any number.
 */
function bigIntegerLiteral(exchange: Exchange, names: readonly string[]): string | undefined {
  const body = jsonBody(exchange);
  if (!isObject(body)) return undefined;
  for (const name of names) {
    const value = body[name];
    if (typeof value !== 'number' || !Number.isInteger(value) || Number.isSafeInteger(value)) continue;
    const number = new RegExp(`"${name}"\\s*:\\s*(-?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)\\s*[,}]`).exec(
      exchange.text,
    )?.[1];
    const digits = number === undefined ? undefined : integerDigits(number);
    if (digits !== undefined) return digits;
  }
  return undefined;
}

/** `body` as JSON text, its field `name` the integer `literal` as written, beyond what a JavaScript number holds. */
function withIntegerLiteral(body: Record<string, unknown>, name: string, literal: string): string {
  const placeholder = JSON.stringify({ ...body, [name]: 0 });
  return placeholder.replace(`${JSON.stringify(name)}:0`, `${JSON.stringify(name)}:${literal}`);
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
  if (!updated) {
    const body = jsonBody(created);
    const addressId = isObject(body) ? body.addressId : undefined;
    if (addressId === undefined) return notApplicable('the creation returned no addressId (§4.2 makes it optional)');
    return notApplicable(
      `the creation returned addressId ${JSON.stringify(addressId)}, no integer to send back as idDirCli ` +
        '(OP2-SUCCESS-SHAPE judges its type)',
    );
  }
  // Taken, with an answer off §4.3's success shape: the update was carried out, and OP3-SUCCESS-SHAPE judges the shape.
  if (neitherSuccessNorRefusal(updated, config)) {
    return notApplicable("the update was taken, with a body that is not §4.3's success (OP3-SUCCESS-SHAPE judges it)");
  }
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
  // Each link is a chain of two requests, the second waiting for the first: the chains of the file are sent side by
  // side as it starts (prefetch.ts), so their waits overlap.
  test(
    ...link('updates an address it has just created, by the addressId the creation returned', {
      operation: 'createShippingAddress',
      request: ({ bodies }) => ({ json: bodies.addressWithPlaceId() }),
      read: ({ bodies }, created) => {
        const addressId = integerField(created, ['addressId']);
        if (addressId !== undefined) {
          return {
            operation: 'updateShippingAddress',
            options: { json: { ...bodies.addressUpdate(), idDirCli: addressId } },
          };
        }
        // A 64-bit id, sent back as the creation wrote it.
        const literal = bigIntegerLiteral(created, ['addressId']);
        if (literal === undefined) return undefined;
        const text = withIntegerLiteral(bodies.addressUpdate(), 'idDirCli', literal);
        return { operation: 'updateShippingAddress', options: { raw: { text, contentType: 'application/json' } } };
      },
      check: createdAddressUpdates,
      settings: ['addressFields', 'placeId'],
    }),
  );

  test(
    ...link('shows a message sent to a post-sale channel when the channel is read', {
      operation: 'sendChannelMessage',
      // A text of this run only, so that an earlier run's message cannot stand in for it.
      request: (ctx) => ({
        params: channelParams(ctx),
        json: { message: `${ctx.bodies.channelMessage().message} (${runNonce()})` },
        credentials: 'none',
      }),
      read: ({ config }) => ({
        operation: 'getMessageChannel',
        options: { params: { postsaleInboundId: config.postSaleId } },
      }),
      check: sentMessageReadable,
      settings: ['postSaleId', 'channelToken'],
    }),
  );

  test(
    ...link('shows an item added to the cart in amountInCart of the product detail', {
      operation: 'updateCartItems',
      request: ({ bodies }) => ({ json: [bodies.cartItem()] }),
      read: ({ config }) => ({
        operation: 'getProduct',
        options: {
          params: { product_id: config.cartProductId },
          query: config.productDetailQuery,
          credentials: 'valid',
        },
      }),
      check: cartShowsInProduct,
      settings: ['cartProductId'],
    }),
  );

  test(
    ...link('reads the channel of a post-sale request it has just created', {
      operation: 'createPostSale',
      request: ({ bodies }) => ({ json: bodies.postSale() }),
      read: (_, created) => {
        // A 64-bit id goes in the path as the creation wrote it.
        const id = integerField(created, POST_SALE_ID_FIELDS) ?? bigIntegerLiteral(created, POST_SALE_ID_FIELDS);
        return id === undefined
          ? undefined
          : { operation: 'getMessageChannel', options: { params: { postsaleInboundId: id } } };
      },
      check: createdPostSaleReadable,
      settings: ['postSaleBody'],
    }),
  );
});
