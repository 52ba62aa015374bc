// Reporting: where the reports go, which waivers and baseline they read, and what fails the run.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, ConfigProblem, type Parsed, S, type SettingTable, flag, oneOf, optional, text } from './setting';

/** The exit policies of RSF_FAIL_ON. */
export const FAIL_ON = ['must', 'regression', 'strict'] as const;
export type FailOn = (typeof FAIL_ON)[number];

const existingFile = (raw: string): string => {
  if (raw !== '' && !existsSync(resolve(raw))) throw new ConfigProblem(`no such file: ${resolve(raw)}`);
  return raw;
};

/**
 * The exit policy that RSF_FAIL_ON and RSF_STRICT ask for together: RSF_STRICT=true is another way to ask for strict,
 * so it contradicts any other RSF_FAIL_ON; regression needs a baseline to compare with.
 */
export function exitPolicy(failOn: FailOn | undefined, strict: boolean, baseline: string): FailOn {
  if (strict && failOn !== undefined && failOn !== 'strict') {
    throw new ConfigError([`RSF_STRICT=true asks for RSF_FAIL_ON=strict, but RSF_FAIL_ON=${failOn}: set one of them`]);
  }
  const policy = failOn ?? (strict ? 'strict' : 'must');
  if (policy === 'regression' && baseline === '') {
    throw new ConfigError(['RSF_FAIL_ON=regression needs RSF_BASELINE, the conformance.json of an earlier run']);
  }
  return policy;
}

export const REPORTING_SETTINGS = {
  reportsDir: S(
    'RSF_REPORTS_DIR',
    'reports',
    text,
    'Where the conformance reports are written; a relative path is taken from the folder of playwright.config.ts. ' +
      'A folder that cannot be made or written to, or that another run is writing its reports to, stops the run at ' +
      'start (ERROR).',
  ),
  strict: S('RSF_STRICT', 'false', flag, 'Fail the run on SHOULD warnings too: another way to set RSF_FAIL_ON=strict.'),
  waiversFile: S(
    'RSF_WAIVERS_FILE',
    'conformance-waivers.json',
    text,
    'JSON file of waivers [{"id", "reason", "owner"?, "expires"?: "YYYY-MM-DD"}]; ' +
      'a waived requirement does not fail the run until its waiver expires. Missing file: no waivers.',
  ),
  failOn: S(
    'RSF_FAIL_ON',
    '',
    optional(oneOf(FAIL_ON)),
    'What fails the run (exit code 1): "must", any MUST failure; ' +
      '"regression", only a MUST failure that the baseline (RSF_BASELINE) did not have; ' +
      '"strict", MUST failures and SHOULD warnings. Empty: must, or strict with RSF_STRICT=true.',
  ),
  baseline: S(
    'RSF_BASELINE',
    '',
    existingFile,
    'conformance.json of an earlier run: each requirement is compared with it ' +
      '(regressed, fixed, still failing, new, gone), first in every report. ' +
      'Needed by RSF_FAIL_ON=regression; a file that cannot be read is a configuration error.',
  ),
} satisfies SettingTable;

export type ReportingConfig = Parsed<typeof REPORTING_SETTINGS>;
