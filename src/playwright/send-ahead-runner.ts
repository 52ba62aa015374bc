// The runner's part of send-ahead (send-ahead.ts). Against a far target without a rate cap, the runner sends the
// declared requests of the run's tests as the run begins, while the workers start: the probes' first, in the order
// the workers will need them, then the links' writes and the properties' sampled inputs. A link's read leaves as
// soon as its write is answered. When a test's requests are all answered, their answers are left
// in the run directory as the test's record, which its worker takes in place of sending them.
//
// At the first sign of trouble (an answer throttled or missing, the breaker open, the run paced, the target found to
// be near after all) the runner stops sending: each test then sends what the runner did not answer, paced, retried
// and counted as usual (a connection of the runner's refused or reset is left for the tests to count: deliverOnce).
// A record holds the fingerprints of the requests, never the requests: no token is written.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FullConfig } from '@playwright/test/reporter';
import { validBodies } from '../model/bodies';
import { type Config, loadConfig } from '../config/config';
import { type Delivery, type OutgoingRequest, Transport, requestFingerprint } from '../http/http';
import { type PlannedTest, type SentAhead, followUpAhead, requestsAhead } from './send-ahead';
import { apiBase, targetIsFar } from '../config/target';
import { MAX_SOCKETS_PER_HOST, type WireResponse, keepConnectionsPerHost } from '../http/wire';

const RECORDS_DIR = 'sent-ahead';
/**
 * The runner sends for every worker, so it may have out twice what one worker may (Transport.sendAheadWindow): 200
 * requests at most without a rate cap, on any machine. At 150 ms that is about 1,300 answers a second, more than two
 * workers judge; a bound that grew with the cores would grow the burst a target sees with them.
 */
const RUNNER_WINDOWS = 2;
/** How often a worker looks for the record of its test while the runner's requests are out. */
const POLL_MS = 5;

type RecordedResponse = Omit<WireResponse, 'body'> & { body: string };

/** The runner's answers to a test's requests, by request fingerprint; a request it did not answer is not there. */
export interface RunnerRecord {
  answers: Record<string, RecordedResponse>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Where the runner leaves its records in the run directory `dir`. */
export const recordsDir = (dir: string): string => join(dir, RECORDS_DIR);

const recordFile = (dir: string, testId: string): string => join(recordsDir(dir), `${testId}.json`);

/** Whether the runner sends the run's declared requests: against a far target (RSF_TARGET_DISTANCE) with no cap. */
export function runnerSendsAhead(config: Config): boolean {
  return targetIsFar(config) && config.maxRequestsPerSecond === 0;
}

/**
 * Round robin over the spec files' groups (the workers start on the first groups at once, each with its first test),
 * then the tests of parallel describes, which run once the workers are going.
 */
function inOrderOfNeed(groups: PlannedTest[][]): PlannedTest[] {
  const inOrder = groups.filter((group) => !group[0]?.alone);
  const ordered: PlannedTest[] = [];
  for (let i = 0; inOrder.some((group) => i < group.length); i++) {
    for (const group of inOrder) if (i < group.length) ordered.push(group[i] as PlannedTest);
  }
  return [...ordered, ...groups.filter((group) => group[0]?.alone).flat()];
}

interface Queued {
  testId: string;
  request: OutgoingRequest;
  /** Its place among the test's declared requests; undefined for a follow-up. */
  index?: number;
}

/** What the runner has of one test: its requests not yet answered, and the answers so far. */
interface Progress {
  test: PlannedTest;
  unsent: number;
  inFlight: number;
  /** The answers to the declared requests, in declared order: what a follow-up is built from. */
  declaredAnswers: WireResponse[];
  followedUp: boolean;
  record: RunnerRecord;
  written: boolean;
}

/** A chain's follow-up, from the answers to the test's declared requests. */
type FollowUps = (test: PlannedTest, answers: readonly WireResponse[]) => OutgoingRequest[];

export class RunnerSendAhead {
  private inFlight = 0;
  private stopped = false;
  private readonly progress = new Map<string, Progress>();
  private readonly queue: Queued[] = [];

