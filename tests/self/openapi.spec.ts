// Self-test of specs/openapi.yaml: a valid OpenAPI 3.1 document, whose operations, security and schema
// references agree with the spec's §4 table, §5 and the requirement catalogue.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { test, expect } from '../../src/playwright/fixtures';
import { requirements } from '../../src/model/catalogue';
import { type AuthRule, OPERATIONS as SUITE_OPERATIONS } from '../../src/model/operations';
import { SCHEMA_DIR, SCHEMA_SUFFIX, schemas } from '../../src/model/schema-registry';

const OPENAPI_PATH = resolve(__dirname, '../../specs/openapi.yaml');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type Json = Record<string, unknown>;
type Security = Record<string, string[]>[];

const BEARER: Security = [{ bearerAuth: [] }];
const NONE: Security = [];
const OPTIONAL: Security = [{}, { bearerAuth: [] }];

/** What §5 gives each authentication rule, as OpenAPI security requirements. */
const SECURITY: Record<AuthRule, Security> = { bearer: BEARER, none: NONE, 'optional-bearer': OPTIONAL };

/** The suite's §4 table (src/model/operations.ts), whose names are the document's operationIds. */
const OPERATIONS = Object.entries(SUITE_OPERATIONS).map(([operationId, o]) => ({
  n: o.number,
  operationId,
  method: o.method.toLowerCase(),
  path: o.path,
  security: SECURITY[o.auth],
  requestSchema: o.requestSchema,
  sampleBody: o.sampleBody,
}));

/** Path parameters and their schemas, per §4.7 to §4.15. */
const PATH_PARAMS: Record<string, Record<string, Json>> = {
  quoteShipping: { codigoPostalFavorito: { type: 'string' }, direccionCompleta: { type: 'string' } },
  getProduct: { product_id: { type: 'string' } },
  getPaymentVoucher: { branch: { type: 'string' }, order: { type: 'string' } },
  getOrder: { branch: { type: 'string' }, albNumber: { type: 'string' } },
  deleteProduct: { id: { type: 'string' } },
  getMessageChannel: { postsaleInboundId: { type: 'integer' } },
  sendChannelMessage: {
    postsaleInboundId: { type: 'integer' },
    token: { type: 'string', format: 'password' },
    userId: { type: 'string' },
  },
};

function loadDocument(): Json {
  return parse(readFileSync(OPENAPI_PATH, 'utf8')) as Json;
}

interface Operation {
  method: string;
  path: string;
  op: Json;
}

function operationsOf(doc: Json): Operation[] {
  const paths = (doc.paths ?? {}) as Record<string, Json>;
  return Object.entries(paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((method) => ({ method, path, op: item[method] as Json })),
  );
}

/** Every `$ref` of a JSON tree, with its JSON pointer. */
function refsOf(node: unknown, path = '#'): { at: string; ref: string }[] {
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === '$ref' && typeof value === 'string' ? [{ at: path, ref: value }] : refsOf(value, `${path}/${key}`),
  );
}

function mapRefs(node: unknown, rewrite: (ref: string) => string): unknown {
  if (Array.isArray(node)) return node.map((v) => mapRefs(v, rewrite));
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? rewrite(v) : mapRefs(v, rewrite)]),
  );
}

/**
 * The document with every schema file it reaches (directly or through other files) inlined under
 * components/schemas and every external $ref turned into a local one. The validator resolves only
 * refs it can find by their literal text, and not relative paths, so it checks this bundled copy.
 */
