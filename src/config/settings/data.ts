// Test data: the products, categories, addresses, orders and bodies of the target that the tests name.
import { SAMPLE_BODIES, STREET_FIELDS } from '../../model/operations';
import {
  ConfigProblem,
  type Parsed,
  S,
  type Setting,
  type SettingTable,
  integer,
  integerInPath,
  list,
  refuseRounded,
  secretText,
  text,
} from './setting';

const json = (raw: string): unknown => {
  try {
    const value: unknown = JSON.parse(raw);
    // Integer literals outside strings (not the digits of a fraction or an exponent): one that JSON.parse rounds
    // would be sent as another.
    const outsideStrings = raw.replace(/"(?:[^"\\]|\\.)*"/g, '""');
    for (const [literal] of outsideStrings.matchAll(/(?<![\d.eE+-])-?\d{16,}(?![.\deE])/g)) refuseRounded(literal);
    return value;
  } catch (e) {
    if (e instanceof ConfigProblem) throw e;
    // A bare word meant as a string: .env drops the double quotes around a value unless single quotes keep them.
    const asString = /^\s*[[{"]/.test(raw)
      ? ''
      : `; a string goes in double quotes, and in .env in single ones too: '"…"'`;
    throw new ConfigProblem(`not valid JSON: ${(e as Error).message}${asString}`);
  }
};

/** The sample bodies of src/model/operations.ts, as defaults: the reference's seed data match them too. */
const sample = (value: unknown): string => JSON.stringify(value);
const { categoryId: sampleCategoryId, ...sampleCategoryFields } = SAMPLE_BODIES.updateCategory;
const sampleAddress = SAMPLE_BODIES.createShippingAddress;
const sampleStreet = Object.fromEntries(STREET_FIELDS.map((field) => [field, sampleAddress[field]]));
const [sampleCartItem] = SAMPLE_BODIES.updateCartItems;

/**
 * A request body, as JSON matching schemas/<schema>.schema.json, whose default is a sample body. That default is
 * valid (openapi.spec.ts checks the samples), so only a value the user set is validated: loading the configuration
 * loads the schema validators only then.
 */
function bodySetting(name: string, sampleBody: unknown, schema: string, doc: string): Setting<unknown> {
  const byDefault = sample(sampleBody);
  return S(
    name,
    byDefault,
    (raw) => {
      const value = json(raw);
      if (raw === byDefault) return value;
      // Required, not imported: most processes load the configuration without ever validating a body.
      const { schemas } = require('../../model/schema-registry') as typeof import('../../model/schema-registry');
      const verdict = schemas().validate(schema, value);
      if (!verdict.valid)
        throw new ConfigProblem(`does not match schemas/${schema}.schema.json: ${verdict.errors.join('; ')}`);
      return value;
    },
    doc,
  );
}

export const DATA_SETTINGS = {
  productId: S('RSF_PRODUCT_ID', '1001', text, 'An existing product, for product detail (operation 8).'),
  missingProductId: S(
    'RSF_MISSING_PRODUCT_ID',
    '999999',
    integer,
    'A product id that does not exist (operations 5 and 8).',
  ),
  stockProductIds: S(
    'RSF_STOCK_PRODUCT_IDS',
    '1001,1002,1003,1004,1005',
    list(text),
    'Products whose logged-in stock fields are checked (§2.6, §8); ' +
      'cover stock above, at and below the display limit, and none.',
  ),
  productDetailQuery: S(
    'RSF_PRODUCT_DETAIL_QUERY',
    '',
    text,
    'Query string added to product detail requests, e.g. "type=1" (§4.8 leaves the price-context parameter open).',
  ),
  categoryId: S(
    'RSF_CATEGORY_ID',
    sample(sampleCategoryId),
    json,
    'An existing personal category, as JSON (a number, or a quoted string: its declared type is not shown, §4.4).',
  ),
  missingCategoryId: S('RSF_MISSING_CATEGORY_ID', '99999', json, 'A category that does not exist, as JSON.'),
  categoryFields: S(
    'RSF_CATEGORY_FIELDS',
    sample(sampleCategoryFields),
    json,
    'utility, description and hide sent when updating RSF_CATEGORY_ID, ' +
      'as a JSON object (it is updated for real when writes are allowed).',
  ),
  addressId: S(
    'RSF_ADDRESS_ID',
    sample(SAMPLE_BODIES.updateShippingAddress.idDirCli),
    integer,
    'idDirCli of an existing shipping address (operation 3).',
  ),
  placeId: S(
    'RSF_PLACE_ID',
    sample(sampleAddress.placeId),
    json,
    'A valid placeId, as JSON (a quoted string per §4.2).',
  ),
  provinceId: S('RSF_PROVINCE_ID', '21', integer, 'A valid provinceId (§4.2).'),
  placeString: S('RSF_PLACE_STRING', 'Rosario', text, 'A locality name that goes with RSF_PROVINCE_ID (§4.2).'),
  addressFields: S(
    'RSF_ADDRESS_FIELDS',
    sample(sampleStreet),
    json,
    'direccion, telefono and codigoPostal used to create and update addresses, as a JSON object.',
  ),
  clientBody: bodySetting(
    'RSF_CLIENT_BODY',
    SAMPLE_BODIES.updateClient,
    'client.request',
    'A valid body for PATCH /client (§2.1), as JSON; without the optional fields.',
  ),
  clientWebsite: S(
    'RSF_CLIENT_WEBSITE',
    'https://ferreteria-modelo.example',
    text,
    'A valid clientWebsite, for the optional-fields check (§4.1).',
  ),
  cartProductId: S(
    'RSF_CART_PRODUCT_ID',
    sample(sampleCartItem.productId),
    integer,
    'A product that can be put in the cart (operation 5).',
  ),
  cartAmount: S('RSF_CART_AMOUNT', sample(sampleCartItem.amount), integer, 'The amount used for cart items.'),
  cartAllowedType: S(
    'RSF_CART_ALLOWED_TYPE',
    sample(sampleCartItem.type),
    integer,
    'An item type the cart accepts (§4.5 leaves the values open).',
  ),
  cartDisallowedType: S('RSF_CART_DISALLOWED_TYPE', '99', integer, 'An item type the cart must refuse.'),
  paymentPreferenceBody: bodySetting(
    'RSF_PAYMENT_PREFERENCE_BODY',
    SAMPLE_BODIES.createPaymentPreference,
    'payment-preference.request',
    'A valid payment preference request (§2.5), as JSON.',
  ),
  shippingPostalCode: S(
    'RSF_SHIPPING_POSTAL_CODE',
    '2000',
    text,
    'codigoPostalFavorito for the shipping quote (operation 7).',
  ),
  shippingAddressValid: S(
    'RSF_SHIPPING_ADDRESS_VALID',
    'Cordoba 1234, Rosario',
    text,
    'A full address the target can quote (operation 7).',
  ),
  shippingAddressInvalid: S(
    'RSF_SHIPPING_ADDRESS_INVALID',
    'no street number',
    text,
    'A full address the target must refuse as not valid (§4.7).',
  ),
  orderBranch: S('RSF_ORDER_BRANCH', '1', text, 'branch of an existing order (operation 11).'),
  orderAlbNumber: S('RSF_ORDER_ALB_NUMBER', '123456', text, 'albNumber of that order.'),
  voucherBranch: S('RSF_VOUCHER_BRANCH', '0001', text, 'branch of an existing payment voucher (operation 10).'),
  voucherOrder: S('RSF_VOUCHER_ORDER', '00012345', text, 'order of that voucher.'),
  deleteProductId: S(
    'RSF_DELETE_PRODUCT_ID',
    '2001',
    text,
    'A product of the account that may be deleted (operation 12). It is deleted for real when writes are allowed.',
  ),
  postSaleBody: bodySetting(
    'RSF_POSTSALE_BODY',
    SAMPLE_BODIES.createPostSale,
    'post-sale.request',
    'The JSON body of POST /postventa; §4.13 does not show its fields.',
  ),
  postSaleId: S(
    'RSF_POSTSALE_ID',
    '7001',
    integerInPath,
    'postsaleInboundId of an existing post-sale channel (operations 14 and 15).',
  ),
  channelToken: S(
    'RSF_CHANNEL_TOKEN',
    'Reference-Channel-Token',
    secretText,
    'The channel token of that post-sale channel (operation 15).',
    true,
  ),
  channelUserId: S('RSF_CHANNEL_USER_ID', 'u-42', text, 'The userId that may write to that channel.'),
  channelMessage: S(
    'RSF_CHANNEL_MESSAGE',
    SAMPLE_BODIES.sendChannelMessage.message,
    text,
    'The message text sent to the channel.',
  ),
} satisfies SettingTable;

export type DataConfig = Parsed<typeof DATA_SETTINGS>;
