// State that every worker of a run shares, and that outlives a worker (Playwright starts a new one after a failed
// test): the circuit breaker and the throttle. It lives in files of a run directory, which the global setup creates
// and names in RSF_RUN_STATE_DIR; workers inherit the runner's environment.
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { makeRunFolder } from './run-folders';
import type { SlowDown } from './slow-downs';

export const RUN_STATE_ENV = 'RSF_RUN_STATE_DIR';

/**
 * Requests in a row, over all workers, that got no usable answer before the breaker opens: no HTTP answer at all, or
 * only throttled ones until the retries ran out. The row must name at least two operations: one slow or throttled
 * operation stops alone (OPERATION_THRESHOLD), and a dead target's next operation then opens the breaker.
 */
export const BREAKER_THRESHOLD = 3;

/**
 * Requests of one operation in a row, over all workers, that got no answer, or only throttled ones to the end of their
 * retries (no usable answer of it in between), before that operation is no longer sent: its later tests are
 * inconclusive, the rest of the run is judged.
 */
export const OPERATION_THRESHOLD = 2;

/**
 * When the breaker opens on requests that got no answer, the run pauses this long, then asks for the price list once:
 * a usable answer closes the breaker and the run goes on (a restart behind a gateway, a deploy's few seconds of
 * 502), anything else keeps it open for the rest of the run.
 */
export const RESUME_PAUSE_MS = 5000;
/** Pauses in a run: the next opening of the breaker after these is for good. */
export const MAX_RESUMES = 5;

/** A throttled run never goes slower than this, over all workers (requests per second). */
export const FLOOR_RATE_PER_SECOND = 1;
/** Without a new 429, the throttled rate doubles this often: the run speeds up again, slowly. */
export const RECOVERY_DOUBLING_MS = 10_000;
/** 429s within this time after a slow-down answer requests sent before it: they do not slow the run again. */
const SLOWDOWN_HOLD_MS = 1000;
/** A throttled rate recovered this far is no throttle any more. */
const UNTHROTTLED_RATE_PER_SECOND = 10_000;
/** How often a worker rereads the shared throttle (a 429 of its own applies at once). */
const THROTTLE_REREAD_MS = 250;

/** What became of a request that got no usable answer. */
export type Unanswered = 'no-answer' | 'throttled';

/** Why the breaker is open. */
export interface BreakerTrip {
  /** ISO time the first of the unanswered requests in a row was sent: when the target stopped answering. */
  since: string;
  /** ISO time the breaker opened. */
  openedAt: string;
  /** "GET /v1/item/1001": method and path, no query, redacted by the caller. */
  lastRequest: string;
  /** 'throttled' when every request of the row was throttled until its retries ran out: the target never let up. */
  cause: Unanswered;
  /** Why that last request got no usable answer, e.g. "no complete answer within 10000 ms". */
  lastProblem?: string;
  /**
   * Set while the breaker is half open: requests wait until then (epoch ms), when one of them asks for the price
   * list; its usable answer closes the breaker. Unset once it is open for good.
   */
  resumeAt?: number;
  /** What the price list got when it was asked again after the pause, once the breaker stayed open. */
  askedAgain?: string;
}

interface ThrottleRecord {
  /** Requests per second over the run, right after the last slow-down. */
  ratePerSecond: number;
  /** Epoch ms of that slow-down. */
  at: number;
}

const BREAKER_FILE = 'breaker-open.json';
/** When the outages began whose pauses ended with the breaker closed again, a line each. */
const RESUMED_FILE = 'resumed.ndjson';
const NO_ANSWERS_FILE = 'unanswered-in-a-row';
const THROTTLE_FILE = 'throttle.json';
const THROTTLE_NOTICED_FILE = 'throttle-noticed';
/** A slow-down handed over by the runner, one file each, until a test takes it (takeHandedSlowDowns). */
const HANDED_SLOW_DOWN = /^handed-slow-down-\d+-\d+\.json$/;
let handedOver = 0;
/** Per operation, by a hash of its label: hashed once, as each request asks. */
const operationNames = new Map<string, string>();
/** Per operation (by a hash of its label): its unanswered requests in a row, and why it is no longer sent. */
function operationFile(operation: string, suffix: string): string {
  let name = operationNames.get(operation);
  if (name === undefined) {
    name = `operation-${createHash('sha256').update(operation).digest('hex').slice(0, 16)}`;
    operationNames.set(operation, name);
  }
  return `${name}.${suffix}`;
}