  private constructor(
    private readonly transport: Transport,
    private readonly dir: string,
    tests: { test: PlannedTest; requests: OutgoingRequest[] }[],
    private readonly followUps: FollowUps,
  ) {
    for (const { test, requests } of tests) {
      for (const [index, request] of requests.entries()) this.queue.push({ testId: test.id, request, index });
      this.progress.set(test.id, {
        test,
        unsent: requests.length,
        inFlight: 0,
        declaredAnswers: [],
        followedUp: false,
        record: { answers: {} },
        written: false,
      });
    }
  }

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
    const tests = inOrderOfNeed(groups).flatMap((test) => {
      const requests = test.profiled ? [] : requestsAhead(test, config, bodies, () => base);
      return requests.length > 0 ? [{ test, requests }] : [];
    });
    if (tests.length === 0) return undefined;
    mkdirSync(recordsDir(dir), { recursive: true });
    const followUps: FollowUps = (test, answers) => followUpAhead(test, config, bodies, base, answers);
    keepConnectionsPerHost(MAX_SOCKETS_PER_HOST * RUNNER_WINDOWS);
    return new RunnerSendAhead(new Transport(config, base, fullConfig.workers), dir, tests, followUps);
  }

  /** The tests whose requests the runner sends: their workers wait for their record. */
  get testIds(): string[] {
    return [...this.progress.keys()];
  }

  start(): void {
    this.transport.onAnswer = () => this.pump();
    this.pump();
  }

  /** Twice a worker's window (Transport.sendAheadWindow; there is no rate cap here). */
  private window(): number {
    return this.transport.sendAheadWindow() * RUNNER_WINDOWS;
  }

  private pump(): void {
    if (this.transport.isPaced()) this.stop();
    while (!this.stopped && this.queue.length > 0 && this.inFlight < this.window()) {
      void this.send(this.queue.shift() as Queued);
    }
    // The answers came quickly: the target is near after all, and the tests are better off sending their own.
    if (this.inFlight === 0 && this.window() === 0) this.stop();
  }

  private async send({ testId, request, index }: Queued): Promise<void> {
    const progress = this.progress.get(testId) as Progress;
    progress.unsent--;
    progress.inFlight++;
    this.inFlight++;
    let delivery: Extract<Delivery, { kind: 'answer' }> | undefined;
    try {
      delivery = await this.transport.deliverOnce(request);
    } catch {
      delivery = undefined; // an error of the request itself: its test meets it again, and fails on it
    }
    this.inFlight--;
    progress.inFlight--;
    if (delivery) {
      progress.record.answers[requestFingerprint(request)] = recorded(delivery.response);
      if (index !== undefined) progress.declaredAnswers[index] = delivery.response;
    } else {
      this.stop();
    }
    this.followUpIfAnswered(testId, progress);
    this.writeIfDone(testId, progress);
    this.pump();
  }

  /** Once a chain's declared requests are all answered, its follow-up goes first in the queue: a test waits on it. */
  private followUpIfAnswered(testId: string, progress: Progress): void {
    if (this.stopped || progress.followedUp || progress.unsent > 0 || progress.inFlight > 0) return;
    progress.followedUp = true;
    const requests = this.followUps(progress.test, progress.declaredAnswers);
    this.queue.unshift(...requests.map((request) => ({ testId, request })));
    progress.unsent += requests.length;
  }

  /** Sends no more: each test gets what was answered once its requests still out are back. */
  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const { testId } of this.queue.splice(0)) (this.progress.get(testId) as Progress).unsent--;
    for (const [testId, progress] of this.progress) this.writeIfDone(testId, progress);
  }

  private writeIfDone(testId: string, progress: Progress): void {
    if (progress.written || progress.unsent > 0 || progress.inFlight > 0) return;
    progress.written = true;
    writeRunnerRecord(this.dir, testId, progress.record);
  }
}

/** A response as a record keeps it: its body as base64, byte for byte. */
export const recorded = ({ body, ...response }: WireResponse): RecordedResponse => ({
  ...response,
  body: body.toString('base64'),
});

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
 * For the worker of a test the runner sends, in the run directory `dir`: the runner's answer to each request of the
 * test, once, and else the test's own request (the runner did not answer it, or wrote nothing within `waitMs`; 0:
 * no limit).
 */
export function sentByRunner(dir: string, testId: string, waitMs: number, transport: Transport): SentAhead {
  let record: Promise<RunnerRecord | undefined> | undefined;
  const taken = new Set<string>();
  return {
    async deliver(request, sendItself) {
      record ??= runnerRecord(recordFile(dir, testId), waitMs > 0 ? Date.now() + waitMs : Number.POSITIVE_INFINITY);
      const fingerprint = requestFingerprint(request);
      const answer = (await record)?.answers[fingerprint];
      if (!answer || taken.has(fingerprint)) return sendItself();
      taken.add(fingerprint);
      transport.observedLatency(answer.durationMs);
      return { kind: 'answer', response: { ...answer, body: Buffer.from(answer.body, 'base64') }, attempts: [] };
    },
  };
}
