// Against an external target, writes are off unless the user opts in: a request that a conforming target may carry
// out is not sent. Such a test carries the label tag @writes, derived from its checks when it is declared, and the
// `judging` fixture skips it: one declaration, one gate.
import { requirement } from '../model/catalogue';
import type { Check } from './checks';
import type { Operation } from '../model/operations';

export const WRITES_TAG = '@writes';

export const WRITES_OFF =
  'Skipped: a conforming target may carry out this request, and writes are off against an external target. ' +
  'Set RSF_ALLOW_WRITES=true to run it.';

/** Whether a test tagged `tags` is skipped and its requests never sent: it may write, and writes are off. */
export function skippedAsWrite(writesEnabled: boolean, tags: readonly string[]): boolean {
  return !writesEnabled && tags.includes(WRITES_TAG);
}

/**
 * Whether a conforming target may carry the request out: it writes, and it is meant to succeed, or its refusal is
 * not a MUST (a conforming target may then accept it), as the first check says.
 */
export function mayWrite(operation: Operation, checks: readonly Check[]): boolean {
  const first = checks[0];
  if (!operation.writes || !first) return false;
  if (first.expects === 'success') return true;
  const primary = first.assertions[0];
  return first.expects === 'rejection' && primary !== undefined && requirement(primary.id).level !== 'MUST';
}
