// §4.2: address creation. direccion, telefono and codigoPostal are required; provinceId needs placeString;
// without provinceId, placeId is required. Every subset of the six fields, each value from configuration.
import fc from 'fast-check';
import { STREET_FIELDS } from '../model/operations';

type Body = Record<string, unknown>;

export { STREET_FIELDS };
export const PLACE_FIELDS = ['provinceId', 'placeString', 'placeId'] as const;
export type AddressField = (typeof STREET_FIELDS)[number] | (typeof PLACE_FIELDS)[number];
export const ADDRESS_FIELDS: readonly AddressField[] = [...STREET_FIELDS, ...PLACE_FIELDS];

/** Which fields the body carries. */
export type Presence = Record<AddressField, boolean>;

/** What §4.2 says of a presence: each rule, whether creation must succeed, and the mandatory items missing. */
export interface AddressVerdict {
  streetComplete: boolean;
  /** provinceId is not sent, or placeString is. */
  placeStringRule: boolean;
  /** provinceId is sent, or placeId is. */
  placeIdRule: boolean;
  accepted: boolean;
  missing: AddressField[];
}

export function addressRule(p: Presence): AddressVerdict {
  const missingStreet = STREET_FIELDS.filter((f) => !p[f]);
  const placeStringRule = !p.provinceId || p.placeString;
  const placeIdRule = p.provinceId || p.placeId;
  const missing: AddressField[] = [
    ...missingStreet,
    ...(placeStringRule ? [] : ['placeString' as const]),
    ...(placeIdRule ? [] : ['placeId' as const]),
  ];
  return {
    streetComplete: missingStreet.length === 0,
    placeStringRule,
    placeIdRule,
    accepted: missing.length === 0,
    missing,
  };
}

/** The body with exactly the present fields, their values taken from `full` (all six, from configuration). */
export function addressBody(p: Presence, full: Body): Body {
  return Object.fromEntries(ADDRESS_FIELDS.filter((f) => p[f]).map((f) => [f, full[f]]));
}

export function addressPresence(): fc.Arbitrary<Presence> {
  return fc.record({
    direccion: fc.boolean(),
    telefono: fc.boolean(),
    codigoPostal: fc.boolean(),
    provinceId: fc.boolean(),
    placeString: fc.boolean(),
    placeId: fc.boolean(),
  });
}

export interface AddressCase {
  presence: Presence;
  verdict: AddressVerdict;
  body: Body;
}

function addressCaseOf(p: Presence, full: Body): AddressCase {
  return { presence: p, verdict: addressRule(p), body: addressBody(p, full) };
}

/**
 * Address creations over every subset of the six fields. With `refusedOnly` (writes off) only bodies that a
 * conforming server must refuse are generated: one in sixteen subsets is valid, so the filter costs little.
 */
export function addressCase(full: Body, { refusedOnly = false } = {}): fc.Arbitrary<AddressCase> {
  const presence = refusedOnly ? addressPresence().filter((p) => !addressRule(p).accepted) : addressPresence();
  return presence.map((p) => addressCaseOf(p, full));
}

/** All 64 subsets (or the refused ones), fewest fields first: the property's examples, so none is left to chance. */
export function everyAddressCase(full: Body, { refusedOnly = false } = {}): AddressCase[] {
  const presences = Array.from(
    { length: 2 ** ADDRESS_FIELDS.length },
    (_, bits) => Object.fromEntries(ADDRESS_FIELDS.map((f, i) => [f, (bits & (1 << i)) !== 0])) as Presence,
  );
  const count = (p: Presence): number => ADDRESS_FIELDS.filter((f) => p[f]).length;
  return presences
    .filter((p) => !refusedOnly || !addressRule(p).accepted)
    .sort((a, b) => count(a) - count(b))
    .map((p) => addressCaseOf(p, full));
}

/** Whether an error text names a field: "placeId", "place_id" and "Place ID" all do; case and accents do not matter. */
export function namesField(text: string, field: string): boolean {
  const comparable = (s: string): string =>
    s
      .normalize('NFD')
      .replace(/[^\p{L}\p{N}]/gu, '')
      .toLowerCase();
  return comparable(text).includes(comparable(field));
}
