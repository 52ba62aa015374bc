// A resource of the settings that a request of the run used up where a conforming target refuses it: the product of
// RSF_DELETE_PRODUCT_ID, deleted by a request without valid credentials. Recorded in the run directory by its URL (a
// run may send to several targets: the mutation matrix's profiles), so that the test that consumes the resource, in
// whichever worker, does not blame the target for its absence.
import { createHash } from 'node:crypto';
import { SETTINGS } from '../config/config';
import type { SettingKey } from './conformance';
import { firstRunFile, runFile } from './run-files';

const fileOf = (url: string): string => `consumed-${createHash('sha256').update(url).digest('hex').slice(0, 32)}`;

/** Records that `request` (a line that names it, without secrets) used up the resource at `url`. */
export function recordConsumed(url: string, request: string): void {
  firstRunFile(fileOf(url), request);
}

/** Why a refusal to the test that consumes `setting`'s resource at `url` cannot be judged, if it was used up. */
export function consumedEarlier(setting: SettingKey, url: string): string | undefined {
  const request = runFile(fileOf(url));
  if (request === undefined) return undefined;
  return (
    `${SETTINGS[setting].name} was used up earlier in this run by ${request}, which the target should have ` +
    'refused: the refusal of the request with the token cannot be judged'
  );
}
