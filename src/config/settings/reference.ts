// The reference: the mode, fault, port and latency of the embedded reference and of `npm run reference`.
import { ConfigProblem, type Parsed, S, type SettingTable, bounded, text } from './setting';

const port = (raw: string): number => {
  if (!/^\d+$/.test(raw) || Number(raw) > 65535)
    throw new ConfigProblem(`expected a port number from 0 to 65535, got "${raw}"`);
  return Number(raw);
};

export const REFERENCE_SETTINGS = {
  referenceMode: S(
    'RSF_REFERENCE_MODE',
    '',
    text,
    'Embedded reference, and the URL `npm run reference` prints: ' +
      'one of its conforming modes (reference, deployment, nulls, flaky, expiring-token; see reference/README.md).',
  ),
  referenceFault: S(
    'RSF_REFERENCE_FAULT',
    '',
    text,
    'Embedded reference, and the URL `npm run reference` prints: ' +
      'one of its faults (reference/faults.ts), e.g. to see what a failure looks like.',
  ),
  referencePort: S(
    'RSF_REFERENCE_PORT',
    '4010',
    port,
    "Port of `npm run reference`; 0 picks a free one. The suite's own embedded reference always takes a free port.",
  ),
  referenceLatencyMs: S(
    'RSF_REFERENCE_LATENCY_MS',
    '0',
    bounded(0, 10000),
    'Embedded reference and `npm run reference` only: milliseconds each answer waits, ' +
      'as if the target were that far away (0 to 10000; `npm run bench` uses it).',
  ),
} satisfies SettingTable;

export type ReferenceConfig = Parsed<typeof REFERENCE_SETTINGS>;
