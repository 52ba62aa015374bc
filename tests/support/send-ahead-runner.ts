// The runner's part of send-ahead (send-ahead.ts). Against a far target without a rate cap, the runner sends the
// request of every probe of the run as the run begins, while the workers start, in the order the workers will need
// them. Each answer is left in the run directory as a record, which the probe's worker takes in place of sending.
//
// At the first sign of trouble (an answer throttled or missing, the breaker open, the run paced, the target found to
// be near after all) the runner stops and declines the rest: each of those tests sends its own request, paced,
// retried and counted as usual. A record holds a fingerprint of the request, never the request: no token is written.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FullConfig } from '@playwright/test/reporter';
import { validBodies } from './bodies';
import { type Config, loadConfig } from './config';
import { type Delivery, type OutgoingRequest, Transport, requestFingerprint } from './http';
import { type PlannedTest, type SentAhead, requestAhead } from './send-ahead';
import { apiBase, targetIsFar } from './target';
import type { WireResponse } from './wire';

const RECORDS_DIR = 'sent-ahead';
/** How often a worker looks for the record of its test while the runner's request is out. */
const POLL_MS = 5;

type AnswerRecord = {
  kind: 'answer';
  fingerprint: string;
  response: Omit<WireResponse, 'body'> & { body: string };
};
export type RunnerRecord = AnswerRecord | { kind: 'declined' };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Where the runner leaves its records in the run directory `dir`. */
export const recordsDir = (dir: string): string => join(dir, RECORDS_DIR);

const recordFile = (dir: string, testId: string): string => join(recordsDir(dir), `${testId}.json`);

/** Whether the runner sends the run's probes: against a far target (RSF_TARGET_DISTANCE) with no rate cap. */
export function runnerSendsAhead(config: Config): boolean {
  return targetIsFar(config) && config.maxRequestsPerSecond === 0;
}

/** Round robin over the groups: the workers start on the first groups at once, each with its first test. */
function inOrderOfNeed(groups: PlannedTest[][]): PlannedTest[] {
  const ordered: PlannedTest[] = [];
  for (let i = 0; groups.some((group) => i < group.length); i++) {
    for (const group of groups) if (i < group.length) ordered.push(group[i] as PlannedTest);
  }
  return ordered;
}

interface Queued {
  testId: string;
  request: OutgoingRequest;
}

export class RunnerSendAhead {
  private inFlight = 0;
  private stopped = false;

  private constructor(
    private readonly transport: Transport,
    private readonly dir: string,
    private readonly queue: Queued[],
  ) {}

  /**
   * For the plan reporter, at onBegin: the runner's sender for the planned `groups` of the run whose directory is
   * `dir`, or none when it sends nothing.
   */
  static forRun(fullConfig: FullConfig, dir: string, groups: PlannedTest[][]): RunnerSendAhead | undefined {
    let config: Config;
    let base: string;
    try {
      config = loadConfig();
      base = apiBase(config);
    } catch {
      return undefined; // the global setup said what is wrong
    }
    if (!runnerSendsAhead(config)) return undefined;
    const bodies = validBodies(config);
    const queue = inOrderOfNeed(groups).flatMap((test) => {
      const request = test.profiled ? undefined : requestAhead(test, config, bodies, () => base);
      return request ? [{ testId: test.id, request }] : [];
    });
    if (queue.length === 0) return undefined;
    mkdirSync(recordsDir(dir), { recursive: true });
    return new RunnerSendAhead(new Transport(config, base, fullConfig.workers), dir, queue);
  }

  /** The tests whose requests the runner sends (or declines): their workers wait for a record. */
  get testIds(): string[] {
    return this.queue.map((q) => q.testId);
  }

  start(): void {
    this.transport.onAnswer = () => this.pump();
    this.pump();
  }

  private pump(): void {
    if (this.transport.isPaced()) this.declineRest();
    while (!this.stopped && this.queue.length > 0 && this.inFlight < this.transport.sendAheadWindow()) {
      void this.send(this.queue.shift() as Queued);
    }
    // The answers came quickly: the target is near after all, and the tests are better off sending their own.
    if (this.inFlight === 0 && this.transport.sendAheadWindow() === 0) this.declineRest();
  }

  private async send({ testId, request }: Queued): Promise<void> {
    this.inFlight++;
    let delivery: Extract<Delivery, { kind: 'answer' }> | undefined;
    try {
      delivery = await this.transport.deliverOnce(request);
    } catch {
      delivery = undefined; // an error of the request itself: its test meets it again, and fails on it
    }
    this.inFlight--;
    if (delivery) {
      writeRunnerRecord(this.dir, testId, answerRecord(request, delivery.response));
    } else {
      writeRunnerRecord(this.dir, testId, DECLINED);
      this.declineRest();
    }
    this.pump();
  }

  private declineRest(): void {
    this.stopped = true;
    for (const { testId } of this.queue.splice(0)) writeRunnerRecord(this.dir, testId, DECLINED);
  }
}

/** The runner's record of its answer to `request`: the request by its fingerprint only. */
export function answerRecord(request: OutgoingRequest, { body, ...response }: WireResponse): RunnerRecord {
  return {
    kind: 'answer',
    fingerprint: requestFingerprint(request),
    response: { ...response, body: body.toString('base64') },
  };
}

/** The runner's record of a test it leaves to its worker. */
export const DECLINED: RunnerRecord = { kind: 'declined' };

/** Writes the record of a test in the run directory `dir`, whole or not at all: a worker never reads half of one. */
export function writeRunnerRecord(dir: string, testId: string, record: RunnerRecord): void {
  const file = recordFile(dir, testId);
  writeFileSync(`${file}.part`, JSON.stringify(record), { mode: 0o600 });
  renameSync(`${file}.part`, file);
}

/** The runner's record of a test, once it is written; undefined if it is not there by `deadline`. */
async function runnerRecord(file: string, deadline: number): Promise<RunnerRecord | undefined> {
  for (;;) {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as RunnerRecord;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || Date.now() >= deadline) return undefined;
    }
    await sleep(POLL_MS);
  }
}

/**
 * For the worker of a test the runner sends, in the run directory `dir`: the runner's answer, or its own request
 * where the runner declined, answered another request, or wrote nothing within `waitMs` (0: no limit).
 */
export function sentByRunner(dir: string, testId: string, waitMs: number, transport: Transport): SentAhead {
  return {
    async deliver(request, sendItself) {
      const deadline = waitMs > 0 ? Date.now() + waitMs : Number.POSITIVE_INFINITY;
      const record = await runnerRecord(recordFile(dir, testId), deadline);
      if (record?.kind !== 'answer' || record.fingerprint !== requestFingerprint(request)) return sendItself();
      const response = { ...record.response, body: Buffer.from(record.response.body, 'base64') };
      transport.observedLatency(response.durationMs);
      return { kind: 'answer', response, attempts: [] };
    },
  };
}
