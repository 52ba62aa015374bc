// §2.3, §4.4, §8: category updates. utility is a number of at most 100; the schema has no lower bound, so the
// valid range probed here is the documented one, [0, 100]. Bodies start from the configured update.
import fc from 'fast-check';

type Body = Record<string, unknown>;

export const UTILITY_MAX = 100;

/** The next double after a positive finite x (nextafter(x, +∞)). */
export function nextUp(x: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) + 1n);
  return view.getFloat64(0);
}

/** The smallest double above 100: 100.00000000000001. */
export const JUST_ABOVE_MAX = nextUp(UTILITY_MAX);

/**
 * Utilities above 100. Half the draws are just above it (100.01, 100.000001, the next double), so that the
 * boundary comes up in the first runs; then other landmarks, fractional values up to 101, integers, and large
 * doubles up to Number.MAX_VALUE.
 */
export function utilityAbove100(): fc.Arbitrary<number> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(100.01, JUST_ABOVE_MAX, 100.000001), weight: 5 },
    { arbitrary: fc.constantFrom(101, 100.5, 1e9, Number.MAX_VALUE), weight: 1 },
    { arbitrary: fc.double({ min: JUST_ABOVE_MAX, max: 101, noNaN: true }), weight: 2 },
    { arbitrary: fc.integer({ min: 101, max: 2_147_483_647 }), weight: 1 },
    { arbitrary: fc.double({ min: 101, max: Number.MAX_VALUE, noNaN: true }), weight: 1 },
  );
}

/** Utilities in [0, 100], the bounds and their neighbours first. */
export function utilityInRange(): fc.Arbitrary<number> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(UTILITY_MAX, 0, 99.99, 0.01, 50, 99.999999), weight: 2 },
    { arbitrary: fc.double({ min: 0, max: UTILITY_MAX, noNaN: true }), weight: 2 },
    { arbitrary: fc.integer({ min: 0, max: UTILITY_MAX }), weight: 1 },
  );
}

/**
 * The configured update with utility replaced, and hide either way (a server may check utility only for a category
 * it shows): every other field stays valid, so a refusal can still be blamed on utility alone.
 */
export function categoryUpdateWithUtility(base: Body, utility: fc.Arbitrary<number>): fc.Arbitrary<Body> {
  return fc.tuple(utility, fc.boolean()).map(([u, hide]) => ({ ...base, utility: u, hide }));
}

/**
 * The configured update of the existing category with utility in [0, 100], every other field as configured: a refusal
 * is then the utility's. §4.4 lets an update fail for reasons of its own ("could not be updated"), so a description
 * the target refuses (a blank one, say) tells nothing of the rule: the valid-input property sends those, under
 * OP4-SUCCESS-SHAPE, which allows such a refusal.
 */
export function validCategoryUpdate(base: Body): fc.Arbitrary<Body> {
  return utilityInRange().map((utility) => ({ ...base, utility }));
}
