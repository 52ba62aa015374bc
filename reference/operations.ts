// The reference's behaviour for each of the 15 operations of §4: its error shape and its handler. What the spec says
// about an operation (method, path, credentials, request schema, sample body) comes from the suite's neutral
// description, src/model/operations.ts, and is not restated here.
import { randomBytes } from 'node:crypto';
import { isObject, type Operation, OPERATIONS, type OperationNumber } from '../src/model/operations';
import type { BusinessRule, Credentials, FaultHooks } from './hooks';
import type { ModeChoices } from './modes';
import { placeholderProduct, priceEntry, productView } from './products';
import { type Body, EMPTY, json, ok, plain, Rejection, type Reply, STATUS_OF } from './reply';
import {
  ACCOUNT_PRODUCT_IDS,
  ALLOWED_CART_TYPES,
  ORDERS,
  PLACES,
  PRODUCTS,
  PROVINCES,
  SEED_CHANNEL,
  type Store,
  VOUCHERS,
} from './seed';

export interface Context {
  params: Record<string, string>;
  query: URLSearchParams;
  loggedIn: boolean;
  /** The credentials as presented (absent, valid, invalid). */
  presented: Credentials;
  /** The request body, parsed and validated (routes with a requestSchema only). */
  body: unknown;
  store: Store;
  choices: ModeChoices;
  hooks: FaultHooks;
  /** False when a business rule is broken, unless the profile's fault ignores that rule. */
  holds(rule: BusinessRule, condition: boolean): boolean;
  /** Whether `token` is an access token this server issued (the Bearer token, or one minted): uses are not counted. */
  isAccessToken(token: string): boolean;
}

/**
 * An operation as the neutral description gives it, and how the reference serves it. Its path's {a}-{b} segment
 * splits at the first hyphen; its sampleBody stands in for a malformed body when a fault accepts one.
 */
export interface Route extends Operation {
  /** The op's documented error shape (§7.1). */
  errorBody(rejection: Rejection): Body;
  /** Credentials carried in the path (op 15), checked before the body is read. */
  authorize?(ctx: Context): void;
  handle(ctx: Context): Reply;
}

type Obj = Record<string, unknown>;
const asObject = (v: unknown): Obj => (isObject(v) ? v : {});
const integerOf = (v: unknown): number | undefined => {
  const n = typeof v === 'string' && /^-?\d{1,15}$/.test(v.trim()) ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) ? n : undefined;
};
const created = (ctx: Context, body: Body): Reply => ok(body, ctx.choices.createdStatus);

/** Operation 5's success: a plain string (§4.5). */
export const cartUpdated = (): Reply => ok(plain('Items added to the cart'));

/** §5.4 wording: operations 2 to 4 say "credentials required", the others "not authenticated". */
export const credentialsMessage = (op: OperationNumber): string =>
  op >= 2 && op <= 4 ? 'credentials required' : 'not authenticated';

const plainError = (r: Rejection): Body => plain(r.message);

const ERROR_BODIES = {
  client: (r: Rejection): Body => json({ status: 'error', message: r.message }),
  addressCreate: (r: Rejection): Body =>
    r.kind === 'missing-data' ? plain(r.message) : json({ success: 'error', msg: r.message }),
  addressUpdate: (r: Rejection): Body => json({ success: 'error', msg: r.message }),
  category: (r: Rejection): Body => json({ success: false, msg: r.message }),
  cart: (r: Rejection): Body => plain(`Error: ${r.message}`),
  preference: (r: Rejection): Body => json({ error_message: r.message }),
  channelSend: (): Body => json({ success: 'error' }),
};

function findAddress(ctx: Context, id: unknown) {
  const key = integerOf(id);
  const address = key === undefined ? undefined : ctx.store.addresses.get(key);
  if (!address) throw new Rejection('not-found', `address ${String(id)} not found`);
  return address;
}

function requireKnownPlace(placeId: unknown): void {
  if (!(String(placeId) in PLACES)) throw new Rejection('rule', `placeId ${String(placeId)} does not exist`);
}

function findChannel(ctx: Context) {
  const raw = ctx.params.postsaleInboundId ?? '';
  if (!/^\d{1,15}$/.test(raw)) throw new Rejection('invalid', 'postsaleInboundId must be an integer');
  const id = Number(raw);
  const channel = ctx.store.channels.get(id);
  if (!channel) throw new Rejection('not-found', `post-sale ${id} not found`);
  return channel;
}

/** Operation 15's channel: the one its path names, or with findsChannelByToken, the one whose token the path holds. */
function channelOfMessage(ctx: Context) {
  const byToken = ctx.hooks.findsChannelByToken
    ? [...ctx.store.channels.values()].find((channel) => channel.token === ctx.params.token)
    : undefined;
  return byToken ?? findChannel(ctx);
}

