// Every MUST requirement that HTTP can show has a conformance test, and every tag names a catalogue entry.
import { requirements } from '../../src/model/catalogue';
import { expect, test } from '../../src/playwright/fixtures';
import { WRITES_TAG } from '../../src/checks/write-safety';
import { listConformanceTests } from './support/conformance-list';

/** Tags that are not requirement IDs. */
const LABEL_TAGS = new Set(['@property', WRITES_TAG]);

/** The conformance tests, each with its tags as written in a spec file (with the @). */
async function listedTests(): Promise<{ title: string; tags: string[] }[]> {
  const tests = await listConformanceTests();
  return tests.map(({ title, tags }) => ({ title, tags: tags.map((t) => (t.startsWith('@') ? t : `@${t}`)) }));
}

test('every tag names a requirement of the catalogue, and every observable requirement has a test', async () => {
  const tests = await listedTests();
  expect(tests.length).toBeGreaterThan(100);
  const known = new Set(requirements().map((r) => `@${r.id}`));
  const unknown = tests.flatMap((t) =>
    t.tags.filter((tag) => !known.has(tag) && !LABEL_TAGS.has(tag)).map((tag) => `${tag} on "${t.title}"`),
  );
  expect(unknown, 'tags that name no requirement').toEqual([]);
  const untagged = tests.filter((t) => !t.tags.some((tag) => known.has(tag))).map((t) => t.title);
  expect(untagged, 'tests that check no requirement').toEqual([]);
  const tagged = new Set(tests.flatMap((t) => t.tags));
  const untested = requirements()
    .filter((r) => r.observable !== false && !tagged.has(`@${r.id}`))
    .map((r) => `${r.id} (${r.level})`);
  expect(untested, 'observable requirements without a test').toEqual([]);
});

test('a test of operation N carries only requirements that name N: the report files its result under N', async () => {
  const operationsOf = new Map(requirements().map((r) => [`@${r.id}`, r.operations]));
  const tests = await listConformanceTests();
  const misfiled = tests.flatMap(({ title, describes, tags: names }) => {
    const tags = names.map((t) => (t.startsWith('@') ? t : `@${t}`));
    const number = /\boperation (\d+)\b/.exec([...describes, title].join(' › '))?.[1];
    if (number === undefined) return [];
    return tags
      .filter((tag) => {
        const operations = operationsOf.get(tag);
        return operations !== undefined && operations.length > 0 && !operations.includes(Number(number));
      })
      .map((tag) => `${tag} on "${title}"`);
  });
  expect(misfiled, 'requirements whose operations leave out the operation of a test that checks them').toEqual([]);
});
