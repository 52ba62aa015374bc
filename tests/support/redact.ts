// Secrets never leave the process unredacted: every string bound for a report, message or log passes here.
import { loadConfig, secretsOf } from './config';

export const REDACTED = '[REDACTED]';

let secrets: string[] | undefined;

function knownSecrets(): string[] {
  if (!secrets) {
    try {
      secrets = secretsOf(loadConfig());
    } catch {
      secrets = []; // a broken configuration is reported elsewhere; nothing configured, nothing to hide
    }
    // Longest first, so that a secret containing another is replaced whole.
    secrets.sort((a, b) => b.length - a.length);
  }
  return secrets;
}

/** Adds values to hide (e.g. a token made up at run time). */
export function registerSecret(value: string): void {
  if (value.length < 4) return;
  const list = knownSecrets();
  if (!list.includes(value)) {
    list.push(value);
    list.sort((a, b) => b.length - a.length);
  }
}

/** Replaces every known secret, raw or percent-encoded, with [REDACTED]. */
export function redact(text: string): string {
  let out = text;
  for (const secret of knownSecrets()) {
    for (const form of new Set([secret, encodeURIComponent(secret)])) out = out.split(form).join(REDACTED);
  }
  return out;
}

/** Deep-redacts the strings of a JSON-like value. */
export function redactValue<T>(value: T): T {
  return JSON.parse(redact(JSON.stringify(value) ?? 'null')) as T;
}
