// The direction of imports (README, Layout). `npm run lint` runs it; any violation fails it, and `npm test`.

// Each layer of src/ and the layers it may import; a layer imports only lower ones, siblings not each other.
const LAYERS = {
  model: [],
  http: ['model'],
  arbitraries: ['model'],
  config: ['model', 'http', 'arbitraries'],
  checks: ['model', 'http', 'arbitraries', 'config'],
  report: ['model', 'http', 'arbitraries', 'config', 'checks'],
  evidence: ['model', 'http', 'config', 'report'],
  playwright: ['model', 'http', 'arbitraries', 'config', 'checks', 'report', 'evidence'],
};

// Playwright's packages, whichever way they resolve (a type-only import resolves to a .d.ts).
const PLAYWRIGHT = '(^|/)node_modules/(@playwright/test|playwright|playwright-core)/';

const layerRules = Object.entries(LAYERS).map(([layer, below]) => ({
  name: `layer-${layer}`,
  comment: `In src/, src/${layer} imports only ${[layer, ...below].map((l) => `src/${l}`).join(', ')}.`,
  severity: 'error',
  from: { path: `^src/${layer}/` },
  to: { path: '^src/', pathNot: [layer, ...below].map((l) => `^src/${l}/`) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle, type-only imports included, ties its modules into one layer.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'playwright-only-in-adapter',
      comment: 'Only src/playwright (and tests) may know the test runner; the engine runs without it.',
      severity: 'error',
      from: { path: '^(src|reference)/', pathNot: '^src/playwright/' },
      to: { path: PLAYWRIGHT },
    },
    {
      name: 'reference-imports-model-only',
      comment: 'The reference server shares the model with the suite, never its HTTP client, config or checks.',
      severity: 'error',
      from: { path: '^reference/' },
      to: { pathNot: ['^reference/', '^src/model/', '(^|/)node_modules/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'no-import-of-tests',
      comment: 'tests/ sits above everything: src and the reference never import it.',
      severity: 'error',
      from: { path: '^(src|reference)/' },
      to: { path: '^tests/' },
    },
    {
      name: 'product-not-to-dev-dep',
      comment:
        'What runs the suite, the reference and the bundles needs only "dependencies": an image installed with ' +
        '`npm ci --omit=dev` runs them. Types are erased, so a type-only import of a dev dependency is fine.',
      severity: 'error',
      from: { path: '^(src|reference)/|^playwright[.]config[.]ts$' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import the cruiser cannot resolve escapes every rule above.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The layering self-test's fixture breaks the rules on purpose.
    exclude: { path: '^tests/self/fixtures/layering/' },
    // Count `import type` and `import('…').T` edges: a type-only cycle is still a cycle.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'types', 'default'],
    },
  },
};
