// Conforming modes: each resolves the choices the spec leaves open in its own way.
// A request selects one by the path prefix /_modes/<name>; plain /v1 is `reference`.

export interface ModeChoices {
  /** HTTP status of a documented error: a 4xx, or 200 with the documented error body (§7.3 gives none). */
  errorStatus: '4xx' | '200';
  /** How a plain-string body (§7.1) is sent. */
  plainStrings: 'json-string' | 'raw-text';
  /** Undocumented member added to every JSON object response and every price entry, if any. */
  extraField: string | null;
  /** Language of availableStockLabel (§2.6 gives only the meaning of its three forms). */
  stockLabels: 'en' | 'es';
  /** Whether the nullable fields of §2.6 carry values or null. */
  nullableFields: 'values' | 'null';
  /** Answer of a successful DELETE (§4.12: body not specified). */
  deleteAnswer: '204-empty' | '200-json';
  /**
   * Whether a product of the account, once deleted, can be deleted again (so that the suite can run again and again
   * against one server) or stays deleted, refused as not found, as a real store does (§3 shows no lifecycle).
   */
  deletions: 'repeatable' | 'once';
  /** Status of a creation (ops 2, 6, 13). */
  createdStatus: 201 | 200;
  /**
   * Every Nth request of the profile is answered by a "load balancer" before the API sees it: 502, 503 (no
   * Retry-After) or 504 with an HTML body; null: never. A POST or PATCH only ever gets the 503, which says it was not
   * processed (a client may not resend it after a 502 or 504).
   */
  gatewayBlipEvery: number | null;
  /**
   * Requests a bearer token is accepted for in this profile (§5.5 leaves the lifetime open), or null for ever. Then
   * it is refused with "not authenticated", operation 8 included; POST /_tokens (outside /v1) mints fresh ones.
   */
  tokenLifetimeRequests: number | null;
  /**
   * The longest text, in characters, a string field of a request body may hold (§8 leaves payload size limits open),
   * refused beyond it as invalid input, in the operation's documented refusal, as a VARCHAR column's validation does;
   * null: no limit.
   */
  textLimit: number | null;
  /**
   * The largest cart amount the store takes (§8 shows no limit; a 32-bit column's is 2^31 − 1), refused beyond it as
   * "could not be updated" (§4.5), a refusal the suite allows and shows in its reports; null: no limit.
   */
  cartAmountLimit: number | null;
}

export interface Mode {
  name: string;
  description: string;
  choices: ModeChoices;
}

const REFERENCE_CHOICES: ModeChoices = {
  errorStatus: '4xx',
  plainStrings: 'json-string',
  extraField: null,
  stockLabels: 'en',
  nullableFields: 'values',
  deleteAnswer: '204-empty',
  deletions: 'repeatable',
  createdStatus: 201,
  gatewayBlipEvery: null,
  tokenLifetimeRequests: null,
  textLimit: null,
  cartAmountLimit: null,
};

/** The expiring-token mode's lifetime: a few tests' worth, so that a full run outlives several tokens. */
export const EXPIRING_TOKEN_REQUESTS = 150;

export const MODES: readonly Mode[] = [
  {
    name: 'reference',
    description:
      'The default at /v1: 4xx errors, 201 on creation, 204 on deletion, plain strings as JSON strings, ' +
      'English labels, no extra fields, nullable fields filled.',
    choices: REFERENCE_CHOICES,
  },
  {
    name: 'deployment',
    description:
      'As real deployments answer: documented errors with HTTP 200, an extra "requestId" member, ' +
      'Spanish stock labels, plain strings as raw text/plain, ' +
      'creations and DELETE answer 200 (DELETE with a JSON object), a deleted product stays deleted (not found), ' +
      'a text in a request body refused beyond 250 characters (HTTP 200 with the documented refusal, as the rest), ' +
      'and a cart amount beyond 2^31 − 1, as a 32-bit column refuses it ("could not be updated").',
    choices: {
      errorStatus: '200',
      plainStrings: 'raw-text',
      extraField: 'requestId',
      stockLabels: 'es',
      nullableFields: 'values',
      deleteAnswer: '200-json',
      deletions: 'once',
      createdStatus: 200,
      gatewayBlipEvery: null,
      tokenLifetimeRequests: null,
      textLimit: 250,
      cartAmountLimit: 2 ** 31 - 1,
    },
  },
  {
    name: 'nulls',
    description: 'Every nullable field of §2.6 is null (the three logged-in fields too); otherwise as reference.',
    choices: { ...REFERENCE_CHOICES, nullableFields: 'null' },
  },
  {
    name: 'flaky',
    description:
      'As reference behind a flaky load balancer: every 17th request answers 502, 503 (no Retry-After) or 504 ' +
      'with an HTML page, unprocessed; POST, PATCH and DELETE only get the 503. The same request sent again succeeds.',
    choices: { ...REFERENCE_CHOICES, gatewayBlipEvery: 17 },
  },
  {
    name: 'expiring-token',
    description:
      `A bearer token is accepted for ${EXPIRING_TOKEN_REQUESTS} requests to this mode, then refused with ` +
      '"not authenticated" (401, operation 8 included), whose WWW-Authenticate says it expired; POST /_tokens ' +
      'mints a fresh one. Otherwise as reference.',
    choices: { ...REFERENCE_CHOICES, tokenLifetimeRequests: EXPIRING_TOKEN_REQUESTS },
  },
];

export const REFERENCE_MODE: Mode = MODES[0]!;

export function modeNamed(name: string): Mode | undefined {
  return MODES.find((m) => m.name === name);
}
