// The request a test's options make of an operation: URL, headers, credentials and body.
import { createHash } from 'node:crypto';
import { type Operation, fillPath, operationLabel } from '../model/operations';
import type { Credentials, OutgoingRequest, SendOptions } from './exchange';
import {
  caseCarriesNoMeaning,
  characterAdded,
  lastCharacterChanged,
  lastCharacterDropped,
  otherCase,
} from './near-miss-tokens';

/** The tokens requests are sent with (the valid one, and one the target must refuse), and what every one carries. */
export interface Tokens {
  bearerToken: string;
  invalidBearerToken: string;
  /** Operation 15's channel token (RSF_CHANNEL_TOKEN): sent as a Bearer token, it must be refused like any other. */
  channelToken?: string;
  /** RSF_EXTRA_HEADERS: an API gateway's key, say. */
  extraHeaders?: Readonly<Record<string, string>>;
}

export function authorizationHeader(credentials: Credentials, tokens: Tokens): string | undefined {
  switch (credentials) {
    case 'valid':
      return `Bearer ${tokens.bearerToken}`;
    // The scheme is case-insensitive (RFC 9110 §11.1): some client libraries send it so.
    case 'lowercase-scheme':
      return `bearer ${tokens.bearerToken}`;
    // And an unknown token so, which a server whose check of the scheme's case skips the token's lets in (indep98).
    case 'lowercase-scheme-unknown-token':
      return `bearer ${tokens.invalidBearerToken}`;
    case 'none':
      return undefined;
    case 'unknown-token':
      return `Bearer ${tokens.invalidBearerToken}`;
    case 'non-bearer':
      return `Token ${tokens.bearerToken}`;
    case 'bare-token':
      return tokens.bearerToken;
    case 'empty-bearer':
      return 'Bearer ';
    case 'last-character-changed':
      return `Bearer ${lastCharacterChanged(tokens.bearerToken)}`;
    case 'last-character-dropped':
      return `Bearer ${lastCharacterDropped(tokens.bearerToken)}`;
    case 'character-added':
      return `Bearer ${characterAdded(tokens.bearerToken)}`;
    case 'channel-token':
      if (!tokens.channelToken || tokens.channelToken === tokens.bearerToken)
        throw new Error('RSF_CHANNEL_TOKEN is empty, or the Bearer token itself: not sent as a Bearer token');
      // It goes in a path (§5.3), where any character can be percent-encoded; a header carries visible ASCII only.
      if (/[^\x20-\x7e]/.test(tokens.channelToken))
        throw new Error(
          'RSF_CHANNEL_TOKEN has characters beyond visible ASCII, which an Authorization header cannot carry: not ' +
            'sent as a Bearer token',
        );
      return `Bearer ${tokens.channelToken}`;
    // What a client whose token variable is unset sends (`Bearer ${token}`), and a server with a setting unset takes.
    case 'undefined-token':
    case 'null-token': {
      const word = credentials === 'undefined-token' ? 'undefined' : 'null';
      if (tokens.bearerToken === word)
        throw new Error(`RSF_BEARER_TOKEN is the word ${word}: not sent as another token`);
      return `Bearer ${word}`;
    }
    case 'other-case': {
      // Never the valid token, nor one that may be it: such a request is not built, so that it is not sent, ahead of
      // its test either (a DELETE would use up its product); the probe says why (credentialProbes, unsendable).
      const token = otherCase(tokens.bearerToken);
      if (token === undefined)
        throw new Error(
          'RSF_BEARER_TOKEN has no letter, so it has no other letter case: not sent (the token itself would be)',
        );
      if (caseCarriesNoMeaning(tokens.bearerToken))
        throw new Error(
          'RSF_BEARER_TOKEN has its letters in one case (a UUID, a hexadecimal or base32 token, say): its other ' +
            'letter case may name the same token (RFC 9562 §4; Crockford base32 decodes either case), which a target ' +
            'may accept, and a comparison without case lets in no other token issued in one case. Not sent',
        );
      return `Bearer ${token}`;
    }
  }
}

/** The credentials a request is sent with: those asked for, or the valid token where the operation needs one. */
export function credentialsOf(operation: Operation, options: SendOptions): Credentials {
  return options.credentials ?? (operation.auth === 'bearer' ? 'valid' : 'none');
}

/** The request `options` make of `operation` against `apiBase`, with its credentials. */
export function outgoingRequest(
  operation: Operation,
  options: SendOptions,
  tokens: Tokens,
  apiBase: string,
): OutgoingRequest {
  const path = fillPath(operation.path, options.params ?? {});
  const url = `${apiBase}${path}${options.query ? `?${options.query}` : ''}`;
  const headers: Record<string, string> = { ...tokens.extraHeaders, Accept: 'application/json' };
  const authorization = authorizationHeader(credentialsOf(operation, options), tokens);
  if (authorization !== undefined) headers.Authorization = authorization;
  let body: string | undefined;
  if (options.raw) {
    body = options.raw.text;
    headers['Content-Type'] = options.raw.contentType;
  } else if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['Content-Type'] = 'application/json';
  }
  return {
    method: operation.method,
    url,
    headers,
    ...(body !== undefined && { body }),
    operation: operationLabel(operation),
  };
}

/**
 * What tells a request from any other, secrets included, without holding them: what a probe builds when it runs
 * is what was sent ahead for it (prefetch.ts) when the fingerprints are equal.
 */
export function requestFingerprint(request: OutgoingRequest): string {
  return createHash('sha256').update(JSON.stringify(request)).digest('hex');
}
