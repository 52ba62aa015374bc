// The waivers file (RSF_WAIVERS_FILE): known deviations of a target, each an ID and a reason, optionally an owner
// and a date it expires on. An expired waiver no longer waives; a waiver that matches no failure is stale.
import { existsSync, readFileSync } from 'node:fs';
import { withoutByteOrderMark } from '../model/text';

export interface Waiver {
  id: string;
  reason: string;
  /** Who answers for the deviation, e.g. a team or a ticket's assignee. */
  owner?: string;
  /** Last day the waiver holds, YYYY-MM-DD (UTC); from the day after, the requirement counts again. */
  expires?: string;
}

/**
 * waiving: in force, and it hides a failure or warning of this run; stale: in force, but it matches no failure (the
 * requirement passed, or was not judged); expired: past its date, it waives nothing.
 */
export type WaiverState = 'waiving' | 'stale' | 'expired';

export interface WaiverStatus extends Waiver {
  state: WaiverState;
  /** state === 'waiving' (the field older reports had). */
  used: boolean;
  /** What became of it, e.g. "expired on 2025-01-31: OP4-UTILITY-MAX counts again (failed)". */
  note: string;
}

export interface LoadedWaivers {
  file: string;
  waivers: Waiver[];
  /** Each problem is a configuration error; a file with problems waives nothing. */
  problems: string[];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isCalendarDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

/** Past its last day on `today` (UTC). */
export function isExpired(waiver: Waiver, today: Date): boolean {
  return waiver.expires !== undefined && today.toISOString().slice(0, 10) > waiver.expires;
}

const optionalText = (value: unknown): value is string | undefined => value === undefined || typeof value === 'string';

/** A missing file means no waivers. */
export function loadWaivers(file: string, knownIds: ReadonlySet<string>): LoadedWaivers {
  if (!existsSync(file)) return { file, waivers: [], problems: [] };
  let data: unknown;
  try {
    data = JSON.parse(withoutByteOrderMark(readFileSync(file, 'utf8')));
  } catch (e) {
    return { file, waivers: [], problems: [`waivers file ${file} is not valid JSON: ${(e as Error).message}`] };
  }
  if (!Array.isArray(data)) {
    const shape = '{"id", "reason", "owner"?, "expires"?: "YYYY-MM-DD"}';
    return { file, waivers: [], problems: [`waivers file ${file} must hold a JSON array of ${shape}`] };
  }

  const problems: string[] = [];
  const waivers: Waiver[] = [];
  data.forEach((entry: unknown, i) => {
    const where = `waivers file ${file}, entry ${i + 1}`;
    const { id, reason, owner, expires } = (entry ?? {}) as Record<string, unknown>;
    if (typeof id !== 'string' || !knownIds.has(id))
      problems.push(`${where}: unknown requirement ID ${JSON.stringify(id)}`);
    else if (typeof reason !== 'string' || reason.trim() === '')
      problems.push(`${where} (${id}): a reason is required`);
    else if (!optionalText(owner)) problems.push(`${where} (${id}): owner must be a string`);
    else if (expires !== undefined && (typeof expires !== 'string' || !isCalendarDate(expires))) {
      problems.push(`${where} (${id}): expires must be a date, YYYY-MM-DD, got ${JSON.stringify(expires)}`);
    } else if (waivers.some((w) => w.id === id)) problems.push(`${where}: ${id} is waived twice`);
    else {
      waivers.push({
        id,
        reason: reason.trim(),
        ...(owner?.trim() && { owner: owner.trim() }),
        ...(typeof expires === 'string' && { expires }),
      });
    }
  });
  return { file, waivers: problems.length > 0 ? [] : waivers, problems };
}

/** Each waiver with what became of it in this run. */
export function waiverStatuses(
  waivers: readonly Waiver[],
  // A requirement's row (model.ts, RequirementRow), as far as waivers read it: no import, no cycle.
  rows: readonly { id: string; status: string; waivedStatus?: 'failed' | 'warning' }[],
  today: Date,
): WaiverStatus[] {
  const statusOf = new Map(rows.map((r) => [r.id, r.status]));
  return waivers.map((w) => {
    const status = statusOf.get(w.id) ?? 'untested';
    let state: WaiverState;
    let note: string;
    if (isExpired(w, today)) {
      state = 'expired';
      const counts = status === 'failed' || status === 'warning' ? `: ${w.id} counts again (${status})` : '';
      note = `expired on ${w.expires}${counts}`;
    } else if (status === 'waived') {
      state = 'waiving';
      note = `waives a ${rows.find((r) => r.id === w.id)?.waivedStatus === 'warning' ? 'warning' : 'failure'}`;
    } else {
      state = 'stale';
      note = `matches no failure: the requirement is ${status}`;
    }
    return { ...w, state, used: state === 'waiving', note };
  });
}
