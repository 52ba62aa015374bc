// The mutation matrix's rounds: faults grouped so that one project (one worker) runs many of them, and every test
// of a round is sent to exactly one fault. See tests/self/mutation.config.ts.
import { basename } from 'node:path';
import type { Fault } from '../../../reference/server';
import type { TestRef } from '../../../src/report/model';
import type { ListedTest } from './conformance-list';

/** The tests that run against `fault`: those tagged with the requirement it breaks. */
export function testsOf(fault: Fault, tests: readonly ListedTest[]): ListedTest[] {
  return tests.filter((t) => t.tags.includes(fault.breaks));
}

/**
 * Faults in rounds, largest first into the first round that has room (greedy colouring): two faults share a round
 * only if they break different requirements and no test carries both requirements' tags.
 */
export function faultRounds(faults: readonly Fault[], tests: readonly ListedTest[]): Fault[][] {
  const rounds: Fault[][] = [];
  const keysOf = new Map(faults.map((f) => [f, new Set(testsOf(f, tests).map(testKey))]));
  const clash = (a: Fault, b: Fault): boolean =>
    a.breaks === b.breaks || [...(keysOf.get(a) ?? [])].some((key) => keysOf.get(b)?.has(key));
  const bySize = [...faults].sort((a, b) => (keysOf.get(b)?.size ?? 0) - (keysOf.get(a)?.size ?? 0));
  for (const fault of bySize) {
    const round = rounds.find((r) => r.every((other) => !clash(fault, other)));
    if (round) round.push(fault);
    else rounds.push([fault]);
  }
  return rounds;
}

function testKey(t: ListedTest): string {
  return `${t.file}:${t.line} ${t.title}`;
}

/** Whether a report's test reference (title path, repository-relative file) is this listed test. */
export function isListed(ref: TestRef, test: ListedTest): boolean {
  return (
    basename(ref.file) === test.file &&
    ref.line === test.line &&
    (ref.title === test.title || ref.title.endsWith(` › ${test.title}`))
  );
}
