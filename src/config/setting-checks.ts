// How each setting that names data on the target is checked, and what a wrong value gives: the preflight's reads and
// writes, or (for a value a refusal cannot tell from non-conformance) a hint on the failure saying how to check it.
// README's settings-check table is rendered from here (npm run docs:config), so the two cannot drift.
import type { SETTINGS } from './config';

type Key = keyof typeof SETTINGS;

export interface SettingCheck {
  /** How the suite checks it. */
  how: string;
  /** What a wrong value gives. */
  wrong: string;
  /** For a setting only a failure can show: how the user checks it by hand (shown in the failure's hint). */
  howToCheck?: string;
}

const READ = 'ERROR at the preflight, naming the setting, its value and what the target answered';
const WRITE = `With RSF_ALLOW_WRITES on: ${READ}. With writes off: not sent (the tests that use it are skipped)`;
const read = (operation: string): Pick<SettingCheck, 'how' | 'wrong'> => ({
  how: `Preflight reads it (${operation}), without writing`,
  wrong: READ,
});
const write = (operation: string, note = ''): Pick<SettingCheck, 'how' | 'wrong'> => ({
  how: `Preflight sends the tests' own update (${operation}) when writes are on`,
  wrong: note ? WRITE.replace(READ, `${READ}${note}`) : WRITE,
});
/** For an id whose JSON type the spec leaves open (preflight.ts, otherTypeNote). */
const otherType = (field: string, section: string): string =>
  `, and, for a number written as a JSON string ("10") or the other way round, the other type to try: ${section} ` +
  `leaves ${field}'s type open`;
const hint = (how: string, howToCheck: string): SettingCheck => ({
  how,
  wrong: 'The check that uses it fails, with a hint naming the setting and how to check it',
  howToCheck,
});

/**
 * Operation 15's channel: its refusal, when the Bearer token and a made-up token or a made-up user get the same one,
 * is not judged (src/playwright/wrong-settings.ts).
 */
const channel = (howToCheck: string): SettingCheck => ({
  how: 'Not checked: only sending a message (operation 15) uses it',
  wrong:
    'ERROR: the tests that send a message are inconclusive, naming the setting and how to check it, when the ' +
    'target refuses them with a 4xx as it refuses a made-up channel token, or the configured token with a made-up ' +
    'user, but for a 405, which no setting causes (else the check that uses it fails, with that hint)',
  howToCheck,
});

