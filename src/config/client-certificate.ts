// The client certificate for a target that asks for one (mutual TLS): RSF_TLS_CLIENT_CERT and RSF_TLS_CLIENT_KEY,
// read and checked at start-up like the other settings, so that a wrong file is named before any request.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ClientCertificate } from '../http/wire';

interface CertificatePaths {
  tlsClientCert: string;
  tlsClientKey: string;
  tlsClientKeyPassphrase: string;
}

function readPem(variable: string, path: string, problems: string[]): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (e) {
    problems.push(`${variable}: ${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    return undefined;
  }
}

/** The certificate and key the settings name, or undefined when none is set; `problems` gets what is wrong. */
export function clientCertificate(paths: CertificatePaths, problems: string[]): ClientCertificate | undefined {
  const { tlsClientCert: certPath, tlsClientKey: keyPath, tlsClientKeyPassphrase: passphrase } = paths;
  if (certPath === '' && keyPath === '') return undefined;
  if (certPath === '' || keyPath === '') {
    problems.push('RSF_TLS_CLIENT_CERT and RSF_TLS_CLIENT_KEY go together: set both, or neither');
    return undefined;
  }
  const cert = readPem('RSF_TLS_CLIENT_CERT', certPath, problems);
  const key = readPem('RSF_TLS_CLIENT_KEY', keyPath, problems);
  if (!cert || !key) return undefined;
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    problems.push(`RSF_TLS_CLIENT_CERT: ${certPath} is not a PEM certificate`);
    return undefined;
  }
  try {
    const privateKey = createPrivateKey({ key, ...(passphrase !== '' && { passphrase }) });
    if (!certificate.checkPrivateKey(privateKey)) {
      problems.push(`RSF_TLS_CLIENT_KEY: ${keyPath} is not the key of the certificate in RSF_TLS_CLIENT_CERT`);
      return undefined;
    }
  } catch {
    const opened = passphrase === '' ? 'an encrypted key needs RSF_TLS_CLIENT_KEY_PASSPHRASE' : 'or the passphrase';
    problems.push(`RSF_TLS_CLIENT_KEY: ${keyPath} is not a PEM private key that opens (${opened} is wrong)`);
    return undefined;
  }
  return { cert, key, ...(passphrase !== '' && { passphrase }) };
}
