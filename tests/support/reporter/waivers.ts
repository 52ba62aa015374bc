// The waivers file (RSF_WAIVERS_FILE): known deviations of a target, each an ID plus a reason.
import { existsSync, readFileSync } from 'node:fs';
import type { Waiver } from './model';

export interface LoadedWaivers {
  file: string;
  waivers: Waiver[];
  /** Each problem fails the run; a file with problems waives nothing. */
  problems: string[];
}

/** A missing file means no waivers. */
export function loadWaivers(file: string, knownIds: ReadonlySet<string>): LoadedWaivers {
  if (!existsSync(file)) return { file, waivers: [], problems: [] };
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    return { file, waivers: [], problems: [`waivers file ${file} is not valid JSON: ${(e as Error).message}`] };
  }
  if (!Array.isArray(data)) return { file, waivers: [], problems: [`waivers file ${file} must hold a JSON array of {"id", "reason"}`] };

  const problems: string[] = [];
  const waivers: Waiver[] = [];
  data.forEach((entry: unknown, i) => {
    const where = `waivers file ${file}, entry ${i + 1}`;
    const { id, reason } = (entry ?? {}) as { id?: unknown; reason?: unknown };
    if (typeof id !== 'string' || !knownIds.has(id)) problems.push(`${where}: unknown requirement ID ${JSON.stringify(id)}`);
    else if (typeof reason !== 'string' || reason.trim() === '') problems.push(`${where} (${id}): a reason is required`);
    else if (waivers.some((w) => w.id === id)) problems.push(`${where}: ${id} is waived twice`);
    else waivers.push({ id, reason: reason.trim() });
  });
  return { file, waivers: problems.length > 0 ? [] : waivers, problems };
}
