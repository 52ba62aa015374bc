// Self-test of schemas/: every file compiles in strict mode, is named by its $id, and behaves as its
// data-driven cases (tests/self/schema-cases/, JSON-Schema-Test-Suite style) say.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test, expect } from '../../src/playwright/fixtures';
import {
  cachedValidators,
  formatErrors,
  SCHEMA_DIR,
  schemaId,
  schemas,
  SCHEMA_SUFFIX,
} from '../../src/model/schema-registry';
import { requirements } from '../../src/model/catalogue';

const CASE_DIR = resolve(__dirname, 'schema-cases');
const DRAFT = 'https://json-schema.org/draft/2020-12/schema';

/** Schemas that accept every instance, so their case files can hold no invalid instance. */
const ACCEPTS_ANYTHING = new Set(['product-delete.response']);

interface SchemaCase {
  description: string;
  data: unknown;
  valid: boolean;
}
interface CaseGroup {
  description: string;
  schema: string;
  tests: SchemaCase[];
}

// Read at collection time: titles must be known before the run starts.
const schemaFiles = readdirSync(SCHEMA_DIR).sort();
const schemaNames = schemaFiles.filter((f) => f.endsWith(SCHEMA_SUFFIX)).map((f) => f.slice(0, -SCHEMA_SUFFIX.length));
const caseFiles = readdirSync(CASE_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();
const caseGroups: { file: string; group: CaseGroup }[] = caseFiles.flatMap((file) =>
  (JSON.parse(readFileSync(join(CASE_DIR, file), 'utf8')) as CaseGroup[]).map((group) => ({ file, group })),
);

function readSchema(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(SCHEMA_DIR, `${name}${SCHEMA_SUFFIX}`), 'utf8')) as Record<string, unknown>;
}

/** Every (path, value) of a JSON tree, so keyword bans can be checked at any depth. */
function* walk(node: unknown, path = '#'): Generator<[string, string, unknown]> {
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    yield [path, key, value];
    yield* walk(value, `${path}/${key}`);
  }
}

