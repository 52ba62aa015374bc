// How a test tells the conformance reporter what it checked. Both sides import this module only.

/** Annotation type of one requirement check; description is `<ID> <outcome>`, e.g. `OP4-UTILITY-MAX failed`. */
export const CHECK_ANNOTATION = 'conformance-check';
/** Annotation type carrying the fast-check seed of a property test (description: `seed=<n> path=<p>` or `seed=<n>`). */
export const SEED_ANNOTATION = 'fast-check-seed';
/** Annotation type carrying how many requests a test sent (description: a number). */
export const REQUESTS_ANNOTATION = 'requests-sent';
/** Attachment name prefix of a failed check's evidence (JSON of Evidence); the full name is `evidence <ID>`. */
export const EVIDENCE_ATTACHMENT_PREFIX = 'evidence ';

export type CheckOutcome = 'passed' | 'failed';

export interface ExchangeRecord {
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response: { status: number; contentType: string; bodyExcerpt: string };
  curl: string;
}

/** What a failed check attaches. Every string in it is already redacted. */
export interface Evidence {
  requirement: string;
  level: string;
  section: string;
  operation: string;
  message: string;
  schemaErrors: string[];
  exchanges: ExchangeRecord[];
  seed?: string;
  replay?: string;
}

export function checkAnnotation(id: string, outcome: CheckOutcome): { type: string; description: string } {
  return { type: CHECK_ANNOTATION, description: `${id} ${outcome}` };
}

export function parseCheckAnnotation(a: { type: string; description?: string }): { id: string; outcome: CheckOutcome } | undefined {
  if (a.type !== CHECK_ANNOTATION || !a.description) return undefined;
  const [id, outcome] = a.description.split(' ');
  if (!id || (outcome !== 'passed' && outcome !== 'failed')) return undefined;
  return { id, outcome };
}
