// The README and the chapters in docs/ link to each other, and to files of the repository: every such link resolves,
// to a file that exists and, after a #, to one of its headings, as GitHub makes their anchors.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { expect, test } from '../../src/playwright/fixtures';
import { REPO_ROOT } from './support/child-run';

const DOCUMENTS = [
  'README.md',
  'reference/README.md',
  ...readdirSync(join(REPO_ROOT, 'docs')).map((name) => `docs/${name}`),
];

/** GitHub's anchor of a heading: lower case, without punctuation but hyphens and underscores, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown file's headings, outside code blocks; a heading met again gets -1, -2, … */
function anchorsOf(path: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inCode = false;
  for (const line of readFileSync(join(REPO_ROOT, path), 'utf8').split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    const heading = inCode ? undefined : /^#{1,6}\s+(.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const anchor = anchorOf(heading);
    const times = seen.get(anchor) ?? 0;
    seen.set(anchor, times + 1);
    anchors.add(times === 0 ? anchor : `${anchor}-${times}`);
  }
  return anchors;
}

/** Each relative link of `path` that names no file, or no heading of its file. */
function brokenLinks(path: string): string[] {
  const text = readFileSync(join(REPO_ROOT, path), 'utf8');
  const broken: string[] = [];
  for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^(https?|mailto):/.test(target)) continue;
    const [file = '', fragment] = target.split('#');
    const linked = file === '' ? path : normalize(join(dirname(path), file));
    if (relative(REPO_ROOT, join(REPO_ROOT, linked)).startsWith('..')) broken.push(`${target}: outside the repository`);
    else if (!existsSync(join(REPO_ROOT, linked))) broken.push(`${target}: no such file`);
    else if (fragment !== undefined && linked.endsWith('.md') && !anchorsOf(linked).has(fragment))
      broken.push(`${target}: no such heading in ${linked}`);
  }
  return broken;
}

test('every link of the README and of docs/ names a file of the repository, and a heading that it has', () => {
  for (const path of DOCUMENTS) expect(brokenLinks(path), path).toEqual([]);
});

test('anchors as GitHub makes them: punctuation dropped, spaces as hyphens, a repeated heading numbered', () => {
  expect(anchorOf('Gateways, firewalls, slow servers and dying targets')).toBe(
    'gateways-firewalls-slow-servers-and-dying-targets',
  );
  expect(anchorOf("npm test's child runs: `RSF_FC_NUM_RUNS` (§8)")).toBe('npm-tests-child-runs-rsf_fc_num_runs-8');
});
