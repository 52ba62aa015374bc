// A TLS server this machine does not trust: its certificate (fixtures/tls) is self-signed, for 127.0.0.1 and
// staging.example.test, and valid for a hundred years. A child process trusts it with NODE_EXTRA_CA_CERTS. The same
// certificate serves as the client's, for a server that asks for one.
import { readFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { type Server, createServer } from 'node:https';
import { join } from 'node:path';

export const SELF_SIGNED_CERT = join(__dirname, '../fixtures/tls/self-signed.cert.pem');
export const SELF_SIGNED_KEY = join(__dirname, '../fixtures/tls/self-signed.key.pem');
/** Self-signed too, for the same names, and valid in January 2024 only: an expired certificate. */
export const EXPIRED_CERT = join(__dirname, '../fixtures/tls/expired.cert.pem');
export const EXPIRED_KEY = join(__dirname, '../fixtures/tls/expired.key.pem');

/**
 * An https server with the self-signed certificate (or the expired one), not yet listening. With
 * `requireClientCertificate`, it accepts only clients that present that same certificate (mutual TLS).
 */
export function selfSignedServer(
  listener: RequestListener,
  { requireClientCertificate = false, expired = false } = {},
): Server {
  const cert = readFileSync(expired ? EXPIRED_CERT : SELF_SIGNED_CERT);
  const mutual = requireClientCertificate && { requestCert: true, rejectUnauthorized: true, ca: [cert] };
  return createServer({ key: readFileSync(expired ? EXPIRED_KEY : SELF_SIGNED_KEY), cert, ...mutual }, listener);
}