test.describe('schema files', () => {
  test('schemas/ holds only *.schema.json files, at least one', () => {
    expect(
      schemaFiles.filter((f) => !f.endsWith(SCHEMA_SUFFIX)),
      'files the registry would ignore',
    ).toEqual([]);
    expect(schemaNames.length).toBeGreaterThan(0);
  });

  test('the registry compiles every schema in strict mode', () => {
    expect(schemas().names).toEqual(schemaNames);
    // A fresh Ajv, not the cached validators: compiling throws on a strict-mode or $ref error.
    const { ajv } = schemas();
    for (const name of schemaNames) expect(typeof ajv.getSchema(schemaId(name)), name).toBe('function');
  });

  test('every schema is valid against the 2020-12 meta-schema (the registry leaves this check to here)', () => {
    const { ajv } = schemas();
    for (const name of schemaNames) {
      expect(ajv.validateSchema(readSchema(name)), `${name}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
    }
    expect(ajv.validateSchema({ $schema: DRAFT, type: 'strnig' }), 'the check can fail').toBe(false);
  });

  for (const name of schemaNames) {
    test(`${name}: $schema, $id, title and description`, () => {
      const schema = readSchema(name);
      expect(schema.$schema).toBe(DRAFT);
      expect(schema.$id, 'the $id names the file').toBe(schemaId(name));
      expect(typeof schema.title === 'string' && schema.title.trim() !== '', 'a title').toBe(true);
      expect(schema.description, 'a description citing the spec section').toMatch(/§\d/);
      const banned = [...walk(schema)].filter(
        ([, key, value]) => (key === 'additionalProperties' && value === false) || key === 'unevaluatedProperties',
      );
      expect(
        banned.map(([path, key]) => `${path}/${key}`),
        'extra properties are allowed everywhere',
      ).toEqual([]);
      for (const [path, key, value] of walk(schema)) {
        // A relative $ref names a sibling file; '#...' stays inside the schema.
        if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) {
          expect(schemaNames, `${path}/$ref`).toContain(value.replace(/#.*$/, '').slice(0, -SCHEMA_SUFFIX.length));
        }
      }
    });
  }

  test('a $ref has no validation keywords beside it', () => {
    // fieldsOf() and other readers follow a whole-file $ref and ignore its siblings, so siblings would be lost on them.
    const ANNOTATIONS = new Set(['$ref', '$schema', '$id', '$comment', 'title', 'description', 'examples']);
    const problems: string[] = [];
    for (const name of schemaNames) {
      for (const [path, key, value] of walk({ '#': readSchema(name) })) {
        if (key !== '$ref' && value && typeof value === 'object' && '$ref' in value) {
          const extra = Object.keys(value).filter((k) => !ANNOTATIONS.has(k));
          if (extra.length) problems.push(`${name} ${path}/${key}: ${extra.join(', ')}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  test('every root-level example validates against its schema', () => {
    const failures: string[] = [];
    for (const name of schemaNames) {
      const examples = readSchema(name).examples;
      if (!Array.isArray(examples)) continue;
      examples.forEach((example, i) => {
        const verdict = schemas().validate(name, example);
        if (!verdict.valid) failures.push(`${name} examples[${i}]: ${verdict.errors.join('; ')}`);
      });
    }
    expect(failures).toEqual([]);
  });
});

test.describe('schema case files', () => {
  test('every schema has a case file, and every case file names an existing schema', () => {
    expect(caseFiles.map((f) => f.slice(0, -'.json'.length))).toEqual(schemaNames);
    for (const { file, group } of caseGroups) {
      expect(group.schema, `${file}: "schema" matches the file name`).toBe(file.slice(0, -'.json'.length));
    }
  });

  test('every schema has at least one valid and two invalid instances', () => {
    const problems: string[] = [];
    for (const name of schemaNames) {
      const tests = caseGroups.filter(({ group }) => group.schema === name).flatMap(({ group }) => group.tests);
      const valid = tests.filter((t) => t.valid).length;
      const invalid = tests.length - valid;
      if (valid < 1) problems.push(`${name}: no valid instance`);
      // A schema that accepts anything has no invalid instance to offer; it must really be that open.
      if (ACCEPTS_ANYTHING.has(name)) {
        if (invalid > 0) problems.push(`${name}: accepts anything, yet has invalid cases`);
        const { $schema, $id, title, description, ...keywords } = readSchema(name);
        if (Object.keys(keywords).length > 0)
          problems.push(`${name}: listed as accepting anything, but has keywords ${Object.keys(keywords).join(', ')}`);
      } else if (invalid < 2) {
        problems.push(`${name}: ${invalid} invalid instance(s), at least 2 needed`);
      }
    }
    expect(problems).toEqual([]);
  });

  const titles = new Set<string>();
  for (const { file, group } of caseGroups) {
    // Titles must be unique for Playwright; the file name disambiguates.
    const title = titles.has(group.description) ? `${group.description} [${file}]` : group.description;
    titles.add(title);
    test(title, () => {
      for (const instance of group.tests) {
        const verdict = schemas().validate(group.schema, instance.data);
        const detail = verdict.errors.length ? `\najv errors:\n  ${verdict.errors.join('\n  ')}` : '';
        expect
          .soft(
            verdict.valid,
            `${group.schema}: "${instance.description}" should be ${instance.valid ? 'valid' : 'invalid'}${detail}`,
          )
          .toBe(instance.valid);
      }
    });
  }
});

test('the cached validators judge every case as a fresh compile does, errors included', () => {
  schemas().validator(schemaNames[0]!); // the first use writes the cache when it is missing
  const cached = cachedValidators();
  expect(cached, 'the registry cached its validators in node_modules/.cache').toBeDefined();
  const { ajv } = schemas();
  let errorsCompared = 0;
  for (const { group } of caseGroups) {
    const fresh = ajv.getSchema(schemaId(group.schema))!;
    const fromCache = cached![group.schema]!;
    for (const instance of group.tests) {
      const [expected, actual] = [fresh, fromCache].map((validate) => {
        const valid = validate(instance.data);
        return { valid, errors: validate.errors ?? [], formatted: formatErrors(validate.errors ?? []) };
      });
      expect(actual, `${group.schema}: "${instance.description}"`).toEqual(expected);
      errorsCompared += expected!.errors.length;
    }
  }
  expect(errorsCompared, 'the invalid cases compare errors, not only verdicts').toBeGreaterThan(0);
});

test('every schema named in specs/requirements.json exists', () => {
  const missing = requirements().flatMap((r) =>
    (r.schemas ?? []).filter((s) => !schemaNames.includes(s)).map((s) => `${r.id}: ${s}`),
  );
  expect(missing).toEqual([]);
});
