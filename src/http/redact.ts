// Secrets never leave the process unredacted: every string bound for a report, message or log passes here.
// Which values are secret is data given to it (hideSecretsOf, registerSecret): this layer reads no configuration.

import { REDACTED } from '../model/text';

export { REDACTED };

/** Where this process's configured secrets come from, read when first needed (the configuration may be broken). */
let source: () => readonly string[] = () => [];
/** Values added at run time (registerSecret). */
const registered: string[] = [];
let secrets: string[] | undefined;
/** Every form of every known secret, as one pattern (everyForm); undefined until needed, or when secrets change. */
let pattern: RegExp | null | undefined;

function knownSecrets(): string[] {
  if (!secrets) {
    let configured: readonly string[];
    try {
      configured = source();
    } catch {
      configured = []; // a broken configuration is reported elsewhere; nothing configured, nothing to hide
    }
    // Longest first, so that a secret containing another is replaced whole.
    secrets = [...new Set([...configured, ...registered])].sort((a, b) => b.length - a.length);
  }
  return secrets;
}

/** Names where the configured secrets come from; they are read at the first redaction. */
export function hideSecretsOf(configured: () => readonly string[]): void {
  source = configured;
  secrets = undefined;
  pattern = undefined;
}

/** Adds values to hide (e.g. a token made up at run time). */
export function registerSecret(value: string): void {
  if (value.length < 4) return;
  if (!registered.includes(value)) registered.push(value);
  const list = knownSecrets();
  if (!list.includes(value)) {
    list.push(value);
    list.sort((a, b) => b.length - a.length);
    pattern = undefined;
  }
}

/** Shorter base64 runs would match ordinary text by chance. */
const MIN_BASE64_FORM = 8;

/**
 * The secret's base64 at each of the three byte alignments, without the characters it shares with its neighbours:
 * found inside any longer base64 text, e.g. an echoed "Authorization: Basic …" or "Bearer <token>" encoded.
 */
function base64Forms(secret: string): string[] {
  const forms: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.from('\0'.repeat(offset) + secret).toString('base64');
    const from = offset === 0 ? 0 : 4;
    const to = Math.floor((offset + Buffer.byteLength(secret)) / 3) * 4;
    if (to - from >= MIN_BASE64_FORM) forms.push(encoded.slice(from, to));
  }
  return forms;
}

const formsOf = new Map<string, string[]>();

/** Every form of a secret that is replaced, worked out once per secret: redaction runs on every string shown. */
function formsToReplace(secret: string): string[] {
  let forms = formsOf.get(secret);
  if (!forms) {
    forms = [...new Set([encodeURIComponent(secret), secret, ...base64Forms(secret)])];
    formsOf.set(secret, forms);
  }
  return forms;
}

/** Replaces a secret, raw, percent-encoded or base64-encoded, with `replacement`. */
export function replaceSecret(text: string, secret: string, replacement: string): string {
  let out = text;
  for (const form of formsToReplace(secret)) {
    if (out.includes(form)) out = out.split(form).join(replacement);
  }
  return out;
}

/**
 * Replaces every known secret that holds `value` and is longer (the token with a character added, a near miss), so
 * that `value` can then be replaced alone without leaving a piece of the longer one next to it.
 */
export function redactHolding(text: string, value: string): string {
  return knownSecrets()
    .filter((secret) => secret.length > value.length && secret.includes(value))
    .reduce((out, secret) => replaceSecret(out, secret, REDACTED), text);
}

/**
 * One pattern of every form of every known secret, longest first, so that where two start at the same character the
 * longer is replaced whole. A run redacts some 20,000 strings (each header and body it records): one pass each,
 * instead of one search per form (44 with a run's near-miss tokens), took its recording from 29 ms to 2.
 */
function everyForm(): RegExp | null {
  if (pattern === undefined) {
    const forms = [...new Set(knownSecrets().flatMap(formsToReplace))].sort((a, b) => b.length - a.length);
    pattern =
      forms.length === 0 ? null : new RegExp(forms.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  }
  return pattern;
}

/** Replaces every known secret, raw, percent-encoded or base64-encoded, with [REDACTED]. */
export function redact(text: string): string {
  const forms = everyForm();
  return forms === null ? text : text.replace(forms, REDACTED);
}

/** Deep-redacts the strings of a JSON-like value. */
export function redactValue<T>(value: T): T {
  return JSON.parse(redact(JSON.stringify(value) ?? 'null')) as T;
}
