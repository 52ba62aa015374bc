// A worker's part of send-ahead (send-ahead.ts): it takes what the runner sent for its tests, and under a rate cap,
// sends the requests of the probes that follow its running test in its group, as many as its window allows.
import type { TestInfo } from '@playwright/test';
import { type ValidBodies, validBodies } from '../model/bodies';
import type { Config } from '../config/config';
import { type Delivery, type OutgoingRequest, type Transport, requestFingerprint } from '../http/http';
import { RUN_STATE_ENV } from '../http/run-state';
import { type ApiBaseFor, type PlannedTest, type SentAhead, readPlan, requestsAhead } from './send-ahead';
import { sentByRunner } from './send-ahead-runner';

interface Queued {
  testId: string;
  request: OutgoingRequest;
}

/**
 * One per worker: what the runner sent for its tests, and under a rate cap the probes that follow the running test,
 * queued in run order, and those already sent.
 */
export class SendAhead {
  private readonly following = new Map<string, PlannedTest[]>();
  private readonly runnerSends: Set<string>;
  private readonly runDir = process.env[RUN_STATE_ENV];
  private readonly queue: Queued[] = [];
  /** Per test, its requests sent ahead by fingerprint. */
  private readonly sent = new Map<string, Map<string, Promise<Delivery>>>();
  private readonly known = new Set<string>();
  private inFlight = 0;
  private readonly bodies: ValidBodies;
  /** The time-out of the latest test: requests sent ahead may spend as long as a test on throttled retries. */
  private testTimeoutMs = 0;

  constructor(
    private readonly transport: Transport,
    private readonly config: Config,
  ) {
    const plan = readPlan(this.runDir);
    for (const group of plan.groups) {
      for (const [i, test] of group.entries()) this.following.set(test.id, group.slice(i + 1));
    }
    this.runnerSends = new Set(plan.runnerSends);
    this.bodies = validBodies(config);
    transport.onAnswer = () => this.pump();
  }

  /**
   * At the start of a test: its requests sent ahead, if any, and the probes after it queued (those the run will not
   * judge, skipped ones and writes while writes are off, are not; nor those the runner sends).
   * A retry sends its own: what was sent ahead belongs to the first try.
   */
  testStarts(info: Pick<TestInfo, 'testId' | 'timeout' | 'retry'>, apiBaseFor: ApiBaseFor): SentAhead | undefined {
    const own = this.take(info);
    for (const test of this.following.get(info.testId) ?? []) {
      if (this.known.has(test.id) || this.runnerSends.has(test.id)) continue;
      this.known.add(test.id);
      for (const request of requestsAhead(test, this.config, this.bodies, apiBaseFor))
        this.queue.push({ testId: test.id, request });
    }
    this.testTimeoutMs = info.timeout;
    this.pump();
    return own;
  }

  private take({ testId, timeout, retry }: Pick<TestInfo, 'testId' | 'timeout' | 'retry'>): SentAhead | undefined {
    this.known.add(testId);
    if (this.runnerSends.has(testId))
      return retry === 0 && this.runDir ? sentByRunner(this.runDir, testId, timeout, this.transport) : undefined;
    // What was not sent yet, the test sends itself.
    for (let i = this.queue.length - 1; i >= 0; i--) if (this.queue[i]?.testId === testId) this.queue.splice(i, 1);
    const sent = this.sent.get(testId);
    this.sent.delete(testId);
    if (!sent) return undefined;
    return {
      deliver(request, sendItself) {
        const fingerprint = requestFingerprint(request);
        const delivery = sent.get(fingerprint);
        sent.delete(fingerprint);
        return delivery ?? sendItself();
      },
    };
  }

  /** The longest a request sent ahead may spend on throttled retries: as a test would, leaving room for one more. */
  private maxWaitMs(): number {
    const { testTimeoutMs } = this;
    if (testTimeoutMs <= 0) return Number.POSITIVE_INFINITY;
    return Math.max(0, testTimeoutMs - this.config.requestTimeoutMs - 2000);
  }

  /**
   * Sends queued requests while fewer than the window are out: at a test's start, and after each answer (which makes
   * room, and may widen the window).
   */
  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < this.transport.sendAheadWindow()) {
      if (this.transport.breakerOpen()) return;
      const { testId, request } = this.queue.shift() as Queued;
      const delivery = this.transport.deliver(request, this.maxWaitMs());
      this.inFlight++;
      const done = (): void => {
        this.inFlight--;
        this.pump();
      };
      delivery.then(done, done);
      const sent = this.sent.get(testId) ?? new Map<string, Promise<Delivery>>();
      sent.set(requestFingerprint(request), delivery);
      this.sent.set(testId, sent);
    }
  }
}
