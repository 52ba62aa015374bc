// The requirement catalogue, specs/requirements.json, as typed data.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export type Level = 'MUST' | 'SHOULD' | 'INFO';
export const LEVELS: readonly Level[] = ['MUST', 'SHOULD', 'INFO'];

/** A requirement ID, and so a tag that names one: upper-case words joined by dashes, e.g. OP4-UTILITY-MAX. */
export const REQUIREMENT_ID = /^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$/;

export interface Requirement {
  id: string;
  /** Spec section, e.g. "4.4"; "intro" is the paragraph before §1. */
  section: string;
  level: Level;
  operations: number[];
  text: string;
  /** Why this level, by the rule of `levels`: the words of the spec it rests on, or why they are not enough. */
  levelReason?: string;
  quote?: string;
  schemas?: string[];
  /** false when no HTTP exchange can show a violation; then notObservableBecause says why. */
  observable?: boolean;
  notObservableBecause?: string;
}

export const CATALOGUE_PATH = resolve(__dirname, '../../specs/requirements.json');

let cached: Requirement[] | undefined;

export function requirements(): Requirement[] {
  cached ??= (JSON.parse(readFileSync(CATALOGUE_PATH, 'utf8')) as { requirements: Requirement[] }).requirements;
  return cached;
}

export function requirement(id: string): Requirement {
  const found = requirements().find((r) => r.id === id);
  if (!found) throw new Error(`Unknown requirement ID "${id}": it is not in specs/requirements.json`);
  return found;
}

/** "§4.4" for humans; the intro paragraph has no number. */
export function sectionLabel(section: string): string {
  return section === 'intro' ? '§intro (opening paragraph)' : `§${section}`;
}
