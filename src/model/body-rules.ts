// What §2 and §4 say about each request body, once: the schema whose fields are dropped and retyped, a valid body to
// break, and the requirements (with the documented error shape) a refused body is judged by. The example tests
// (probes.ts) and the property probes both read this table.
import type { ValidBodies } from './bodies';
import type { SendOptions } from './send-options';
import { OPERATIONS, type OperationName } from './operations';

type Body = Record<string, unknown>;

/** What the rules read of the configuration, operation 15's channel: src/config's data, passed in. */
export interface ChannelSettings {
  channelToken: string;
  postSaleId: string;
  channelUserId: string;
}

/** What a request is built from; the test layer passes the whole configuration as `config`. */
export interface RequestContext<C extends ChannelSettings = ChannelSettings> {
  bodies: ValidBodies;
  config: C;
}

export interface BodyRule {
  operation: OperationName;
  /** The request schema whose fields are dropped and retyped. */
  schema: string;
  /** A valid body (for cart items: one valid item). */
  valid: (ctx: RequestContext) => Body;
  /** `valid` with the schema's optional fields too: a required field is required whatever else is sent (§4.1). */
  withOptionalFields?: (ctx: RequestContext) => Body;
  /** The valid body in which `field` has a role, when that is not `valid` (§4.2: placeString only with provinceId). */
  validFor?: (field: string, ctx: RequestContext) => Body | undefined;
  /** Turns a (broken) body into the request; by default it is sent as JSON. */
  send?: (body: Body, ctx: RequestContext) => SendOptions;
  /** Each with the requirement documenting the error body, if any. */
  required?: { id: string; errorShape?: string };
  types?: { id: string; errorShape?: string };
}

const schemaOf = (operation: OperationName): string => {
  const schema = OPERATIONS[operation].requestSchema;
  if (!schema) throw new Error(`${operation} has no request schema`);
  return schema;
};

const rule = (r: Omit<BodyRule, 'schema'>): BodyRule => ({ ...r, schema: schemaOf(r.operation) });

/** A request of an operation with one of its settings made wrong on purpose, and what it is in words. */
export interface WrongRequest {
  what: string;
  request: (ctx: RequestContext) => SendOptions;
}

/**
 * Requests of an operation each with one of its settings made wrong on purpose: a target that refuses a request as it
 * refuses one of them may be refusing that setting, not failing the spec (src/playwright/wrong-settings.ts).
 */
export interface WrongSettings<Setting extends string = string> {
  /** The settings the operation's requests depend on, named when they are suspect (by their keys in SETTINGS). */
  settings: readonly Setting[];
  variants: readonly WrongRequest[];
}

/**
 * Operation 15's message, sent as the channel's own is, with a channel token that no target issued (made from the
 * channel's user).
 */
export const MADE_UP_CHANNEL_TOKEN: WrongRequest = {
  what: 'a made-up channel token',
  request: (ctx) => channelMessageRequest(ctx, { token: `wrong-${ctx.config.channelUserId}-token` }),
};

/**
 * Operation 15's settings made wrong: the channel token, and the user with the configured token. A target that tells a
 * wrong user from a wrong token refuses a wrong RSF_CHANNEL_USER_ID as it refuses the made-up user (indep82).
 */
export const WRONG_CHANNEL_SETTINGS: WrongSettings<keyof ChannelSettings> = {
  settings: ['postSaleId', 'channelToken', 'channelUserId'],
  variants: [
    MADE_UP_CHANNEL_TOKEN,
    {
      what: 'a made-up user',
      request: (ctx) => channelMessageRequest(ctx, { userId: `made-up-user-of-${ctx.config.postSaleId}` }),
    },
  ],
};

/** The parameters of operation 15's path: the configured channel, token and user. */
export const channelParams = ({ config }: RequestContext, token = config.channelToken) => ({
  postsaleInboundId: config.postSaleId,
  token,
  userId: config.channelUserId,
});

/**
 * Operation 15's configured message, with no Authorization header (§5.3), to the configured channel, token and user
 * but for what `changed` gives another value.
 */
export const channelMessageRequest = (
  ctx: RequestContext,
  changed: Partial<ReturnType<typeof channelParams>> = {},
): SendOptions => ({
  params: { ...channelParams(ctx), ...changed },
  json: ctx.bodies.channelMessage(),
  credentials: 'none',
});

