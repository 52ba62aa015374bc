// §2.6 and §8: the logged-in stock fields, their bounds, and the three forms of availableStockLabel.
import type { RecognitionConfig } from '../config/settings/recognition';
import { isFiniteNumber, isObject } from './outcome';

export const LOGGED_IN_FIELDS = ['stockDisplayLimit', 'availableStock', 'availableStockLabel'] as const;

type Product = Record<string, unknown>;

export const asProduct = (value: unknown): Product => (isObject(value) ? value : {});

/** Logged-in fields that carry data: present and not null. */
export function loggedInDataIn(product: Product): string[] {
  return LOGGED_IN_FIELDS.filter((f) => product[f] !== undefined && product[f] !== null);
}

/** A media type (RFC 6838 §4.2): type/subtype, then parameters if any. */
const MEDIA_TYPE = /^[a-z0-9][\w!#$&^.+-]*\/[a-z0-9][\w!#$&^.+-]*\s*(;.*)?$/i;

/** Why the description's type is no media type (§2.6: "media-type-like"), or undefined when it is one, or absent. */
export function descriptionTypeProblem(product: Product): string | undefined {
  const { description } = product;
  if (!isObject(description) || typeof description.type !== 'string') return undefined;
  return MEDIA_TYPE.test(description.type.trim()) ? undefined : `description.type ${JSON.stringify(description.type)}`;
}

/** Why an anonymous caller's product shows a cart, or undefined: a caller without a token has none (§4.8, §5.2). */
export function anonymousCartProblem(product: Product): string | undefined {
  const amount = product.amountInCart;
  return isFiniteNumber(amount) && amount > 0 ? `amountInCart ${amount}, to a caller without a token` : undefined;
}

/** Why availableStock is out of [0, stockDisplayLimit], or undefined when it is within (or a bound is null). */
export function stockBoundsProblem(product: Product): string | undefined {
  const { availableStock: stock, stockDisplayLimit: limit } = product;
  if (!isFiniteNumber(stock)) return undefined;
  if (stock < 0) return `availableStock ${stock} is below 0`;
  if (isFiniteNumber(limit) && stock > limit) return `availableStock ${stock} is above stockDisplayLimit ${limit}`;
  return undefined;
}

type LabelForm = { form: 'none' } | { form: 'exact'; n: number } | { form: 'at-least'; n: number };

export function labelForm(label: string, config: RecognitionConfig): LabelForm | undefined {
  const trimmed = label.trim();
  const atLeast = config.stockLabelAtLeast.exec(trimmed);
  if (atLeast) return { form: 'at-least', n: Number(atLeast[1]) };
  const exact = config.stockLabelExact.exec(trimmed);
  if (exact) return { form: 'exact', n: Number(exact[1]) };
  if (config.stockLabelNone.test(trimmed)) return { form: 'none' };
  return undefined;
}

/** Whether availableStock is above 0 and at stockDisplayLimit: where exact stock is no longer displayed (§2.6). */
export function atDisplayLimit(product: Product): boolean {
  const { availableStock: stock, stockDisplayLimit: limit } = product;
  return isFiniteNumber(stock) && stock > 0 && stock === limit;
}

/**
 * Why availableStockLabel reads "N units" at the display limit, where stockDisplayLimit is the "threshold from which
 * exact stock is no longer displayed" (§2.6); undefined otherwise. A warning only: OP8-STOCK-LABEL accepts it.
 */
export function exactLabelAtLimitProblem(product: Product, config: RecognitionConfig): string | undefined {
  const { availableStockLabel: label, availableStock: stock } = product;
  if (typeof label !== 'string' || !atDisplayLimit(product)) return undefined;
  const shown = `availableStock ${String(stock)} = stockDisplayLimit`;
  return labelForm(label, config)?.form === 'exact'
    ? `availableStockLabel ${JSON.stringify(label)} at the limit (${shown}): ` +
        'exact stock is displayed from the threshold on'
    : undefined;
}

/**
 * Why availableStockLabel is not one of the three forms, or disagrees with availableStock; undefined when fine.
 * At the limit both "X units or more" and "N units" (N = limit) are accepted: §2.6 does not say which.
 */
export function stockLabelProblem(product: Product, config: RecognitionConfig): string | undefined {
  const { availableStockLabel: label, availableStock: stock, stockDisplayLimit: limit } = product;
  if (typeof label !== 'string') return undefined;
  const shown = JSON.stringify(label);
  const form = labelForm(label, config);
  if (!form)
    return (
      `availableStockLabel ${shown} has none of the three forms of §2.6 ` +
      '(RSF_STOCK_LABEL_NONE, RSF_STOCK_LABEL_EXACT, RSF_STOCK_LABEL_AT_LEAST)'
    );
  if (!isFiniteNumber(stock)) return undefined;
  const says = `availableStockLabel ${shown} with availableStock ${stock} and stockDisplayLimit ${String(limit)}`;
  // A limit of 0 shows no exact stock at all, so "0 units or more" is the label at the limit too.
  const atZeroLimit = form.form === 'at-least' && form.n === 0 && limit === 0;
  if (stock <= 0)
    return form.form === 'none' || (form.form === 'exact' && form.n === 0) || atZeroLimit
      ? undefined
      : `${says}: no stock must read as the "no stock" label`;
  if (form.form === 'none') return `${says}: the "no stock" label while stock is available`;
  const atLimit = isFiniteNumber(limit) ? stock >= limit : false;
  if (form.form === 'exact')
    return form.n === stock ? undefined : `${says}: the label's number ${form.n} is not availableStock`;
  if (!isFiniteNumber(limit))
    return form.n === stock ? undefined : `${says}: "X units or more" with X other than availableStock`;
  return atLimit && form.n === limit
    ? undefined
    : `${says}: "X units or more" is for stock at the limit, with X = stockDisplayLimit`;
}
