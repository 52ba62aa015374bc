// An access token that is a JWT (RFC 7519) says when it expires, in its exp claim. The suite reads that claim only to
// say why a target refuses the token: it never verifies the token, and never shows it.

/** When the token expires by its exp claim, if it is a JWT that has one. */
export function jwtExpiry(token: string): Date | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    const exp = (claims as { exp?: unknown } | null)?.exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? new Date(exp * 1000) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * For a message about a refused token: that it is a JWT whose exp claim has passed, and by how long; '' otherwise
 * (the target's clock is its own, so a token not yet expired here says nothing).
 */
export function expiredJwtNote(token: string, now: Date = new Date()): string {
  const at = jwtExpiry(token);
  if (at === undefined || at > now) return '';
  const minutes = Math.floor((now.getTime() - at.getTime()) / 60_000);
  const ago = minutes < 1 ? 'less than a minute' : minutes < 120 ? `${minutes} min` : `${Math.floor(minutes / 60)} h`;
  return ` The token is a JWT whose exp claim says it expired at ${at.toISOString()}, ${ago} ago.`;
}