const PROVINCE_FIELDS = new Set(['provinceId', 'placeString']);

export const BODY_RULES = {
  updateClient: rule({
    operation: 'updateClient',
    valid: ({ bodies }) => bodies.client(),
    withOptionalFields: ({ bodies }) => bodies.clientWithOptionalFields(),
    required: { id: 'OP1-REQUIRED-FIELDS', errorShape: 'OP1-ERROR-SHAPE' },
    types: { id: 'OP1-FIELD-TYPES', errorShape: 'OP1-ERROR-SHAPE' },
  }),
  // Operation 2's required fields are conditional (§4.2): shipping-address.spec.ts probes them one rule at a time.
  createShippingAddress: rule({
    operation: 'createShippingAddress',
    valid: ({ bodies }) => bodies.addressWithPlaceId(),
    // provinceId and placeString have a role only together (§4.2): a target may ignore them beside a placeId.
    validFor: (field, { bodies }) => (PROVINCE_FIELDS.has(field) ? bodies.addressWithProvince() : undefined),
    types: { id: 'OP2-FIELD-TYPES' },
  }),
  updateShippingAddress: rule({
    operation: 'updateShippingAddress',
    valid: ({ bodies }) => bodies.addressUpdate(),
    required: { id: 'OP3-REQUIRED-FIELDS', errorShape: 'OP3-ERROR-SHAPE' },
    types: { id: 'OP3-FIELD-TYPES', errorShape: 'OP3-ERROR-SHAPE' },
  }),
  // {success, msg} is documented for an unknown category or values it cannot take (OP4-ERROR-SHAPE); a missing or
  // mistyped field may be refused in any shape §7.1 lists for operation 4.
  updateCategory: rule({
    operation: 'updateCategory',
    valid: ({ bodies }) => bodies.categoryUpdate(),
    required: { id: 'OP4-REQUIRED-FIELDS', errorShape: 'OP4-INVALID-BODY-ERROR-SHAPE' },
    types: { id: 'OP4-FIELD-TYPES', errorShape: 'OP4-INVALID-BODY-ERROR-SHAPE' },
  }),
  updateCartItems: rule({
    operation: 'updateCartItems',
    valid: ({ bodies }) => bodies.cartItem(),
    send: (item) => ({ json: [item] }),
    required: { id: 'OP5-REQUIRED-FIELDS' },
    types: { id: 'OP5-FIELD-TYPES' },
  }),
  createPaymentPreference: rule({
    operation: 'createPaymentPreference',
    valid: ({ bodies }) => bodies.paymentPreference(),
    required: { id: 'OP6-REQUIRED-FIELDS', errorShape: 'OP6-ERROR-SHAPE' },
    types: { id: 'OP6-FIELD-TYPES', errorShape: 'OP6-ERROR-SHAPE' },
  }),
  sendChannelMessage: rule({
    operation: 'sendChannelMessage',
    valid: ({ bodies }) => bodies.channelMessage(),
    send: (json, ctx) => ({ json, params: channelParams(ctx) }),
    required: { id: 'OP15-REQUIRED-FIELDS' },
    types: { id: 'OP15-FIELD-TYPES' },
  }),
} as const satisfies Partial<Record<OperationName, BodyRule>>;

/**
 * The valid request of each write whose refusals the spec does not show (§7.4), as its success test sends it: a 403
 * to one of its requests may be the API's refusal of the data or the account's rights, and whether this request is
 * carried out tells them apart (src/playwright/api-client.ts).
 */
export const VALID_WRITES = {
  updateCartItems: (ctx) => bodyRequest(BODY_RULES.updateCartItems, BODY_RULES.updateCartItems.valid(ctx), ctx),
  createPostSale: ({ bodies }) => ({ json: bodies.postSale() }),
} as const satisfies Partial<Record<OperationName, (ctx: RequestContext) => SendOptions>>;

/** The request that sends `body` the way `rule` says. */
export function bodyRequest(rule: BodyRule, body: Body, ctx: RequestContext): SendOptions {
  return rule.send ? rule.send(body, ctx) : { json: body };
}
