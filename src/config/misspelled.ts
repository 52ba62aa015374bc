// A variable named almost like a setting is a typo: RSF_TARGET_ULR would leave RSF_TARGET_URL at its default, and a
// run against the embedded reference would pass in the target's stead. Such a name is a configuration error.

const PREFIX = 'RSF_';
/** The part of a name after the prefix that a shorter or longer name may share: "TARGET" of RSF_TARGET_URL. */
const MIN_SHARED = 4;

/** Edits past this make no slip: a name so far from every setting is left alone. */
const MAX_EDITS = 2;

/**
 * The edits (a character added, removed, replaced, or two side by side swapped) that turn `a` into `b`, or more than
 * MAX_EDITS when the lengths alone need more: every process of a run checks its environment, the suite's own RSF_
 * variables included, against each setting.
 */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > MAX_EDITS) return MAX_EDITS + 1;
  // Three rows of the table: row i holds the edits from the first i characters of a to the first j of b.
  let [beforeLast, last, row] = [
    new Int32Array(b.length + 1),
    Int32Array.from({ length: b.length + 1 }, (_, j) => j),
    new Int32Array(b.length + 1),
  ];
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const replaced = (last[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      const swap = i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1];
      const swapped = swap ? (beforeLast[j - 2] as number) + 1 : Number.POSITIVE_INFINITY;
      row[j] = Math.min((last[j] as number) + 1, (row[j - 1] as number) + 1, replaced, swapped);
    }
    [beforeLast, last, row] = [last, row, beforeLast];
  }
  return last[b.length] as number;
}

/** Whether `name` (upper case, not a setting's) reads as a slip for `setting`. */
function isSlipFor(name: string, setting: string): boolean {
  if (editDistance(name, setting) <= MAX_EDITS) return true;
  const [own, its] = [name.slice(PREFIX.length), setting.slice(PREFIX.length)];
  const [shorter, longer] = own.length <= its.length ? [own, its] : [its, own];
  return shorter.length >= MIN_SHARED && longer.includes(shorter);
}

/** The answers by the names asked about: a run's processes each read their configuration more than once. */
const problemsByNames = new Map<string, string[]>();

/**
 * The problems of variables in `env` named like one of `settings` and not one: in any letter case, within two edits,
 * or one name inside the other ("RSF_TARGET", "RSF_TARGET_URL_STAGING"). Their values are never shown: one may be a
 * token under a misspelled name.
 */
export function misspelledSettings(env: Record<string, string | undefined>, settings: readonly string[]): string[] {
  const known = new Set(settings);
  const names = Object.keys(env)
    .filter((name) => name.toUpperCase().startsWith(PREFIX) && !known.has(name))
    .sort();
  const key = JSON.stringify([names, settings]);
  let problems = problemsByNames.get(key);
  if (problems === undefined) {
    problems = names.flatMap((name) => {
      const meant = settings.filter((setting) => isSlipFor(name.toUpperCase(), setting));
      return meant.length > 0
        ? [`${name}: not a setting of this suite, so it would be ignored; did you mean ${meant.join(' or ')}?`]
        : [];
    });
    problemsByNames.set(key, problems);
  }
  return [...problems];
}
