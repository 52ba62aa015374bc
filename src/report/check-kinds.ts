// The kinds of check the HTML report's matrix has a column for, and which kind each requirement of the catalogue is.
// Pure data: the matrix (matrix.ts) and its self-test read it; tests/self/check-kinds.spec.ts proves that every
// requirement with operations matches exactly one kind, so a new requirement cannot fall between two columns.
import type { Requirement } from '../model/catalogue';

export type CheckKind =
  | 'success'
  | 'credentials'
  | 'required-fields'
  | 'field-types'
  | 'rules'
  | 'error-shape'
  | 'content-type'
  | 'links';

/** How a test presents (or withholds) the token; tests that send refused credentials carry it as an annotation. */
export type CredentialVariant = 'none' | 'unknown-token' | 'non-bearer' | 'empty-bearer';
export const CREDENTIAL_VARIANTS: readonly CredentialVariant[] = [
  'none',
  'unknown-token',
  'non-bearer',
  'empty-bearer',
];

export function isCredentialVariant(value: string | undefined): value is CredentialVariant {
  return (CREDENTIAL_VARIANTS as readonly (string | undefined)[]).includes(value);
}

/**
 * Other tokens than a random one, in the unknown-token column: one character off the valid one or in its other case
 * (src/http/near-miss-tokens.ts), the channel token, the words undefined and null, a random one under `bearer`.
 */
const OTHER_UNKNOWN_TOKENS: readonly string[] = [
  'last-character-changed',
  'last-character-dropped',
  'character-added',
  'other-case',
  'channel-token',
  'undefined-token',
  'null-token',
  'lowercase-scheme-unknown-token',
];

/** The column of a test's `credentials` annotation, if it names one. */
export function variantColumn(credentials: string | undefined): CredentialVariant | undefined {
  if (isCredentialVariant(credentials)) return credentials;
  if (credentials === 'bare-token') return 'non-bearer';
  return credentials !== undefined && OTHER_UNKNOWN_TOKENS.includes(credentials) ? 'unknown-token' : undefined;
}

/** One column of the matrix: a kind, and for credentials one variant. */
export interface MatrixColumn {
  /** Stable, for ids and CSS: e.g. `rules`, `credentials-none`. */
  key: string;
  kind: CheckKind;
  variant?: CredentialVariant;
  /** Header text. */
  label: string;
  /** What its checks ask, for the legend and the header's tooltip. */
  meaning: string;
}

const VARIANT_COLUMNS: Record<CredentialVariant, { label: string; meaning: string }> = {
  none: { label: 'no header', meaning: 'sent without an Authorization header' },
  'unknown-token': {
    label: 'unknown token',
    meaning:
      'sent with a token the target does not know: a random one, the channel token, the word undefined or null, or ' +
      'the token one character off or in the other case',
  },
  'non-bearer': { label: 'not Bearer', meaning: 'sent with the token under a scheme other than Bearer, or alone' },
  'empty-bearer': { label: 'empty Bearer', meaning: 'sent with an empty Bearer token' },
};

/** The matrix's columns, left to right. */
export const MATRIX_COLUMNS: readonly MatrixColumn[] = [
  {
    key: 'success',
    kind: 'success',
    label: 'Success shape',
    meaning: 'a valid request succeeds, in the documented shape',
  },
  ...CREDENTIAL_VARIANTS.map(
    (variant): MatrixColumn => ({
      key: `credentials-${variant}`,
      kind: 'credentials',
      variant,
      ...VARIANT_COLUMNS[variant],
    }),
  ),
  {
    key: 'required-fields',
    kind: 'required-fields',
    label: 'Required fields',
    meaning: 'a body without a required field is refused',
  },
  {
    key: 'field-types',
    kind: 'field-types',
    label: 'Field types',
    meaning: 'a body or field of the wrong type or format is refused',
  },
  { key: 'rules', kind: 'rules', label: 'Rules & bounds', meaning: 'limits, unknown resources and business rules' },
  {
    key: 'error-shape',
    kind: 'error-shape',
    label: 'Error shape',
    meaning: 'a refusal answers in the documented error shape',
  },
  {
    key: 'content-type',
    kind: 'content-type',
    label: 'Content type',
    meaning: 'bodies declare application/json where they are JSON',
  },
  { key: 'links', kind: 'links', label: 'Links', meaning: 'what one operation returns, another one accepts or shows' },
];

/**
 * Which requirement IDs are of which kind. Patterns, not lists, so that the next operation's `OPn-FIELD-TYPES` lands
 * in its column by itself; the self-test catches an ID that matches no pattern or two.
 */