export const ROUTES: readonly Route[] = [
  {
    ...OPERATIONS.updateClient,
    errorBody: ERROR_BODIES.client,
    handle(ctx) {
      const body = asObject(ctx.body);
      if (body.clientProvinceId !== undefined && !(String(body.clientProvinceId) in PROVINCES)) {
        throw new Rejection(
          'rule',
          `the client could not be updated: clientProvinceId ${String(body.clientProvinceId)} does not exist`,
        );
      }
      ctx.store.client = { ...body };
      return ok(json({ status: 'ok', message: 'Client updated' }));
    },
  },
  {
    ...OPERATIONS.createShippingAddress,
    errorBody: ERROR_BODIES.addressCreate,
    handle(ctx) {
      const body = asObject(ctx.body);
      if (body.provinceId !== undefined) {
        if (!(String(body.provinceId) in PROVINCES))
          throw new Rejection('rule', `provinceId ${String(body.provinceId)} does not exist`);
      } else if (body.placeId !== undefined) requireKnownPlace(body.placeId);
      const idDirCli = ctx.store.nextAddressId++;
      const { direccion, telefono, codigoPostal, placeId, provinceId, placeString } = body;
      ctx.store.addresses.set(idDirCli, {
        idDirCli,
        direccion,
        telefono,
        codigoPostal,
        placeId,
        provinceId,
        placeString,
      });
      return created(ctx, json({ success: 'ok', msg: 'Address created', addressId: idDirCli }));
    },
  },
  {
    ...OPERATIONS.updateShippingAddress,
    errorBody: ERROR_BODIES.addressUpdate,
    handle(ctx) {
      const body = asObject(ctx.body);
      const address = findAddress(ctx, body.idDirCli);
      if (body.placeId !== undefined) requireKnownPlace(body.placeId);
      Object.assign(address, {
        direccion: body.direccion,
        telefono: body.telefono,
        codigoPostal: body.codigoPostal,
        placeId: body.placeId,
      });
      return ok(json({ success: 'ok', msg: 'Address updated' }));
    },
  },
  {
    ...OPERATIONS.updateCategory,
    errorBody: ERROR_BODIES.category,
    handle(ctx) {
      const body = asObject(ctx.body);
      const id = integerOf(body.categoryId);
      const category = id === undefined ? undefined : ctx.store.categories.get(id);
      if (!ctx.holds('category-exists', category !== undefined)) {
        throw new Rejection('not-found', `category ${JSON.stringify(body.categoryId)} does not exist`);
      }
      if (category) Object.assign(category, { utility: body.utility, description: body.description, hide: body.hide });
      return ok(json({ success: true, msg: 'Category updated' }));
    },
  },
  {
    ...OPERATIONS.updateCartItems,
    errorBody: ERROR_BODIES.cart,
    handle(ctx) {
      // Only a fault that ignores type errors lets a non-array through.
      const items = (Array.isArray(ctx.body) ? ctx.body : [ctx.body]).map(asObject);
      for (const item of items) {
        const productId = integerOf(item.productId);
        if (
          !ctx.holds(
            'cart-product-exists',
            PRODUCTS.some((p) => p.id === productId),
          )
        ) {
          throw new Rejection('not-found', `product ${JSON.stringify(item.productId)} does not exist`);
        }
        if (!ctx.holds('cart-type-allowed', ALLOWED_CART_TYPES.has(integerOf(item.type) ?? NaN))) {
          throw new Rejection('rule', `item type ${JSON.stringify(item.type)} is not allowed`);
        }
        const limit = ctx.choices.cartAmountLimit;
        if (limit !== null && (integerOf(item.amount) ?? 0) > limit)
          throw new Rejection('rule', `error: the cart could not be updated, amount ${String(item.amount)} too large`);
      }
      // Amount > 0 sets the line (add or update); 0 or less removes it (§4.5 leaves this open).
      for (const item of items) {
        const productId = integerOf(item.productId) ?? 0;
        const amount = integerOf(item.amount) ?? 0;
        if (amount > 0) ctx.store.cart.set(productId, amount);
        else ctx.store.cart.delete(productId);
      }
      return cartUpdated();
    },
  },
  {
    ...OPERATIONS.createPaymentPreference,
    errorBody: ERROR_BODIES.preference,
    handle(ctx) {
      const body = asObject(ctx.body);
      const preferenceId = `PREF-${String(body.orderId)}-${ctx.store.nextPreferenceId++}`;
      return created(ctx, json({ preference_id: preferenceId }));
    },
  },
  {
    ...OPERATIONS.quoteShipping,
    errorBody: plainError,
    handle(ctx) {
      const { codigoPostalFavorito = '', direccionCompleta = '' } = ctx.params;
      // A full address has a street (a letter) and a number (a digit).
      if (!ctx.holds('address-format', /\p{L}/u.test(direccionCompleta) && /\d/.test(direccionCompleta))) {
        throw new Rejection('rule', 'The address format is not valid');
      }
      const units = [...ctx.store.cart.values()].reduce((a, b) => a + b, 0);
      const base = 450 + 25 * units;
      return ok(
        json({
          codigoPostal: codigoPostalFavorito,
          direccion: direccionCompleta,
          itemsInCart: units,
          options: [
            { carrier: 'Standard', cost: base, days: 3 },
            { carrier: 'Express', cost: Math.round(base * 1.8), days: 1 },
          ],
        }),
      );
    },
  },
  {
    ...OPERATIONS.getProduct,
    errorBody: plainError,
    handle(ctx) {
      const id = ctx.params.product_id ?? '';
      const product = /^\d+$/.test(id) ? PRODUCTS.find((p) => p.id === Number(id)) : undefined;
      if (!ctx.holds('product-exists', product !== undefined)) {
        throw new Rejection('not-found', 'Internal server error: the product could not be obtained');
      }
      const shown = product ?? placeholderProduct(id);
      const accountCart = ctx.store.cart.get(shown.id) ?? 0;
      const amountInCart = ctx.loggedIn ? accountCart : 0;
      const view = productView(shown, { loggedIn: ctx.loggedIn, amountInCart, choices: ctx.choices });
      return ok(
        json(
          ctx.hooks.productView?.(view, {
            loggedIn: ctx.loggedIn,
            presented: ctx.presented,
            product: shown,
            choices: ctx.choices,
            accountCart,
          }) ?? view,
        ),
      );
    },
  },
  {
    ...OPERATIONS.listPrices,
    errorBody: plainError,
    handle: () => ok(json(PRODUCTS.map(priceEntry))),
  },
  {
    ...OPERATIONS.getPaymentVoucher,
    errorBody: plainError,
    handle(ctx) {
      const key = `${ctx.params.branch}-${ctx.params.order}`;
      const voucher = VOUCHERS[key];
      if (!voucher) throw new Rejection('not-found', `payment voucher ${key} not found`);
      return ok(json(voucher));
    },
  },
  {
    ...OPERATIONS.getOrder,
    errorBody: plainError,
    handle(ctx) {
      const key = `${ctx.params.branch}/${ctx.params.albNumber}`;
      const order = ORDERS[key];
      if (!order) throw new Rejection('not-found', `order ${key} not found`);
      return ok(json(order));
    },
  },
  {
    ...OPERATIONS.deleteProduct,
    errorBody: plainError,
    handle(ctx) {
      const id = ctx.params.id ?? '';
      const productId = /^\d+$/.test(id) ? Number(id) : NaN;
      // Idempotent unless the mode deletes once: a seeded product of the account may be deleted again, so the suite
      // can repeat.
      const gone = ctx.choices.deletions === 'once' && ctx.store.deletedAccountProducts.has(productId);
      if (!ACCOUNT_PRODUCT_IDS.has(productId) || gone) throw new Rejection('not-found', `product ${id} not found`);
      ctx.store.deletedAccountProducts.add(productId);
      return ctx.choices.deleteAnswer === '204-empty' ? ok(EMPTY, 204) : ok(json({ success: 'ok', msg: 'deleted' }));
    },
  },
  {
    ...OPERATIONS.createPostSale,
    errorBody: plainError,
    handle(ctx) {
      const postsaleInboundId = ctx.store.nextPostSaleId++;
      ctx.store.channels.set(postsaleInboundId, {
        postsaleInboundId,
        token: randomBytes(16).toString('hex'),
        userId: SEED_CHANNEL.userId,
        messages: [],
      });
      return created(ctx, json({ postsaleInboundId, status: 'created' }));
    },
  },
  {
    ...OPERATIONS.getMessageChannel,
    errorBody: plainError,
    handle(ctx) {
      const channel = findChannel(ctx);
      return ok(
        json({ postsaleInboundId: channel.postsaleInboundId, messages: channel.messages.map((m) => ({ ...m })) }),
      );
    },
  },
  {
    ...OPERATIONS.sendChannelMessage,
    errorBody: ERROR_BODIES.channelSend,
    authorize(ctx) {
      const channel = channelOfMessage(ctx);
      const presented = ctx.params.token ?? '';
      const matches =
        ctx.hooks.channelTokenMatches?.(presented, channel.token, ctx.isAccessToken, ctx.presented) ??
        presented === channel.token;
      if (!ctx.holds('channel-token', matches)) throw new Rejection('forbidden', 'channel token not accepted');
      if (ctx.params.userId !== channel.userId) throw new Rejection('forbidden', 'user not allowed on this channel');
    },
    handle(ctx) {
      const channel = channelOfMessage(ctx);
      channel.messages.push({
        userId: channel.userId,
        message: asObject(ctx.body).message,
        sentAt: new Date().toISOString(),
      });
      return ok(json({ success: 'ok' }));
    },
  },
];

export const routeOf = (op: OperationNumber): Route => ROUTES.find((r) => r.number === op)!;

/** A rejection in the op's documented error shape (a plain string where no route applies). */
export function rejectionReply(route: Route | undefined, rejection: Rejection): Reply {
  return {
    status: STATUS_OF[rejection.kind],
    body: route ? route.errorBody(rejection) : plain(rejection.message),
    outcome: rejection.kind,
    message: rejection.message,
    missingFields: rejection.missingFields,
    schemaKeywords: rejection.schemaKeywords,
  };
}
