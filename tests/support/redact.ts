// Secrets never leave the process unredacted: every string bound for a report, message or log passes here.
import { SETTINGS, loadConfig, secretsOf } from './config';

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

/** Replaces a secret, raw or percent-encoded, with `replacement`. */
export function replaceSecret(text: string, secret: string, replacement: string): string {
  let out = text;
  for (const form of new Set([encodeURIComponent(secret), secret])) out = out.split(form).join(replacement);
  return out;
}

/** Replaces every known secret, raw or percent-encoded, with [REDACTED]. */
export function redact(text: string): string {
  return knownSecrets().reduce((out, secret) => replaceSecret(out, secret, REDACTED), text);
}

/** Also hides secret settings found in the environment (a merge or reporter may run without a loadable config). */
export function registerEnvSecrets(env: NodeJS.ProcessEnv = process.env): void {
  for (const setting of Object.values(SETTINGS) as { name: string; secret?: boolean }[]) {
    const value = setting.secret ? env[setting.name]?.trim() : undefined;
    if (value) registerSecret(value);
  }
}

/** Deep-redacts the strings of a JSON-like value. */
export function redactValue<T>(value: T): T {
  return JSON.parse(redact(JSON.stringify(value) ?? 'null')) as T;
}
