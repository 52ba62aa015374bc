// The HTML report's matrix, on plain data: every requirement lands in exactly one kind of check, and a cell's status
// is what the tests of *that* operation (and credential variant) said.
import { type Requirement, requirements } from '../../src/model/catalogue';
import { expect, test } from '../../src/playwright/fixtures';
import { CREDENTIAL_VARIANTS, MATRIX_COLUMNS, checkKind, columnsOf, kindsMatching } from '../../src/report/check-kinds';
import { type MatrixRow, buildMatrix } from '../../src/report/matrix';
import { type TestRecord, buildReport } from '../../src/report/model';

test('every requirement with operations is of exactly one kind of check', () => {
  const misfits = requirements()
    .filter((r) => r.operations.length > 0)
    .map((r) => ({ id: r.id, kinds: kindsMatching(r.id) }))
    .filter((m) => m.kinds.length !== 1);
  expect(misfits, 'requirements that match no kind, or several: extend KIND_PATTERNS in check-kinds.ts').toEqual([]);
});

test('every column has requirements; each credential column the refusals of each Bearer operation', () => {
  const catalogue = requirements();
  for (const column of MATRIX_COLUMNS) {
    const behind = catalogue.filter((r) => columnsOf(r).some((c) => c.key === column.key));
    expect(behind.length, `requirements behind column ${column.key}`).toBeGreaterThan(0);
  }
  expect(new Set(MATRIX_COLUMNS.map((c) => c.key)).size).toBe(MATRIX_COLUMNS.length);
  const refusals = catalogue.filter((r) => /^OP\d+-AUTH-REQUIRED$/.test(r.id));
  expect(refusals.length).toBeGreaterThan(0);
  for (const r of refusals) {
    expect(checkKind(r.id)).toBe('credentials');
    expect(columnsOf(r).map((c) => c.variant)).toEqual(CREDENTIAL_VARIANTS.filter((v) => v !== 'non-bearer'));
  }
  // The token under another scheme, or alone: a SHOULD of its own, in that column alone (indep113).
  expect(columnsOf({ id: 'HTTP-AUTH-BEARER-ONLY' }).map((c) => c.variant)).toEqual(['non-bearer']);
  // A token that is not needed is about sending none.
  expect(columnsOf({ id: 'OP6-NO-AUTH-HEADER' }).map((c) => c.key)).toEqual(['credentials-none']);
});

/** A test of the real catalogue's requirements, passed unless told otherwise. */
function record(title: string, tags: string[], over: Partial<TestRecord> = {}): TestRecord {
  return {
    title,
    file: 'tests/conformance/x.spec.ts',
    line: 1,
    project: 'reference',
    tags,
    status: 'passed',
    flaky: false,
    durationMs: 1,
    checks: tags.map((id) => ({ id, outcome: 'passed' as const })),
    evidence: [],
    errors: [],
    ...over,
  };
}

/** The same test, with one of its checks failed and its evidence attached. */
function failing(test: TestRecord, id: string): TestRecord {
  return {
    ...test,
    status: 'failed',
    checks: test.checks.map((c) => (c.id === id ? { id, outcome: 'failed' as const } : c)),
    evidence: [{ id, raw: `${id} broken` }],
  };
}

function reportOf(tests: TestRecord[], catalogue: readonly Requirement[] = requirements()) {
  const run = { metadata: {}, strict: false, waivers: [], errors: [], startTime: new Date(0), durationMs: 1 };
  return buildReport({ ...run, catalogue, tests });
}

function matrixOf(tests: TestRecord[], catalogue: readonly Requirement[] = requirements()): MatrixRow[] {
  return buildMatrix(reportOf(tests, catalogue), catalogue);
}

function status(matrix: MatrixRow[], operation: number, column: string): string | undefined {
  const row = matrix.find((r) => r.operation.number === operation);
  return row?.cells.find((c) => c.column.key === column)?.status;
}

