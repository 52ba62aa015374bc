// Self-test of specs/requirements.json: well-formed entries that point at real sections of the spec
// and together cover every operation.
import { existsSync, readFileSync } from 'node:fs';
import { test, expect } from '../../src/playwright/fixtures';
import { CATALOGUE_PATH, LEVELS, REQUIREMENT_ID, requirements } from '../../src/model/catalogue';

const OPERATION_COUNT = 15;

/**
 * The spec's text, from the Markdown file SPEC_FILE names; undefined without it. The spec is not in this repository:
 * the catalogue names it by its title, which the file's first heading must contain.
 */
function specText(): string | undefined {
  const { spec } = JSON.parse(readFileSync(CATALOGUE_PATH, 'utf8')) as { spec?: string };
  expect(spec, 'the catalogue names its spec by title').toEqual(expect.any(String));
  const file = process.env.SPEC_FILE;
  if (!file) return undefined;
  expect(existsSync(file), `SPEC_FILE ${file}`).toBe(true);
  const text = readFileSync(file, 'utf8');
  expect(/^# (.*)$/m.exec(text)?.[1], `the first heading of ${file}`).toContain(spec);
  return text;
}

const NO_SPEC = 'the spec is not in this repository: set SPEC_FILE to its Markdown file to check against it';

/** Section numbers of the spec's headings: "## 5. Authentication" gives "5", "### 4.4 PATCH ..." gives "4.4". */
function specSections(text: string): Set<string> {
  const sections = new Set<string>();
  for (const m of text.matchAll(/^#{2,3}\s+(\d+(?:\.\d+)*)\.?\s/gm)) if (m[1]) sections.add(m[1]);
  // "intro" is the paragraph between the title and §1; it exists only if there is text there.
  const intro = /^# [^\n]*\n([\s\S]*?)^## /m.exec(text)?.[1] ?? '';
  if (intro.trim() !== '') sections.add('intro');
  return sections;
}

const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

test('more than 50 entries', () => {
  expect(requirements().length).toBeGreaterThan(50);
});

test('IDs are unique and well-formed', () => {
  const ids = requirements().map((r) => r.id);
  expect(
    ids.filter((id, i) => ids.indexOf(id) !== i),
    'duplicate IDs',
  ).toEqual([]);
  expect(
    ids.filter((id) => !REQUIREMENT_ID.test(id)),
    `IDs not matching ${REQUIREMENT_ID}`,
  ).toEqual([]);
});

test('every section exists as a heading of the spec', () => {
  const text = specText();
  test.skip(text === undefined, NO_SPEC);
  const sections = specSections(text!);
  // Sanity of the parser itself, so that an empty set cannot pass everything.
  expect([...sections]).toEqual(expect.arrayContaining(['intro', '1', '2.6', '4.4', '4.15', '5', '7', '9']));
  const unknown = requirements()
    .filter((r) => !sections.has(r.section))
    .map((r) => `${r.id}: §${r.section}`);
  expect(unknown).toEqual([]);
});

test('level is MUST, SHOULD or INFO; text is not empty', () => {
  const problems = requirements().flatMap((r) => [
    ...(LEVELS.includes(r.level) ? [] : [`${r.id}: level ${String(r.level)}`]),
    ...(typeof r.text === 'string' && r.text.trim() !== '' ? [] : [`${r.id}: no text`]),
  ]);
  expect(problems).toEqual([]);
});

test('every SHOULD and INFO says why it is not a MUST', () => {
  const unexplained = requirements()
    .filter((r) => r.level !== 'MUST' && !r.levelReason?.trim())
    .map((r) => r.id);
  expect(unexplained, 'entries without a levelReason').toEqual([]);
});

test(`operations are integers from 1 to ${OPERATION_COUNT}, and each operation has an entry`, () => {
  const problems = requirements().flatMap((r) => {
    if (!Array.isArray(r.operations) || r.operations.length === 0) return [`${r.id}: no operations`];
    return r.operations
      .filter((n) => !Number.isInteger(n) || n < 1 || n > OPERATION_COUNT)
      .map((n) => `${r.id}: operation ${n}`);
  });
  expect(problems).toEqual([]);
  const covered = new Set(requirements().flatMap((r) => r.operations));
  const uncovered = Array.from({ length: OPERATION_COUNT }, (_, i) => i + 1).filter((n) => !covered.has(n));
  expect(uncovered, 'operations with no entry').toEqual([]);
});

test('entries marked observable: false say why', () => {
  const problems = requirements().flatMap((r) => [
    ...(r.observable !== undefined && typeof r.observable !== 'boolean'
      ? [`${r.id}: observable is not a boolean`]
      : []),
    ...(r.observable === false && !(typeof r.notObservableBecause === 'string' && r.notObservableBecause.trim())
      ? [`${r.id}: observable false without notObservableBecause`]
      : []),
  ]);
  expect(problems).toEqual([]);
});

test("every quote is the spec's own text", () => {
  // Whitespace is normalised: the spec wraps lines, the catalogue does not.
  const text = specText();
  test.skip(text === undefined, NO_SPEC);
  const spec = squash(text!);
  const problems = requirements()
    .filter((r) => r.quote !== undefined && !spec.includes(squash(r.quote)))
    .map((r) => r.id);
  expect(problems).toEqual([]);
});
