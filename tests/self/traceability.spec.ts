// Every MUST requirement that HTTP can show has a conformance test, and every tag names a catalogue entry.
import { requirements } from '../../src/model/catalogue';
import { expect, test } from '../../src/playwright/fixtures';
import { WRITES_TAG } from '../../src/checks/write-safety';
import { listedConformanceSuite } from './support/conformance-list';

/** Tags that are not requirement IDs. */
const LABEL_TAGS = new Set(['@property', WRITES_TAG]);

interface ListedSuite {
  specs?: { title: string; tags: string[] }[];
  suites?: ListedSuite[];
}

async function listedTests(): Promise<{ title: string; tags: string[] }[]> {
  const report = await listedConformanceSuite();
  const out: { title: string; tags: string[] }[] = [];
  const walk = (suite: ListedSuite): void => {
    for (const spec of suite.specs ?? [])
      out.push({ title: spec.title, tags: spec.tags.map((t) => (t.startsWith('@') ? t : `@${t}`)) });
    for (const child of suite.suites ?? []) walk(child);
  };
  (report.suites as ListedSuite[]).forEach(walk);
  return out;
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