test('a row per operation, a cell per column; a kind with no requirement there has no status (no check)', () => {
  const matrix = matrixOf([]);
  expect(matrix.map((r) => r.operation.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
  for (const row of matrix) expect(row.cells.map((c) => c.column.key)).toEqual(MATRIX_COLUMNS.map((c) => c.key));
  expect(status(matrix, 4, 'rules')).toBe('untested');
  // Operation 12 (DELETE, no body) has no field to type; operation 6 needs no token, so it has no refusal to check.
  expect(status(matrix, 12, 'field-types')).toBeUndefined();
  expect(status(matrix, 6, 'credentials-unknown-token')).toBeUndefined();
});

test('a failure spanning operations fails only the cell of the operation whose test saw it', () => {
  const op9 = record('GET /prices · operation 9 · §4.9 › refuses a request without a token', [
    'OP9-AUTH-REQUIRED',
    'GEN-ERROR-CONTENT-TYPE',
  ]);
  const op4 = record('PATCH /miCuenta/misCategorias · operation 4 · §4.4 › refuses an unknown category', [
    'OP4-UNKNOWN-CATEGORY',
    'GEN-ERROR-CONTENT-TYPE',
  ]);
  const matrix = matrixOf([failing(op9, 'GEN-ERROR-CONTENT-TYPE'), op4]);
  expect(status(matrix, 9, 'content-type')).toBe('failed');
  expect(status(matrix, 4, 'content-type')).toBe('passed');
  expect(status(matrix, 4, 'rules')).toBe('passed');
  // Operation 1 was never exercised: its part of the shared requirement is untested, not passed.
  const cell = matrix[0]?.cells.find((c) => c.column.key === 'content-type');
  expect(cell?.entries.find((e) => e.row.id === 'GEN-ERROR-CONTENT-TYPE')?.status).toBe('untested');
});

test('without "operation N" in its title, a test belongs to the operation of its single-operation tags', () => {
  const property = record('§4.4 and §8 · utility · properties › refuses every utility above 100', [
    'OP4-UTILITY-MAX',
    'HTTP-INVALID-INPUT-4XX',
  ]);
  const matrix = matrixOf([failing(property, 'HTTP-INVALID-INPUT-4XX')]);
  expect(status(matrix, 4, 'error-shape')).toBe('warning');
  expect(status(matrix, 1, 'error-shape')).toBe('untested');
});

test('a refused credential fails only its own variant column, read from the credentials annotation', () => {
  const variants = credentialRecords();
  const failed = variants.map((t) => (t.credentials === 'empty-bearer' ? failing(t, 'OP4-AUTH-REQUIRED') : t));
  expect(CREDENTIAL_VARIANTS.map((v) => status(matrixOf(failed), 4, `credentials-${v}`))).toEqual([
    'passed',
    'passed',
    'passed',
    'failed',
  ]);
  // The token under another scheme, taken: a SHOULD of its own, a warning in that column only (indep113).
  const taken = variants.map((t) => (t.credentials === 'non-bearer' ? failing(t, 'HTTP-AUTH-BEARER-ONLY') : t));
  expect(CREDENTIAL_VARIANTS.map((v) => status(matrixOf(taken), 4, `credentials-${v}`))).toEqual([
    'passed',
    'passed',
    'warning',
    'passed',
  ]);
});

/** A test of operation 4 per credential variant, tagged as credentialProbes tags it. */
function credentialRecords(): TestRecord[] {
  return CREDENTIAL_VARIANTS.map((variant) =>
    record(
      `PATCH /miCuenta/misCategorias · operation 4 · §4.4 › refuses ${variant}`,
      [variant === 'non-bearer' ? 'HTTP-AUTH-BEARER-ONLY' : 'OP4-AUTH-REQUIRED'],
      { credentials: variant },
    ),
  );
}

test('a near-miss token that is accepted fails the unknown-token column only', () => {
  const nearMiss = record(
    'PATCH /miCuenta/misCategorias · operation 4 · §4.4 › refuses the other case',
    ['OP4-AUTH-REQUIRED'],
    {
      credentials: 'other-case',
    },
  );
  const matrix = matrixOf([...credentialRecords(), failing(nearMiss, 'OP4-AUTH-REQUIRED')]);
  expect(CREDENTIAL_VARIANTS.map((v) => status(matrix, 4, `credentials-${v}`))).toEqual([
    'passed',
    'failed',
    'passed',
    'passed',
  ]);
});

test('evidence that names no test of the requirement fails every cell of it rather than none', () => {
  const test = record('GET /prices · operation 9 · §4.9 › lists prices', ['GEN-V1-PREFIX']);
  const report = reportOf([failing(test, 'GEN-V1-PREFIX')]);
  const row = report.requirements.find((r) => r.id === 'GEN-V1-PREFIX');
  if (!row?.evidence[0]) throw new Error('GEN-V1-PREFIX has no evidence');
  row.evidence[0] = { ...row.evidence[0], test: 'a test the report does not list' };
  const matrix = buildMatrix(report, requirements());
  expect(status(matrix, 1, 'success')).toBe('failed');
  expect(status(matrix, 9, 'success')).toBe('failed');
});
