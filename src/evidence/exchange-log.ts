// Recording a run (issue 24, item 1): each worker appends the HAR entries of its exchanges, already redacted and cut,
// to a file of its own in a folder the global setup names (RSF_EXCHANGES_DIR); the conformance reporter, in the
// runner, gathers them into reports/exchanges.har at the end. A line per entry, to a file kept open, written once per
// test (ExchangeLog.flush).
import { existsSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Entry } from 'har-format';
import type { Delivery } from '../http/delivery';
import type { OutgoingRequest } from '../http/exchange';
import { makeRunFolder } from '../http/run-folders';
import { sentHeaders } from '../http/client-headers';
import type { BreakerTrip } from '../http/run-state';
import { type ExchangeRecord, type HarOptions, harOfEntries, toHarEntry } from './har';

export const EXCHANGES_DIR_ENV = 'RSF_EXCHANGES_DIR';

/** For the global setup: a folder for this run's entries, named in the environment the workers inherit. */
export function createExchangesDir(): string {
  const dir = makeRunFolder('exchanges');
  process.env[EXCHANGES_DIR_ENV] = dir;
  return dir;
}

/** What the recorder knows of the exchange besides the delivery: the test that judged it. */
export interface ExchangeContext {
  test?: { id?: string; title: string };
  requirements: readonly string[];
  credentials: string;
}

/**
 * The records of one delivery: each throttled attempt (status and Retry-After, which is all the retry layer keeps
 * of it), then the answer, or the failure as status 0. A delivery never sent (breaker open) has none.
 */
export function recordsOf(request: OutgoingRequest, delivery: Delivery, context: ExchangeContext): ExchangeRecord[] {
  if (delivery.kind === 'not-sent') return [];
  const common = {
    method: request.method,
    url: request.url,
    // As sent: with the client's own, Accept-Encoding and User-Agent (wire.ts).
    requestHeaders: sentHeaders(request.headers),
    ...(request.body !== undefined && { requestBody: request.body }),
    ...(context.test && { test: context.test }),
    requirements: context.requirements,
    credentials: context.credentials,
  };
  const last =
    delivery.kind === 'no-answer'
      ? { durationMs: delivery.failure.durationMs, status: 0, headers: {}, body: new Uint8Array(0) }
      : delivery.response;
  const waited = delivery.attempts.reduce((sum, a) => sum + a.waitedMs, 0);
  let at = Date.now() - last.durationMs - waited;
  const records: ExchangeRecord[] = delivery.attempts.map((attempt, i) => {
    const record: ExchangeRecord = {
      ...common,
      status: attempt.status,
      responseHeaders: attempt.retryAfter === undefined ? {} : { 'retry-after': attempt.retryAfter },
      responseBody: new Uint8Array(0),
      startedAt: new Date(at).toISOString(),
      durationMs: 0,
      attempt: i + 1,
      attemptKind: i === 0 ? 'first' : 'throttled-retry',
    };
    at += attempt.waitedMs;
    return record;
  });
  const attempt = records.length + 1;
  const final: ExchangeRecord =
    delivery.kind === 'no-answer'
      ? {
          ...common,
          status: 0,
          responseHeaders: {},
          responseBody: new Uint8Array(0),
          error: delivery.failure.message,
          startedAt: new Date(at).toISOString(),
          durationMs: delivery.failure.durationMs,
          attempt,
          attemptKind: attempt === 1 ? 'first' : 'throttled-retry',
        }
      : {
          ...common,
          status: delivery.response.status,
          ...(delivery.response.statusText !== undefined && { statusText: delivery.response.statusText }),
          ...(delivery.response.httpVersion !== undefined && { httpVersion: `HTTP/${delivery.response.httpVersion}` }),
          responseHeaders: delivery.response.headers as ExchangeRecord['responseHeaders'],
          responseBody: delivery.response.body,
          ...(delivery.response.truncated && {
            truncated: {
              limitBytes: delivery.response.body.byteLength,
              ...(delivery.response.announcedBytes !== undefined && {
                announcedBytes: delivery.response.announcedBytes,
              }),
            },
          }),
          startedAt: new Date(at).toISOString(),
          durationMs: delivery.response.durationMs,
          attempt,
          attemptKind: attempt === 1 ? 'first' : 'throttled-retry',
        };
  return [...records, final];
}

/**
 * This process's entries in `dir`, as lines of its own file. Lines wait in memory until flush(), which the fixtures
 * call after each test and which runs as the process exits: a property test of a hundred exchanges costs one write.
 */
export class ExchangeLog {
  private lines: string[] = [];
  private fd: number | undefined;

