// A variable named almost like a setting is a typo: RSF_TARGET_ULR would leave RSF_TARGET_URL at its default, and a
// run against the embedded reference would pass in the target's stead. Such a name is a configuration error.

const PREFIX = 'RSF_';
/** The part of a name after the prefix that a shorter or longer name may share: "TARGET" of RSF_TARGET_URL. */
const MIN_SHARED = 4;

/** The edits (a character added, removed, replaced, or two side by side swapped) that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
  // rows[i][j]: the edits from the first i characters of a to the first j of b.
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const replaced = at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1);
      const swap = i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1];
      const swapped = swap ? at(i - 2, j - 2) + 1 : Number.POSITIVE_INFINITY;
      (rows[i] as number[])[j] = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, replaced, swapped);
    }
  }
  return at(a.length, b.length);
}

/** Whether `name` (upper case, not a setting's) reads as a slip for `setting`. */
function isSlipFor(name: string, setting: string): boolean {
  if (editDistance(name, setting) <= 2) return true;
  const [own, its] = [name.slice(PREFIX.length), setting.slice(PREFIX.length)];
  const [shorter, longer] = own.length <= its.length ? [own, its] : [its, own];
  return shorter.length >= MIN_SHARED && longer.includes(shorter);
}

/**
 * The problems of variables in `env` named like one of `settings` and not one: in any letter case, within two edits,
 * or one name inside the other ("RSF_TARGET", "RSF_TARGET_URL_STAGING"). Their values are never shown: one may be a
 * token under a misspelled name.
 */
export function misspelledSettings(env: Record<string, string | undefined>, settings: readonly string[]): string[] {
  const known = new Set(settings);
  const problems: string[] = [];
  for (const name of Object.keys(env).sort()) {
    const upper = name.toUpperCase();
    if (!upper.startsWith(PREFIX) || known.has(name)) continue;
    const meant = settings.filter((setting) => isSlipFor(upper, setting));
    if (meant.length > 0)
      problems.push(
        `${name}: not a setting of this suite, so it would be ignored; did you mean ${meant.join(' or ')}?`,
      );
  }
  return problems;
}
