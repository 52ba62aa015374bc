// §2.7: finalPrice = value × (1 + iva / 100), and how far a price may stray from it. The tolerance is stated
// once, here, and in the text of OP9-FINAL-PRICE (a self-test keeps the two in step).
import { isFiniteNumber, isObject } from './outcome';

/**
 * A price passes when |finalPrice − value × (1 + iva/100)| ≤ absolute + relative × |finalPrice|: one cent for
 * rounding to two decimals, plus 0.5% of finalPrice for rounding in earlier steps (§2.7 shows two samples only).
 */
export const FINAL_PRICE_TOLERANCE = { absolute: 0.01, relative: 0.005 } as const;

export function finalPriceTolerance(finalPrice: number): number {
  return FINAL_PRICE_TOLERANCE.absolute + FINAL_PRICE_TOLERANCE.relative * Math.abs(finalPrice);
}

export function expectedFinalPrice(value: number, iva: number): number {
  return value * (1 + iva / 100);
}

/**
 * Why a price entry's finalPrice disagrees with value and iva, or undefined
 * (also when a field is not a number: OP9-SUCCESS-SHAPE judges that).
 */
export function finalPriceProblem(entry: unknown): string | undefined {
  if (!isObject(entry)) return undefined;
  const { value, iva, finalPrice } = entry;
  if (!isFiniteNumber(value) || !isFiniteNumber(iva) || !isFiniteNumber(finalPrice)) return undefined;
  const expected = expectedFinalPrice(value, iva);
  const tolerance = finalPriceTolerance(finalPrice);
  const off = Math.abs(finalPrice - expected);
  return off <= tolerance
    ? undefined
    : `finalPrice ${finalPrice} is ${off.toFixed(4)} away from ` +
        `value × (1 + iva/100) = ${value} × ${1 + iva / 100} = ${expected.toFixed(4)}; ` +
        `the tolerance is ${tolerance.toFixed(4)}`;
}
