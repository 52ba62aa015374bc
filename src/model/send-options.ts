// How a test asks for an operation of §4: its path values, query, credentials and body. Neutral: the suite builds
// requests from it (src/http/request.ts), and the body rules describe bodies with it (body-rules.ts).

/**
 * How the request authenticates: the valid token, nothing, or one of the ways §5.4 says must not be accepted, the
 * token one character off at its end (changed, dropped or one added) and in the other letter case among them
 * (near-miss-tokens.ts), and a random token under the scheme in lower case; or the valid token under its scheme in
 * lower case, `bearer`, which RFC 9110 §11.1 accepts.
 */
export const CREDENTIALS = [
  'valid',
  'none',
  'unknown-token',
  'non-bearer',
  'bare-token',
  'empty-bearer',
  'last-character-changed',
  'last-character-dropped',
  'character-added',
  'channel-token',
  'other-case',
  'undefined-token',
  'null-token',
  'lowercase-scheme',
  'lowercase-scheme-unknown-token',
] as const;
export type Credentials = (typeof CREDENTIALS)[number];

export interface SendOptions {
  params?: Record<string, string | number>;
  query?: string;
  credentials?: Credentials;
  /** A JSON value, sent as application/json. */
  json?: unknown;
  /** Raw bytes with their own content type, e.g. malformed JSON. */
  raw?: { text: string; contentType: string };
  /**
   * What the request is, for a failure to say where the request cannot: "the channel token with its last character
   * changed", whose path shows only [REDACTED], as it shows every near miss of a secret. Never sent.
   */
  label?: string;
}
