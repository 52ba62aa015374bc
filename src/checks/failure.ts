// A failed check as data, after Schemathesis' `Failure`: a title, a message, the schema errors and the exchanges
// that show it. The judge (conformance.ts) adds the requirement, its level and section, and turns it into Evidence.
import type { Evidence } from './check-protocol';
import type { Exchange } from '../http/exchange';

export interface FailureData {
  /** Short, e.g. "Response does not match the schema". */
  title: string;
  /** "expected: … / received: …", without the exchange (the judge shows it). */
  detail: string;
  schemaErrors?: readonly string[];
  /** The exchanges that show the failure, when they are not the one judged (e.g. the retry with a token). */
  exchanges?: readonly Exchange[];
  /**
   * The failure itself shows that the settings the request carries are sound (the same request with the token
   * succeeded): no hint names them.
   */
  settingsCleared?: boolean;
  /** A property's counterexample: its fast-check seed and the command line that replays it. */
  seed?: string;
  replay?: string;
}

/** Thrown by an assertion when the exchange breaks its requirement. */
export class CheckFailure extends Error {
  override name = 'CheckFailure';

  constructor(readonly data: FailureData) {
    super(`${data.title}\n${data.detail}`);
  }
}

/** A CheckFailure of title and "expected / received", the common case. */
export function failure(
  title: string,
  expected: string,
  received: string,
  schemaErrors: readonly string[] = [],
): CheckFailure {
  return new CheckFailure({ title, detail: expectedReceived(expected, received), schemaErrors });
}

/** The error a failed MUST check throws: its message is the redacted explanation, `evidence` the same as data. */
export class RequirementFailure extends Error {
  override name = 'RequirementFailure';

  constructor(readonly evidence: Evidence) {
    super(evidence.message);
    // The location is the test's (the check's step is located there); the machinery's frames would only hide it.
    this.stack = `${this.name}: ${this.message}`;
  }
}

/**
 * `error` as a boxed step shows it: located at `location` (the test's line), without the check machinery's frames.
 */
export function atLocation(error: unknown, location: { file: string; line: number; column: number }): unknown {
  if (!(error instanceof Error)) return error;
  const header = (error.stack ?? `${error.name}: ${error.message}`).split('\n    at ')[0];
  error.stack = `${header}\n    at ${location.file}:${location.line}:${location.column}`;
  return error;
}

/** "expected: … / received: …", the way Playwright's matchers say it. */
export function expectedReceived(expected: string, received: string): string {
  return `expected: ${expected}\nreceived: ${received}`;
}
