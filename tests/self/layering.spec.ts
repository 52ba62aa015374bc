// The layering lint (`.dependency-cruiser.mjs`, run by `npm run lint`) catches what it is there for: the repository's
// own config, cruising a fixture tree that breaks it on purpose (tests/self/fixtures/layering/), reports each
// break by the name of its rule, and nothing that the layers allow.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from '../../src/playwright/fixtures';

const ROOT = join(__dirname, '..', '..');
const FIXTURE = join(__dirname, 'fixtures', 'layering');

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
  cycle?: { name: string }[];
}

/** The violations the real config finds in the fixture, cruised from the fixture's root as lint cruises the repo. */
async function violationsInFixture(): Promise<Violation[]> {
  const depcruise = join(ROOT, 'node_modules', '.bin', 'depcruise');
  const args = ['src', 'reference', '--config', join(ROOT, '.dependency-cruiser.mjs'), '--output-type', 'json'];
  const { stdout } = await promisify(execFile)(depcruise, args, { cwd: FIXTURE, maxBuffer: 16 * 1024 * 1024 });
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

test('the lint reports a type-only cycle, an upward import, the runner outside its adapter, a dev dep', async () => {
  const violations = await violationsInFixture();
  const found = violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to.replace(/^.*node_modules\//, '')}`);

  // (a) order.ts and line.ts import only each other's types: still a cycle.
  const cycle = violations.find((v) => v.rule.name === 'no-circular');
  expect(cycle, found.join('\n')).toBeDefined();
  expect(new Set([cycle?.from, ...(cycle?.cycle ?? []).map((m) => m.name)])).toEqual(
    new Set(['src/model/order.ts', 'src/model/line.ts']),
  );
  // (b) the model imports checks, a higher layer; (c) a type-only import of the runner from src/http;
  // (d) the reference imports checks; (e) the product imports a dev dependency's value. Nothing else: src/playwright
  // may import all of it, and (c)'s type-only import of a dependency would be fine were it a dev one.
  expect(found.filter((f) => !f.startsWith('no-circular:')).sort()).toEqual([
    'layer-model: src/model/total.ts → src/checks/amount.ts',
    'playwright-only-in-adapter: src/http/runner.ts → @playwright/test/index.d.ts',
    'product-not-to-dev-dep: src/config/settings-file.ts → yaml/dist/index.d.ts',
    'reference-imports-model-only: reference/server.ts → src/checks/amount.ts',
  ]);
  expect(violations.every((v) => v.rule.severity === 'error')).toBe(true);
});