function bundle(doc: Json): Json {
  const inlined: Record<string, unknown> = {};
  const local = (ref: string): string => {
    const m = /^(?:\.\.\/schemas\/)?([^/#]+)\.schema\.json$/.exec(ref);
    if (!m?.[1]) return ref;
    include(m[1]);
    return `#/components/schemas/${m[1]}`;
  };
  const include = (name: string): void => {
    if (name in inlined) return;
    inlined[name] = {}; // guards against cycles while the file is read
    const file = resolve(SCHEMA_DIR, `${name}${SCHEMA_SUFFIX}`);
    if (!existsSync(file)) throw new Error(`$ref to a missing file: schemas/${name}${SCHEMA_SUFFIX}`);
    // $id would rebase the local refs below; the bundle no longer needs it.
    const { $id: _id, ...schema } = JSON.parse(readFileSync(file, 'utf8')) as Json;
    inlined[name] = mapRefs(schema, local);
  };
  const bundled = mapRefs(doc, local) as Json;
  const components = (bundled.components ?? {}) as Json;
  bundled.components = { ...components, schemas: { ...((components.schemas as Json | undefined) ?? {}), ...inlined } };
  return bundled;
}

test('specs/openapi.yaml is a valid OpenAPI 3.1 document, its schema references resolved', async () => {
  // ESM-only package; a dynamic import keeps this CommonJS-compiled spec file loadable.
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  const bundled = bundle(loadDocument());
  const result = await new Validator().validate(bundled);
  expect(result.errors ?? [], 'validator errors').toEqual([]);
  expect(result.valid).toBe(true);
  expect(String(bundled.openapi)).toMatch(/^3\.1\./);
  // The validator resolves only references; make sure the bundle holds every file it was pointed at.
  const inlined = Object.keys(((bundled.components as Json).schemas as Json) ?? {});
  const direct = refsOf(loadDocument()).filter(({ ref }) => ref.startsWith('../schemas/'));
  expect(direct.length).toBeGreaterThan(0);
  for (const { ref } of direct) expect(inlined).toContain(ref.slice('../schemas/'.length, -SCHEMA_SUFFIX.length));
});

test('the validator rejects a document with a reference that does not resolve', async () => {
  // Proves the check above has teeth: an unresolved $ref is reported, not ignored.
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  const broken = bundle(loadDocument());
  ((broken.components as Json).schemas as Json)['prices.response'] = { $ref: '#/components/schemas/no-such-schema' };
  const result = await new Validator().validate(broken);
  expect(result.valid).toBe(false);
});

test('server, security scheme, and no top-level security', () => {
  const doc = loadDocument();
  expect(doc.servers).toEqual([
    {
      url: '{base_url}/v1',
      description: expect.any(String),
      variables: { base_url: { default: 'http://127.0.0.1:4010' } },
    },
  ]);
  expect(((doc.components as Json).securitySchemes as Json).bearerAuth).toMatchObject({
    type: 'http',
    scheme: 'bearer',
  });
  expect(doc.security, 'security is set per operation (§5)').toBeUndefined();
});

test('exactly the 15 operations of the §4 table, with unique operationIds', () => {
  const found = operationsOf(loadDocument());
  expect(found.map(({ method, path, op }) => `${op.operationId as string} ${method} ${path}`).sort()).toEqual(
    OPERATIONS.map((o) => `${o.operationId} ${o.method} ${o.path}`).sort(),
  );
  expect(new Set(found.map(({ op }) => op.operationId)).size).toBe(15);
});

for (const expected of OPERATIONS) {
  test(`operation ${expected.n} (${expected.operationId}): security, parameters, requirements`, () => {
    const found = operationsOf(loadDocument()).find(({ op }) => op.operationId === expected.operationId);
    expect(found, `${expected.operationId} is in the document`).toBeDefined();
    const op: Json = found?.op ?? {};

    // §5: Bearer for 1-5, 7, 9-14; none for 6 and 15; optional for 8.
    expect(op.security).toEqual(expected.security);

    // Every {template} of the path has exactly one required path parameter, and no parameter is left over.
    const templated = [...expected.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
    const params = ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'path');
    expect(params.map((p) => p.name).sort()).toEqual(templated);
    for (const p of params) {
      expect(p.required, `${String(p.name)} is required`).toBe(true);
      expect(p.schema).toEqual(PATH_PARAMS[expected.operationId]?.[p.name as string]);
    }

    // The request body is the table's request schema (none without one), and the table's sample body is valid by it.
    const schemaName = (ref: string): string => ref.replace(/^.*\//, '').slice(0, -SCHEMA_SUFFIX.length);
    const requestSchemas = refsOf(op.requestBody ?? {}).map(({ ref }) => schemaName(ref));
    expect(requestSchemas).toEqual(expected.requestSchema ? [expected.requestSchema] : []);
    if (expected.requestSchema) {
      const verdict = schemas().validate(expected.requestSchema, expected.sampleBody);
      expect(verdict.errors, `the sample body of ${expected.operationId} (src/model/operations.ts)`).toEqual([]);
    } else expect(expected.sampleBody, 'a sample body without a request schema').toBeUndefined();

    // Success is documented under '200' (status codes of errors are not shown, §7.3).
    expect(Object.keys((op.responses ?? {}) as Json)).toContain('200');

    // x-requirements: exactly the catalogue entries that name this operation.
    const listed = op['x-requirements'] as string[];
    expect(Array.isArray(listed), 'x-requirements is a list').toBe(true);
    const known = new Set(requirements().map((r) => r.id));
    expect(
      listed.filter((id) => !known.has(id)),
      'IDs not in specs/requirements.json',
    ).toEqual([]);
    expect(
      [...listed].sort(),
      `x-requirements of ${expected.operationId} in specs/openapi.yaml ` +
        `must list the catalogue entries whose operations include ${expected.n}`,
    ).toEqual(
      requirements()
        .filter((r) => r.operations.includes(expected.n))
        .map((r) => r.id)
        .sort(),
    );
  });
}

test('every $ref to ../schemas names an existing file, and every other $ref is local', () => {
  const refs = refsOf(loadDocument());
  const problems = refs.flatMap(({ at, ref }) => {
    if (ref.startsWith('#/')) return [];
    if (!ref.startsWith('../schemas/') || !ref.endsWith(SCHEMA_SUFFIX)) return [`${at}: unexpected $ref ${ref}`];
    return existsSync(resolve(OPENAPI_PATH, '..', ref)) ? [] : [`${at}: missing file ${ref}`];
  });
  expect(problems).toEqual([]);
});

test('plain-string bodies are documented as both application/json and text/plain', () => {
  const plain = new Set([
    'errors.plain-string',
    'shipping-address-create.error',
    'cart-items.response',
    'shipping-quote.error',
    'product.error',
    'prices.error',
  ]);
  const problems: string[] = [];
  for (const { op } of operationsOf(loadDocument())) {
    for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
      const content = (response.content ?? {}) as Record<string, Json>;
      const names = refsOf(content).map(({ ref }) => ref.replace(/^.*\//, '').slice(0, -SCHEMA_SUFFIX.length));
      if (names.some((n) => plain.has(n)) && !(content['application/json'] && content['text/plain'])) {
        problems.push(`${op.operationId as string} ${status}`);
      }
    }
  }
  expect(problems).toEqual([]);
});
