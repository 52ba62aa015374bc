// Every MUST requirement that HTTP can show has a conformance test, and every tag names a catalogue entry.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { requirements } from '../support/catalogue';
import { expect, test } from '../support/fixtures';

/** Tags that are not requirement IDs. */
const LABEL_TAGS = new Set(['@property']);

interface ListedSuite { specs?: { title: string; tags: string[] }[]; suites?: ListedSuite[] }

function listedTests(): { title: string; tags: string[] }[] {
  const json = execFileSync('npx', ['playwright', 'test', '--list', '--reporter=json'], {
    cwd: resolve(__dirname, '../..'),
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0' },
    maxBuffer: 64 * 1024 * 1024,
  });
  const report = JSON.parse(json) as { suites: ListedSuite[] };
  const out: { title: string; tags: string[] }[] = [];
  const walk = (suite: ListedSuite): void => {
    for (const spec of suite.specs ?? []) out.push({ title: spec.title, tags: spec.tags.map((t) => (t.startsWith('@') ? t : `@${t}`)) });
    for (const child of suite.suites ?? []) walk(child);
  };
  report.suites.forEach(walk);
  return out;
}

test('every tag names a requirement of the catalogue, and every observable MUST has a test', () => {
  const tests = listedTests();
  expect(tests.length).toBeGreaterThan(100);
  const known = new Set(requirements().map((r) => `@${r.id}`));
  const unknown = tests.flatMap((t) => t.tags.filter((tag) => !known.has(tag) && !LABEL_TAGS.has(tag)).map((tag) => `${tag} on "${t.title}"`));
  expect(unknown, 'tags that name no requirement').toEqual([]);
  const untagged = tests.filter((t) => !t.tags.some((tag) => known.has(tag))).map((t) => t.title);
  expect(untagged, 'tests that check no requirement').toEqual([]);
  const tagged = new Set(tests.flatMap((t) => t.tags));
  const untested = requirements().filter((r) => r.observable !== false && !tagged.has(`@${r.id}`)).map((r) => `${r.id} (${r.level})`);
  expect(untested, 'observable requirements without a test').toEqual([]);
});