interface RowEntry {
  sentAt: number;
  how: Unanswered;
  /** The operation's label, or the request line of a request without one. */
  key?: string;
}

/** The shared state of the run, through files: every method is cheap enough to call for each request. */
export class RunState {
  private trip: BreakerTrip | undefined;
  private throttle: ThrottleRecord | undefined;
  private throttleReadAt = 0;
  private throttleMtime = 0;

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  private path(name: string): string {
    return join(this.dir, name);
  }

  /**
   * The breaker's trip, once any worker has opened it: half open (resumeAt) until the price list asked again after
   * the pause answers, or for good. One stat per call until it is open for good.
   */
  breakerOpen(): BreakerTrip | undefined {
    if (this.trip) return this.trip;
    const file = this.path(BREAKER_FILE);
    if (!statSync(file, { throwIfNoEntry: false })) return undefined;
    let trip: BreakerTrip;
    try {
      trip = JSON.parse(readFileSync(file, 'utf8')) as BreakerTrip;
    } catch {
      return undefined; // gone, or replaced, as another process read it: the next call reads it
    }
    if (trip.resumeAt === undefined) this.trip = trip; // for good: read once
    return trip;
  }

  /** True for one process only: it asks for the price list after the pause of `trip`. */
  claimResumption(trip: BreakerTrip): boolean {
    return this.claim(`resume-claimed-${Date.parse(trip.openedAt)}`);
  }

  /** The price list answered after the pause: the breaker closes, and its count starts again. */
  resumed(trip: BreakerTrip): void {
    appendFileSync(this.path(RESUMED_FILE), `${trip.since}\n`);
    truncateSync(this.path(NO_ANSWERS_FILE));
    // Every count starts again: an operation stopped in the outage is sent again (indep96: 72 tests inconclusive
    // after a resumed deploy, their operations stopped by two 502s in the same second).
    for (const name of readdirSync(this.dir))
      if (/^operation-[0-9a-f]+\.(stopped|unanswered)$/.test(name)) rmSync(this.path(name), { force: true });
    rmSync(this.path(BREAKER_FILE), { force: true });
  }

  /** The price list got no usable answer either after the pause: the breaker stays open for the rest of the run. */
  stayOpen(trip: BreakerTrip, askedAgain: string): void {
    const { resumeAt: _, ...open } = trip;
    this.replace(BREAKER_FILE, JSON.stringify({ ...open, askedAgain }));
  }

  /** The pauses of this run that ended with the breaker closed again: when each outage began (ISO time). */
  resumptions(): string[] {
    const file = this.path(RESUMED_FILE);
    return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  }

  /** Writes `name` whole or not at all: a reader never sees half of it. */
  private replace(name: string, text: string): void {
    const temporary = this.path(`${name}.${process.pid}.tmp`);
    writeFileSync(temporary, text);
    renameSync(temporary, this.path(name));
  }