  constructor(
    private readonly dir: string,
    private readonly options: HarOptions,
  ) {
    process.once('exit', () => this.flush());
  }

  /** Adds the entries of `records`, redacted and cut as the options say. */
  append(records: readonly ExchangeRecord[]): void {
    for (const r of records) this.lines.push(`${JSON.stringify(toHarEntry(r, this.options))}\n`);
  }

  flush(): void {
    if (this.lines.length === 0) return;
    const bytes = Buffer.from(this.lines.join(''), 'utf8');
    this.lines = [];
    this.fd ??= openSync(join(this.dir, `${process.pid}.ndjson`), 'a');
    for (let written = 0; written < bytes.length; ) written += writeSync(this.fd, bytes, written);
  }
}

const TRIP_FILE = 'breaker-trip.json';

/**
 * For the global teardown, which removes the run directory before the reporter ends: keeps why the breaker opened,
 * so that the recording can say so (a replay reports the tests that sent nothing after it as not run).
 */
export function keepBreakerTrip(dir: string | undefined, trip: BreakerTrip | undefined): void {
  if (dir && trip && existsSync(dir)) writeFileSync(join(dir, TRIP_FILE), JSON.stringify(trip));
}

/** What a keep… function of the global setup or teardown left in `dir` under `name`, if anything. */
function kept(dir: string, name: string): string | undefined {
  const path = join(dir, name);
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/** The trip keepBreakerTrip kept, if the breaker opened. */
export function keptBreakerTrip(dir: string): BreakerTrip | undefined {
  const trip = kept(dir, TRIP_FILE);
  return trip === undefined ? undefined : (JSON.parse(trip) as BreakerTrip);
}

const REFUSED_FILE = 'refused.txt';

/**
 * For the global teardown: keeps why the run stopped sending once the target refused its requests (redacted by the
 * caller), so that the recording says so and a replay reports the tests that sent nothing after it as not run.
 */
export function keepRefusal(dir: string | undefined, reason: string | undefined): void {
  if (dir && reason !== undefined && existsSync(dir)) writeFileSync(join(dir, REFUSED_FILE), reason);
}

/** What keepRefusal kept, if the target refused the run's requests. */
export function keptRefusal(dir: string): string | undefined {
  return kept(dir, REFUSED_FILE);
}

const SETUP_STOP_FILE = 'stopped-before-tests.txt';

/**
 * For the global setup, which stopped the run before any test (a failed preflight or token command): keeps why
 * (redacted by the caller), so that the recording says so and a replay stops alike, instead of judging tests that
 * the recorded run never ran.
 */
export function keepSetupStop(dir: string | undefined, message: string): void {
  if (dir && existsSync(dir)) writeFileSync(join(dir, SETUP_STOP_FILE), message);
}

/** What keepSetupStop kept, if the global setup stopped the run. */
export function keptSetupStop(dir: string): string | undefined {
  return kept(dir, SETUP_STOP_FILE);
}

/** How every line of ExchangeLog starts (toHarEntry's first field): lines sort by it without being parsed. */
const LINE_START = '{"startedDateTime":"';

/** When the entry of a line was sent: ISO 8601 in UTC, whose text sorts as its time does. */
function sentAt(line: string): string {
  if (line.startsWith(LINE_START)) return line.slice(LINE_START.length, line.indexOf('"', LINE_START.length));
  return (JSON.parse(line) as Entry).startedDateTime;
}

/** The entry lines every process appended, in the order they were sent. */
function gatherLines(dir: string): string[] {
  const lines: string[] = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.ndjson'))) {
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) if (line !== '') lines.push(line);
  }
  // A stable sort: the entries of one request keep their order when their times are equal.
  const keyed = lines.map((line) => ({ line, at: sentAt(line) }));
  keyed.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return keyed.map((k) => k.line);
}

/**
 * For the reporter: writes the HAR of the entries in `dir` to `path`, removes `dir`, and returns the HAR's size. The
 * entries are spliced in as the workers wrote them, each already a JSON text, rather than parsed and written again.
 */
export function writeRecording(
  dir: string,
  path: string,
  options: Omit<HarOptions, 'redact' | 'maxBodyBytes'>,
): { bytes: number; entries: number } {
  const lines = gatherLines(dir);
  const empty = JSON.stringify(harOfEntries([], options));
  // The log's fields before "entries" are the version and the creator, whose strings cannot hold an unescaped quote.
  const text = empty.replace('"entries":[]', () => `"entries":[${lines.join(',')}]`);
  writeFileSync(path, text);
  rmSync(dir, { recursive: true, force: true });
  return { bytes: Buffer.byteLength(text), entries: lines.length };
}
