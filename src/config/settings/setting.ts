// What a setting is, and the parsers the concerns share: a parser throws, and loadConfig shows the message after
// the variable's name.
/** A value the user may set, its default (fitting the embedded reference) and what it means. */
export interface Setting<T> {
  name: string;
  doc: string;
  default: string;
  parse: (raw: string) => T;
  secret?: boolean;
}

export type SettingTable = Record<string, Setting<unknown>>;

/** The values a table of settings parses to, by key. */
export type Parsed<Table extends Record<string, Setting<unknown>>> = {
  [K in keyof Table]: ReturnType<Table[K]['parse']>;
};

export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration (see README, "Configuration"):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

export class ConfigProblem extends Error {
  /** `shownValue`: the value as loadConfig may show it, when the raw value may hold a secret. */
  constructor(
    message: string,
    readonly shownValue?: string,
  ) {
    super(message);
  }
}

export const S = <T>(
  name: string,
  def: string,
  parse: (raw: string) => T,
  doc: string,
  secret = false,
): Setting<T> => ({
  name,
  default: def,
  parse,
  doc,
  secret,
});

export const text = (raw: string): string => raw;
/** An integer the suite only puts in a path: kept as written, so that a 64-bit id (beyond 2^53 − 1) is sent exactly. */
export const integerInPath = (raw: string): string => {
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigProblem(`expected an integer, got "${raw}"`);
  return raw.trim();
};
/** An integer sent as a JSON number: refused where a number would round it. */
export const integer = (raw: string): number => {
  const literal = integerInPath(raw);
  refuseRounded(literal);
  return Number(literal);
};

/**
 * An integer literal beyond 2^53 − 1 (a 64-bit id) is rounded by JavaScript's numbers, and so by JSON.parse: the
 * suite would send another id than the one set, and blame the setting, or the target, for what that one names.
 */
export function refuseRounded(literal: string): void {
  const value = Number(literal);
  if (Number.isInteger(value) && !Number.isSafeInteger(value) && BigInt(literal) !== BigInt(value))
    throw new ConfigProblem(
      `${literal} is beyond 2^53 − 1 (${Number.MAX_SAFE_INTEGER}), which JavaScript rounds (to ${BigInt(value)}): ` +
        'the suite would send another value than this one, and cannot send this one as it is',
    );
}
export const bounded =
  (min: number, max: number) =>
  (raw: string): number => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min || n > max)
      throw new ConfigProblem(`expected a number from ${min} to ${max}, got "${raw}"`);
    return n;
  };
/** Empty means "decided by the target": see loadConfig. */
export const optional =
  <T>(parse: (raw: string) => T) =>
  (raw: string): T | undefined =>
    raw === '' ? undefined : parse(raw);
export const flag = (raw: string): boolean => {
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off|)$/i.test(raw)) return false;
  throw new ConfigProblem(`expected true or false, got "${raw}"`);
};
export const list =
  <T>(item: (raw: string) => T) =>
  (raw: string): T[] => {
    const parts = raw
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    if (parts.length === 0) throw new ConfigProblem('expected a comma-separated list with at least one value');
    return parts.map(item);
  };
/**
 * A pattern, matched without regard to case; or, written as a literal `/…/flags`, with those flags only: `/^ERROR/u`
 * matches the case as written.
 */
export const regex = (raw: string): RegExp => {
  const literal = /^\/(.+)\/([a-z]*)$/s.exec(raw);
  try {
    return literal ? new RegExp(literal[1] as string, literal[2]) : new RegExp(raw, 'iu');
  } catch (e) {
    throw new ConfigProblem(`not a valid regular expression: ${(e as Error).message}`);
  }
};
export const oneOf =
  <T extends string>(values: readonly T[]) =>
  (raw: string): T => {
    if (!(values as readonly string[]).includes(raw))
      throw new ConfigProblem(`expected one of ${values.join(', ')}, got "${raw}"`);
    return raw as T;
  };

/** Shorter values could not be told apart from ordinary text, so they could not be redacted safely. */
const MIN_SECRET_LENGTH = 8;
export const secretText = (raw: string): string => {
  if (raw !== '' && raw.length < MIN_SECRET_LENGTH)
    throw new ConfigProblem(
      `must be at least ${MIN_SECRET_LENGTH} characters, so that it can be redacted from every output (a shorter ` +
        'one could not be told apart from ordinary text): give the run a longer one',
    );
  return raw;
};
