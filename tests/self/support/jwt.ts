// A JWT (RFC 7519) as a token command or a user's setting would give it, for the messages that read its exp claim
// (src/config/jwt-expiry.ts). Never verified: the signature is a placeholder.

/** A JWT whose payload holds `claims`. */
export function jwtWith(claims: unknown): string {
  return `eyJhbGciOiJSUzI1NiJ9.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2lnbmF0dXJl`;
}

/** A JWT whose exp claim passed `secondsAgo` seconds ago, and that moment. */
export function expiredJwt(secondsAgo: number): { jwt: string; expiredAt: string } {
  const exp = Math.floor(Date.now() / 1000) - secondsAgo;
  return { jwt: jwtWith({ exp }), expiredAt: new Date(exp * 1000).toISOString() };
}
