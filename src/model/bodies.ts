// Request bodies built from configuration, and the ways of breaking them that the negative tests use.
import { type FieldShape, fieldsOf } from './schema-registry';

type Body = Record<string, unknown>;

/** The settings the bodies are made of: src/config's test data, passed in (the model imports no configuration). */
export type BodySettings = Record<
  | 'clientBody'
  | 'clientWebsite'
  | 'addressFields'
  | 'placeId'
  | 'provinceId'
  | 'placeString'
  | 'addressId'
  | 'categoryId'
  | 'categoryFields'
  | 'cartProductId'
  | 'cartAmount'
  | 'cartAllowedType'
  | 'paymentPreferenceBody'
  | 'postSaleBody'
  | 'channelMessage',
  unknown
>;

export function validBodies(config: BodySettings) {
  const address = config.addressFields as Body;
  return {
    client: (): Body => ({ ...(config.clientBody as Body) }),
    clientWithOptionalFields: (): Body => ({
      ...(config.clientBody as Body),
      secondaryPhone: '+54 341 555 0199',
      clientWebsite: config.clientWebsite,
    }),
    addressWithPlaceId: (): Body => ({ ...address, placeId: config.placeId }),
    addressWithProvince: (): Body => ({ ...address, provinceId: config.provinceId, placeString: config.placeString }),
    addressUpdate: (): Body => ({ ...address, placeId: config.placeId, idDirCli: config.addressId }),
    categoryUpdate: (utility?: number): Body => ({
      categoryId: config.categoryId,
      ...(config.categoryFields as Body),
      ...(utility !== undefined ? { utility } : {}),
    }),
    cartItem: (overrides: Body = {}): Body => ({
      productId: config.cartProductId,
      amount: config.cartAmount,
      type: config.cartAllowedType,
      ...overrides,
    }),
    paymentPreference: (): Body => ({ ...(config.paymentPreferenceBody as Body) }),
    postSale: (): Body => ({ ...(config.postSaleBody as Body) }),
    channelMessage: (): Body => ({ message: config.channelMessage }),
  };
}

export type ValidBodies = ReturnType<typeof validBodies>;

export function without(body: Body, field: string): Body {
  const copy = { ...body };
  delete copy[field];
  return copy;
}

/**
 * A value of another JSON type than the declared one, which no common parser coerces into it: an object for a string,
 * not a number or a boolean, which Jackson, Gson and Json.NET write as text by default (indep104; GEN-NO-TYPE-COERCION
 * sends those apart, as a SHOULD).
 */
export function wrongTypeValue(type: string): unknown {
  switch (type) {
    case 'string':
      return { value: 'not-a-string' };
    case 'integer':
    case 'number':
      return 'not-a-number';
    case 'boolean':
      return 'not-a-boolean';
    default:
      return 'not-an-object';
  }
}

/**
 * A list of two copies of a field's valid value (of 1 and 2 where the body has none): what a normaliser joins into
 * one string ("several phones") or takes the first element of, and so takes, though a list is no value of a scalar.
 */
export function listOf(value: unknown): unknown[] {
  return value === undefined ? [1, 2] : [value, value];
}

/** The JSON types whose fields a list (listOf) is sent for. */
export const SCALAR_TYPES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean']);

/** Required fields of a request schema: each is dropped in turn by the negative tests. */
export const requiredFields = (schema: string): FieldShape[] => fieldsOf(schema).filter((f) => f.required);

/** Fields with one declared type: each is retyped in turn. Fields whose type the spec leaves open are not probed. */
export const typedFields = (schema: string): FieldShape[] => fieldsOf(schema).filter((f) => f.type !== undefined);
