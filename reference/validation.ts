// Request validation with the suite's own schemas (the one Ajv instance of schema-registry), so
// the reference never restates a rule. A fault may ignore some ajv errors; combinators (if/then/else,
// anyOf, oneOf) are then re-evaluated, so that ignoring `required placeId` makes the `else` branch pass.
import type { ErrorObject } from 'ajv';
import { formatErrors, schemas } from '../src/model/schema-registry';
import { Rejection } from './reply';

export type ErrorFilter = (error: ErrorObject) => boolean;

const COMBINATORS = new Set(['anyOf', 'oneOf', 'if']);
const RANGE_KEYWORDS = new Set(['maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum']);

/**
 * Schema-path prefixes of the branches of a combinator error
 * (ajv reports `if` at .../if, its branches at .../then and .../else).
 */
function branchPrefixes(c: ErrorObject): string[] {
  if (c.keyword === 'if') {
    const parent = c.schemaPath.slice(0, -'/if'.length);
    return [`${parent}/then/`, `${parent}/else/`];
  }
  return [`${c.schemaPath}/`];
}

const within = (inner: string, outer: string): boolean => inner === outer || inner.startsWith(`${outer}/`);

/** The innermost combinator error whose branch holds `e`, if any. */
function ownerOf(e: ErrorObject, combinators: ErrorObject[]): ErrorObject | undefined {
  let best: ErrorObject | undefined;
  let bestLength = -1;
  for (const c of combinators) {
    if (c === e || !within(e.instancePath, c.instancePath)) continue;
    const prefix = branchPrefixes(c).find((p) => e.schemaPath.startsWith(p));
    if (prefix && prefix.length > bestLength) {
      best = c;
      bestLength = prefix.length;
    }
  }
  return best;
}

/** The errors that still make the data invalid once `ignored` ones are dropped (leaves only). */
export function blockingErrors(errors: ErrorObject[], ignored: ErrorFilter): ErrorObject[] {
  const combinators = errors.filter(
    (e) => COMBINATORS.has(e.keyword) && !(e.keyword === 'oneOf' && e.params.passingSchemas),
  );
  const children = new Map<ErrorObject | undefined, ErrorObject[]>();
  for (const e of errors) {
    const owner = ownerOf(e, combinators);
    children.set(owner, [...(children.get(owner) ?? []), e]);
  }
  const blockingUnder = (owner: ErrorObject | undefined): ErrorObject[] =>
    (children.get(owner) ?? []).flatMap((e) => blocking(e));
  const blocking = (e: ErrorObject): ErrorObject[] => {
    if (!combinators.includes(e)) return ignored(e) ? [] : [e];
    if (e.keyword === 'if') return blockingUnder(e);
    // anyOf/oneOf fail only while every branch still fails; with allErrors, every branch reported errors.
    const byBranch = new Map<string, ErrorObject[]>();
    for (const child of children.get(e) ?? []) {
      const branch = child.schemaPath.slice(e.schemaPath.length + 1).split('/')[0] ?? '';
      byBranch.set(branch, [...(byBranch.get(branch) ?? []), ...blocking(child)]);
    }
    const branches = [...byBranch.values()];
    return branches.length > 0 && branches.every((b) => b.length > 0) ? branches.flat() : [];
  };
  return blockingUnder(undefined);
}

/** Validates a request body; throws the Rejection the op answers with. */
export function validateRequest(schemaName: string, data: unknown, ignored: ErrorFilter = () => false): void {
  // The registry's validator, compiled once; it throws for a schema that is not in schemas/.
  const validate = schemas().validator(schemaName);
  if (validate(data)) return;
  const errors = blockingErrors(validate.errors ?? [], ignored);
  if (errors.length === 0) return;
  const keywords = [...new Set(errors.map((e) => e.keyword))];
  const missing = [
    ...new Set(errors.filter((e) => e.keyword === 'required').map((e) => String(e.params.missingProperty))),
  ];
  if (missing.length > 0) {
    throw new Rejection('missing-data', missing.map((field) => `${field} is mandatory`).join('; '), missing, keywords);
  }
  const kind = errors.every((e) => RANGE_KEYWORDS.has(e.keyword)) ? 'rule' : 'invalid';
  throw new Rejection(kind, `invalid request body: ${formatErrors(errors).join('; ')}`, undefined, keywords);
}