export const SETTING_CHECKS: Partial<Record<Key, SettingCheck>> = {
  productId: read('GET /item/{id}, operation 8'),
  stockProductIds: read('GET /item/{id} for each, operation 8'),
  missingProductId: {
    how:
      'Preflight reads it (operation 8): it must be missing. Found, it is blamed only if a made-up id of 12 digits ' +
      'is missing: a target that finds that too finds any id, and the test of OP8-UNKNOWN-PRODUCT fails it',
    wrong: READ,
  },
  productDetailQuery: { how: 'Sent with the preflight reads of operation 8', wrong: READ },
  cartProductId: read('GET /item/{id}, operation 8'),
  orderBranch: read('GET /miCuenta/pedidos/{branch}/{albNumber}, operation 11'),
  orderAlbNumber: read('operation 11, with RSF_ORDER_BRANCH'),
  voucherBranch: read('GET /paymentVoucher/{branch}-{order}, operation 10'),
  voucherOrder: read('operation 10, with RSF_VOUCHER_BRANCH'),
  postSaleId: read('GET /postventa/{id}/messageChannel, operation 14'),
  categoryId: write('PATCH /miCuenta/misCategorias, operation 4', otherType('categoryId', '§4.4')),
  categoryFields: write('operation 4, with RSF_CATEGORY_ID'),
  addressId: write('PATCH /miCuenta/shippingAddress, operation 3'),
  addressFields: write('operation 3, with RSF_ADDRESS_ID'),
  placeId: write('operation 3, with RSF_ADDRESS_ID', otherType('placeId', '§4.3')),
  missingCategoryId: hint(
    'Not checked: a check would update the category if it existed',
    'make sure no personal category of the account has this id (§4.4)',
  ),
  provinceId: hint(
    'Not checked: only creating an address (operation 2) uses it',
    'ask the target which provinceId and placeString (§4.2) it knows, and that they go together',
  ),
  placeString: hint(
    'Not checked: only creating an address (operation 2) uses it',
    'ask the target which locality names go with RSF_PROVINCE_ID (§4.2)',
  ),
  clientBody: hint(
    'Not checked: only updating the client (operation 1) uses it',
    'send it with PATCH /v1/client by hand, or compare it with the account data the target holds (§2.1)',
  ),
  clientWebsite: hint('Not checked', 'use a plain https URL that the target accepts as clientWebsite (§4.1)'),
  clientSuccessStatus: hint(
    'Not checked: it reads the answers of operation 1',
    "look at the status the target's successful PATCH /v1/client answers (§4.1)",
  ),
  rejectionText: hint(
    'Not checked: it reads the plain-string answers of operations 5 and 12',
    'compare it with the text of a refusal the target sends (§7.1)',
  ),
  cartAmount: hint('Not checked', 'use an amount the target accepts for RSF_CART_PRODUCT_ID, such as 1'),
  cartAllowedType: hint(
    'Not checked: a refusal of the type cannot be told from a cart that refuses valid items',
    'ask the target which item types its cart accepts (§4.5 leaves the values open), and try ' +
      'POST /v1/carrito/item with it by hand',
  ),
  cartDisallowedType: hint(
    'Not checked: an acceptance cannot be told from a cart that accepts invalid items',
    'ask the target which item types its cart refuses (§4.5 leaves the values open)',
  ),
  paymentPreferenceBody: hint(
    'Not checked: only creating a preference (operation 6) uses it',
    'send it with POST /v1/carrito/processPreferenceProvider by hand (§2.5)',
  ),
  shippingPostalCode: hint(
    'Not checked: a refused quote cannot be told from a target that refuses valid addresses',
    'send GET /v1/carrito/calcularEnvioPara/{code}/{address} with the token by hand, or ask the target ' +
      'which postal codes it quotes (§4.7)',
  ),
  shippingAddressValid: hint(
    'Not checked: a refused quote cannot be told from a target that refuses valid addresses',
    'send GET /v1/carrito/calcularEnvioPara/{RSF_SHIPPING_POSTAL_CODE}/{address} with the token by hand, ' +
      'or ask the target which addresses it can quote (§4.7)',
  ),
  shippingAddressInvalid: hint(
    'Not checked: an accepted quote cannot be told from a target that accepts invalid addresses',
    'use an address the target documents as not valid, e.g. one without a street number (§4.7)',
  ),
  deleteProductId: {
    ...hint(
      'Not checked: the check is the deletion itself (operation 12)',
      'make sure the product is in the account\'s "mis productos" list before the run; a run deletes it. If it was ' +
        'there and the deletion found none, a request sent before it without valid credentials deleted it, though ' +
        'refused (§5.4)',
    ),
    wrong:
      'The check that uses it fails, with a hint naming the setting and how to check it. A product that an earlier ' +
      'run with the same RSF_REPORTS_DIR deleted: ERROR, the deletion inconclusive, naming that run',
  },
  postSaleBody: hint(
    'Not checked: only creating a post-sale (operation 13) uses it',
    'send it with POST /v1/postventa by hand (§4.13 does not show the fields)',
  ),
  channelToken: channel(
    'ask the target for the channel token of post-sale RSF_POSTSALE_ID (§4.15 does not say how one is issued). ' +
      'A token with characters a path encodes (a space, /, +, %, ?, #, letters beyond ASCII) is sent ' +
      'percent-encoded, as RFC 3986 asks: a target that compares the path segment without decoding it refuses it',
  ),
  channelUserId: channel('use the userId the channel of RSF_POSTSALE_ID lets write (§4.15)'),
  channelMessage: hint('Not checked', 'any short text the channel accepts'),
};
