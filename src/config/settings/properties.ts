// Properties: fast-check's seed, replay path and number of runs.
import { type Parsed, S, type SettingTable, bounded, optional, text } from './setting';

export const PROPERTY_SETTINGS = {
  fcSeed: S(
    'RSF_FC_SEED',
    '',
    text,
    'fast-check seed, to replay a run. Empty: one random seed per run, recorded in the report.',
  ),
  fcPath: S(
    'RSF_FC_PATH',
    '',
    text,
    'fast-check path of a counterexample to replay, with RSF_FC_SEED, as printed by a failing property.',
  ),
  fcNumRuns: S(
    'RSF_FC_NUM_RUNS',
    '',
    optional(bounded(1, 100000)),
    'Runs per property (a tenth of it for each of the 14 valid-input properties). Empty: 100 against the embedded ' +
      'reference, 25 against an external target.',
  ),
} satisfies SettingTable;

/** As loadConfig resolves them: the number of runs follows the target. */
export type PropertiesConfig = Omit<Parsed<typeof PROPERTY_SETTINGS>, 'fcNumRuns'> & { fcNumRuns: number };