const KIND_PATTERNS: readonly { kind: CheckKind; ids: readonly RegExp[] }[] = [
  {
    kind: 'success',
    ids: [
      /-SUCCESS-SHAPE$/,
      /^OP12-DELETE-SUCCEEDS$/,
      /^OP2-ADDRESS-ID-RETURNED$/,
      /^OP8-LOGGED-IN-FIELDS$/,
      /^OP8-DESCRIPTION-MEDIA-TYPE$/,
      /^OP1-SUCCESS-MESSAGE$/,
      /^GEN-V1-PREFIX$/,
    ],
  },
  {
    kind: 'credentials',
    ids: [
      /-AUTH-REQUIRED$/,
      /^HTTP-AUTH-401$/,
      /^HTTP-AUTH-SCHEME-CASE$/,
      /^HTTP-AUTH-BEARER-ONLY$/,
      /-NO-AUTH-HEADER$/,
      /^OP8-TOKEN-OPTIONAL$/,
      /-NO-LOGGED-IN-FIELDS$/,
      /^OP8-ANONYMOUS-NO-CART$/,
      /^OP15-CHANNEL-TOKEN$/,
      /^OP15-TOKEN-OF-ITS-CHANNEL$/,
    ],
  },
  {
    kind: 'required-fields',
    ids: [
      /-REQUIRED-FIELDS$/,
      /-OPTIONAL-FIELDS$/,
      /^OP2-PROVINCE-/,
      /^OP2-PLACEID-REQUIRED-/,
      /^GEN-NO-MEMBER-CASE-FOLDING$/,
    ],
  },
  {
    kind: 'field-types',
    ids: [
      /-FIELD-TYPES$/,
      /^OP1-WEBSITE-URI$/,
      /^GEN-MALFORMED-JSON-REJECTED$/,
      /^GEN-STRICT-JSON$/,
      /^GEN-NO-TYPE-COERCION$/,
    ],
  },
  {
    kind: 'rules',
    ids: [
      /^OP\d+-UNKNOWN-/,
      /-UTILITY-MAX$/,
      /-TYPE-NOT-ALLOWED$/,
      /-INVALID-ADDRESS$/,
      /^OP8-STOCK-/,
      /^OP9-FINAL-PRICE$/,
      // About how the suite handles the channel token, not about a credential the target refuses.
      /^OP15-TOKEN-IS-SECRET$/,
    ],
  },
  { kind: 'error-shape', ids: [/-ERROR-SHAPE$/, /-AUTH-ERROR-BODY$/, /^OP2-MISSING-/, /^HTTP-INVALID-INPUT-4XX$/] },
  // The charset is part of the content type: a JSON body labelled or sent in another than UTF-8.
  { kind: 'content-type', ids: [/^GEN-[A-Z]+-CONTENT-TYPE$/, /^GEN-JSON-UTF8$/] },
  { kind: 'links', ids: [/^LINK-/] },
];

/** Every kind with a pattern that matches the ID: exactly one for a well-classified requirement. */
export function kindsMatching(id: string): CheckKind[] {
  return KIND_PATTERNS.filter((p) => p.ids.some((pattern) => pattern.test(id))).map((p) => p.kind);
}

/** The requirement's kind; undefined when it matches no pattern or several (the self-test prevents both). */
export function checkKind(id: string): CheckKind | undefined {
  const kinds = kindsMatching(id);
  return kinds.length === 1 ? kinds[0] : undefined;
}

/**
 * The credential variants a credentials requirement is about, for its tests that carry no `credentials` annotation
 * and for a requirement with no test at all: a token that is optional or not needed is about sending none; an invalid
 * product token or a wrong channel token is an unknown token; refusals are about all four.
 */
export function requirementVariants(requirement: Pick<Requirement, 'id'>): readonly CredentialVariant[] {
  if (/-NO-AUTH-HEADER$|^OP8-TOKEN-OPTIONAL$|^OP8-ANONYMOUS-/.test(requirement.id)) return ['none'];
  if (/^OP8-INVALID-TOKEN-|^OP15-CHANNEL-TOKEN$/.test(requirement.id)) return ['unknown-token'];
  // The token itself under another scheme, or alone, is judged under a SHOULD of its own (probes.ts).
  if (requirement.id === 'HTTP-AUTH-BEARER-ONLY') return ['non-bearer'];
  if (/-AUTH-REQUIRED$/.test(requirement.id)) return CREDENTIAL_VARIANTS.filter((v) => v !== 'non-bearer');
  return CREDENTIAL_VARIANTS;
}

/** The columns a requirement's checks appear in: one, or for credentials one per variant it is about. */
export function columnsOf(requirement: Pick<Requirement, 'id'>): MatrixColumn[] {
  const kind = checkKind(requirement.id);
  if (kind === undefined) return [];
  if (kind !== 'credentials') return MATRIX_COLUMNS.filter((c) => c.kind === kind);
  const variants = requirementVariants(requirement);
  return MATRIX_COLUMNS.filter((c) => c.variant !== undefined && variants.includes(c.variant));
}
