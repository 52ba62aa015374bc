// A resource of the settings that a request used up where a conforming target then refuses it: the product of
// RSF_DELETE_PRODUCT_ID, deleted. Recorded in the run directory by its URL (a run may send to several targets: the
// mutation matrix's profiles), so that the test that consumes the resource, in whichever worker, does not blame the
// target for its absence. An external target keeps what a run deleted: the uses of the run are also kept in the
// reports folder (CONSUMED_FILE), and the next run with that folder knows them.
import { createHash } from 'node:crypto';
import { readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTINGS } from '../config/config';
import { SETTING_CHECKS } from '../config/setting-checks';
import { isObject } from '../model/operations';
import type { SettingKey } from './conformance';
import { firstRunFile, runFile } from './run-files';

/** In the reports folder: the resources earlier runs against external targets used up, by their URL's hash. */
export const CONSUMED_FILE = '.rsf-consumed.json';
/** The most uses the file keeps, the latest: a run adds one or two. */
const KEPT = 200;

/** A use of a resource: the request that used it up (a line naming it, without secrets), and when. */
interface Use {
  request: string;
  at: string;
}

const hashOf = (url: string): string => createHash('sha256').update(url).digest('hex').slice(0, 32);
const THIS_RUN = 'consumed-';
const EARLIER_RUN = 'consumed-earlier-';

/** Records that `request` used up the resource at `url`: the first use of the run stands. */
export function recordConsumed(url: string, request: string): void {
  firstRunFile(`${THIS_RUN}${hashOf(url)}`, JSON.stringify({ request, at: new Date().toISOString() }));
}

const asUse = (value: unknown): Use | undefined =>
  isObject(value) && typeof value.request === 'string' && typeof value.at === 'string'
    ? { request: value.request, at: value.at }
    : undefined;

/** JSON text read back, or undefined for none, or for what is not JSON (a file cut short). */
const parsed = (text: string | undefined): unknown => {
  try {
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
};

const useOf = (text: string | undefined): Use | undefined => asUse(parsed(text));

/** Why a refusal to the test that consumes `setting`'s resource at `url` cannot be judged, if it was used up. */
export function consumedEarlier(setting: SettingKey, url: string): string | undefined {
  const name = SETTINGS[setting].name;
  const inThisRun = useOf(runFile(`${THIS_RUN}${hashOf(url)}`));
  if (inThisRun)
    return (
      `${name} was used up earlier in this run by ${inThisRun.request}, which the target should have refused: ` +
      'the refusal of the request with the token cannot be judged'
    );
  const inEarlierRun = useOf(runFile(`${EARLIER_RUN}${hashOf(url)}`));
  const howToCheck = SETTING_CHECKS[setting]?.howToCheck;
  if (inEarlierRun)
    return (
      `${name} was used up by an earlier run against this target (${inEarlierRun.request}, at ${inEarlierRun.at}), ` +
      `and a conforming target refuses it since: the refusal cannot be judged. Give each run one still there` +
      `${howToCheck ? ` (${howToCheck})` : ''}. Earlier runs' uses are kept in RSF_REPORTS_DIR's ${CONSUMED_FILE}`
    );
  return undefined;
}

/** The uses kept in `reportsDir`; a file that is missing or not ours counts as none. */
function keptUses(reportsDir: string): Record<string, Use> {
  const kept = parsed(runFile(CONSUMED_FILE, reportsDir));
  if (!isObject(kept)) return {};
  const uses: Record<string, Use> = {};
  for (const [hash, value] of Object.entries(kept)) {
    const use = asUse(value);
    if (/^[0-9a-f]{32}$/.test(hash) && use) uses[hash] = use;
  }
  return uses;
}

/** For the global setup: the uses earlier runs kept in `reportsDir`, made known to this run's workers. */
export function carryConsumedIn(reportsDir: string, runDir: string): void {
  for (const [hash, use] of Object.entries(keptUses(reportsDir)))
    writeFileSync(join(runDir, `${EARLIER_RUN}${hash}`), JSON.stringify(use));
}

/** For the global teardown: the uses of this run, added to those kept in `reportsDir` (the latest KEPT). */
export function keepConsumed(runDir: string, reportsDir: string): void {
  const uses = keptUses(reportsDir);
  let added = 0;
  for (const name of readdirSync(runDir).filter((n) => n.startsWith(THIS_RUN) && !n.startsWith(EARLIER_RUN))) {
    const use = useOf(runFile(name, runDir));
    const hash = name.slice(THIS_RUN.length);
    if (!use) continue;
    delete uses[hash]; // re-inserted last: the latest use
    uses[hash] = use;
    added++;
  }
  if (added === 0) return;
  const latest = Object.fromEntries(Object.entries(uses).slice(-KEPT));
  const file = join(reportsDir, CONSUMED_FILE);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(latest, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}