  /** True for the first process to claim `name` only: the file is made once, exclusively. */
  private claim(name: string): boolean {
    try {
      writeFileSync(this.path(name), '', { flag: 'wx' });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
  }

  /**
   * Why `operation` is no longer sent, once any worker stopped it, until a pause of the breaker ends with the target
   * serving again (resumed). One stat per call, and a read of its few bytes while it is stopped.
   */
  operationStopped(operation: string): string | undefined {
    const file = this.path(operationFile(operation, 'stopped'));
    if (!statSync(file, { throwIfNoEntry: false })) return undefined;
    try {
      return readFileSync(file, 'utf8') || undefined; // '' while being written: the next call reads it
    } catch {
      return undefined; // removed as the run resumed
    }
  }

  /**
   * A request (of `operation`) got a usable answer (not a throttled one): the count of unanswered requests in a row
   * starts again, and so does the operation's own.
   */
  answered(operation?: string): void {
    const files = [NO_ANSWERS_FILE, ...(operation === undefined ? [] : [operationFile(operation, 'unanswered')])];
    for (const name of files) {
      const file = this.path(name);
      if ((statSync(file, { throwIfNoEntry: false })?.size ?? 0) > 0) truncateSync(file);
    }
  }

  /**
   * A request sent at `sentAt` got no usable answer. Returns the trip when this one opened the breaker (or it was
   * open). Each worker appends a line (an append of a few bytes is atomic), so the count spans workers.
   */
  unanswered(
    sentAt: number,
    request: string,
    how: Unanswered = 'no-answer',
    operation?: string,
    detail?: string,
  ): BreakerTrip | undefined {
    if (operation !== undefined) this.operationUnanswered(operation, how, detail);
    const file = this.path(NO_ANSWERS_FILE);
    appendFileSync(file, `${JSON.stringify({ sentAt, how, key: operation ?? request } satisfies RowEntry)}\n`);
    const row = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as RowEntry);
    if (row.length < BREAKER_THRESHOLD) return this.breakerOpen();
    // A row of one operation is that operation's trouble, not the target's (it stops alone, above).
    if (new Set(row.map((r) => r.key ?? '')).size < 2) return this.breakerOpen();
    const cause: Unanswered = row.every((r) => r.how === 'throttled') ? 'throttled' : 'no-answer';
    // A target that did not answer may be back in a moment (a restart); one that throttled to the end of every retry
    // has had its waits.
    const pause = cause === 'no-answer' && this.resumptions().length < MAX_RESUMES;
    const trip: BreakerTrip = {
      since: new Date(row[0]?.sentAt ?? sentAt).toISOString(),
      openedAt: new Date().toISOString(),
      lastRequest: request,
      cause,
      ...(detail !== undefined && { lastProblem: detail }),
      ...(pause && { resumeAt: Date.now() + RESUME_PAUSE_MS }),
    };
    try {
      // The first worker to open it writes why; the others read that.
      writeFileSync(this.path(BREAKER_FILE), JSON.stringify(trip), { flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    return this.breakerOpen() ?? trip;
  }

  /**
   * Counts an unanswered request of `operation`; at OPERATION_THRESHOLD in a row, it is no longer sent. Throttled
   * through every retry counts too: a gateway's limit on one route would otherwise hold each of its tests through
   * all its retries, and slow the whole run down with each 429.
   */
  private operationUnanswered(operation: string, how: Unanswered, detail: string | undefined): void {
    const file = this.path(operationFile(operation, 'unanswered'));
    appendFileSync(file, '.');
    const inARow = readFileSync(file, 'utf8').length;
    if (inARow < OPERATION_THRESHOLD) return;
    const last = detail === undefined ? '' : ` (the last: ${detail})`;
    const rest = 'the rest of the run goes on';
    const why =
      how === 'throttled'
        ? `not sent, because the target throttled every attempt of its last ${inARow} requests, to the end of ` +
          'their retries; the rest of the run goes on. To let them through: a lower RSF_MAX_REQUESTS_PER_SECOND, ' +
          "or a higher RSF_RETRY_MAX_WAIT_MS to wait out the target's Retry-After"
        : `not sent, because its last ${inARow} requests got no usable answer${last}; ${rest}`;
    try {
      writeFileSync(this.path(operationFile(operation, 'stopped')), why, { flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }

  /**
   * For the runner, which runs no test (its preflight, its sending ahead): keeps a halving of the run's pace until a
   * worker's test takes it into its annotations, so that every report counts it, a sharded run's merge included.
   */
  handOverSlowDown(slowDown: SlowDown): void {
    // Whole or not there: a worker never reads half of it.
    this.replace(`handed-slow-down-${process.pid}-${++handedOver}.json`, JSON.stringify(slowDown));
  }

  /**
   * The slow-downs handed over and not yet taken, each to one taker only, over all processes: a taker claims a file
   * by renaming it, which only one can. One directory read per call.
   */
  takeHandedSlowDowns(): SlowDown[] {
    const taken: SlowDown[] = [];
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return taken; // the run has ended (Ctrl-C removes its directory as workers still end)
    }
    for (const name of names) {
      if (!HANDED_SLOW_DOWN.test(name)) continue;
      const claimed = this.path(`${name}.taken-${process.pid}`);
      try {
        renameSync(this.path(name), claimed);
      } catch {
        continue; // another process took it first
      }
      taken.push(JSON.parse(readFileSync(claimed, 'utf8')) as SlowDown);
      unlinkSync(claimed);
    }
    return taken;
  }

  /** True for the run's first throttled answer only, over all workers: the file is made once, exclusively. */
  firstThrottled(): boolean {
    return this.claim(THROTTLE_NOTICED_FILE);
  }

  /** The run's throttled rate (requests per second over all workers) at `now`, or undefined when not throttled. */
  throttledRate(now = Date.now()): number | undefined {
    if (now - this.throttleReadAt >= THROTTLE_REREAD_MS) {
      this.throttleReadAt = now;
      const mtime = statSync(this.path(THROTTLE_FILE), { throwIfNoEntry: false })?.mtimeMs ?? 0;
      if (mtime !== this.throttleMtime) {
        this.throttleMtime = mtime;
        this.throttle = this.readThrottle();
      }
    }
    if (!this.throttle) return undefined;
    const rate = this.throttle.ratePerSecond * 2 ** (Math.max(0, now - this.throttle.at) / RECOVERY_DOUBLING_MS);
    return rate >= UNTHROTTLED_RATE_PER_SECOND ? undefined : rate;
  }

  private readThrottle(): ThrottleRecord | undefined {
    try {
      return JSON.parse(readFileSync(this.path(THROTTLE_FILE), 'utf8')) as ThrottleRecord;
    } catch {
      return undefined;
    }
  }

  /**
   * The target throttled a request after accepting about `acceptedRate` requests per second over the run: every
   * worker's pace halves from there (its send interval doubles), down to the floor. Returns the new rate, or
   * undefined when a slow-down had just happened (a burst of 429s answers requests sent before it).
   */
  slowDown(acceptedRate: number, now = Date.now()): number | undefined {
    const current = this.readThrottle();
    this.throttleReadAt = 0; // reread at the next request
    if (current && now - current.at < SLOWDOWN_HOLD_MS) return undefined;
    const recovered = this.throttledRate(now) ?? Number.POSITIVE_INFINITY;
    const ratePerSecond = Math.max(FLOOR_RATE_PER_SECOND, Math.min(recovered, acceptedRate) / 2);
    const temporary = this.path(`${THROTTLE_FILE}.${process.pid}`);
    writeFileSync(temporary, JSON.stringify({ ratePerSecond, at: now } satisfies ThrottleRecord));
    renameSync(temporary, this.path(THROTTLE_FILE)); // atomic: readers see the old record or the new one
    this.throttle = { ratePerSecond, at: now };
    this.throttleMtime = 0;
    return ratePerSecond;
  }
}

let shared: RunState | undefined;

/**
 * This process's view of the run's state: the directory the global setup named, or (a process started without it,
 * e.g. a self-test's own worker) one of its own, removed when the process ends.
 */
export function runState(): RunState {
  if (shared) return shared;
  let dir = process.env[RUN_STATE_ENV];
  if (!dir) {
    const own = makeRunFolder('run');
    process.on('exit', () => rmSync(own, { recursive: true, force: true }));
    dir = own;
  }
  shared = new RunState(dir);
  return shared;
}

/** A replay sends the recorded run's nonce (RSF_TARGET_URL=har:…): the requests it sends hold it. */
export const RUN_NONCE_ENV = 'RSF_RUN_NONCE';

const nonceOf = (dir: string): string => createHash('sha256').update(dir).digest('hex').slice(0, 8);

/** A text of this run only, the same in the runner and every worker: from the run directory's random name. */
export function runNonce(): string {
  return process.env[RUN_NONCE_ENV] || nonceOf(runState().dir);
}

/** For the runner, at the end: this run's nonce, without recreating a run directory already removed. */
export function runNonceOfThisRun(): string | undefined {
  return process.env[RUN_NONCE_ENV] || (madeByGlobalSetup === undefined ? undefined : nonceOf(madeByGlobalSetup));
}

/** The run directory the global setup made in this process (the runner's), if it ran: `--list` runs none. */
let madeByGlobalSetup: string | undefined;

/** For the runner: the directory of the run being run, or undefined when no run is (tests are only listed). */
export function runDirOfThisRun(): string | undefined {
  return madeByGlobalSetup;
}

/** The slow-downs the runner handed over that no test took, gathered as the run directory goes. */
let unclaimed: SlowDown[] = [];

/**
 * For the conformance reporter, in the runner, at the end: the slow-downs no test took (one the runner heard after
 * the last test had ended). A shard's blob holds the tests' alone.
 */
export function takeUnclaimedSlowDowns(): SlowDown[] {
  const taken = unclaimed;
  unclaimed = [];
  return taken;
}

/** For the global setup: a fresh run directory, named in the environment that the workers inherit. */
export function createRunStateDir(): { dir: string; remove: () => void } {
  const dir = makeRunFolder('run');
  process.env[RUN_STATE_ENV] = dir;
  madeByGlobalSetup = dir;
  shared = undefined;
  const remove = (): void => {
    if (existsSync(dir)) unclaimed.push(...new RunState(dir).takeHandedSlowDowns());
    rmSync(dir, { recursive: true, force: true });
  };
  return { dir, remove };
}
