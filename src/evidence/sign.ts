// Optional Ed25519 signature of a bundle's manifest (issue 24, item 3), with node:crypto only. The manifest holds the
// SHA-256 of every other file, so signing its bytes signs the whole bundle.
import { type KeyObject, createHash, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { BundleError, MANIFEST_FILE } from './manifest';

export const SIGNATURE_FILE = 'manifest.sig.json';
const SIGNATURE_FORMAT = 'rsf-bundle-signature/1';

export interface ManifestSignature {
  format: typeof SIGNATURE_FORMAT;
  algorithm: 'Ed25519';
  signs: typeof MANIFEST_FILE;
  /** SHA-256 of the public key (SubjectPublicKeyInfo, DER): which key to verify with. Not a proof of anything. */
  publicKeySha256: string;
  /** Base64 of the 64-byte signature of the manifest file's bytes. */
  signature: string;
}

/** A key that cannot be used; one line, naming the file. */
export class KeyError extends Error {
  override name = 'KeyError';
}

function keyFile(path: string, role: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new KeyError(`${role} ${path} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

function ed25519(key: KeyObject, path: string, role: string): KeyObject {
  if (key.asymmetricKeyType !== 'ed25519')
    throw new KeyError(`${role} ${path} is an ${key.asymmetricKeyType ?? 'unknown'} key, not an Ed25519 one`);
  return key;
}

type KeyKind = 'signing key' | 'public key';

/** An Ed25519 key of `kind` from a PEM file, made by `create`; a one-line KeyError for anything else. */
function loadKey(path: string, kind: KeyKind, create: (pem: Buffer) => KeyObject): KeyObject {
  const pem = keyFile(path, kind);
  try {
    return ed25519(create(pem), path, kind);
  } catch (e) {
    if (e instanceof KeyError) throw e;
    throw new KeyError(`${kind} ${path} is not a PEM ${kind === 'signing key' ? 'private' : 'public'} key`);
  }
}

/** An Ed25519 private key from a PEM file (PKCS #8, as `openssl genpkey -algorithm ed25519` writes it). */
export function loadPrivateKey(path: string): KeyObject {
  return loadKey(path, 'signing key', createPrivateKey);
}

/** An Ed25519 public key from a PEM file (SPKI; a private key's file gives its public half too). */
export function loadPublicKey(path: string): KeyObject {
  return loadKey(path, 'public key', createPublicKey);
}

export function publicKeySha256(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex');
}

export function signManifest(manifest: Uint8Array, privateKey: KeyObject): ManifestSignature {
  return {
    format: SIGNATURE_FORMAT,
    algorithm: 'Ed25519',
    signs: MANIFEST_FILE,
    publicKeySha256: publicKeySha256(privateKey),
    // Ed25519 hashes internally: node:crypto takes no digest name for it.
    signature: sign(null, manifest, privateKey).toString('base64'),
  };
}

export function signatureBytes(signature: ManifestSignature): Uint8Array {
  return Buffer.from(`${JSON.stringify(signature, null, 2)}\n`);
}

export function parseSignature(bytes: Uint8Array): ManifestSignature {
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    throw new BundleError(`${SIGNATURE_FILE} is not JSON`);
  }
  const s = data as Partial<ManifestSignature> | null;
  if (
    typeof s !== 'object' ||
    s === null ||
    s.format !== SIGNATURE_FORMAT ||
    s.algorithm !== 'Ed25519' ||
    s.signs !== MANIFEST_FILE ||
    typeof s.publicKeySha256 !== 'string' ||
    typeof s.signature !== 'string'
  ) {
    throw new BundleError(`${SIGNATURE_FILE} is not an Ed25519 signature of ${MANIFEST_FILE}`);
  }
  return s as ManifestSignature;
}

/** Whether the signature is the key's, over exactly these manifest bytes. */
export function signatureHolds(manifest: Uint8Array, signature: ManifestSignature, publicKey: KeyObject): boolean {
  const raw = Buffer.from(signature.signature, 'base64');
  return raw.length === 64 && verify(null, manifest, publicKey, raw);
}
