// The runner's part of prefetch (prefetch.ts). Without a rate cap, the runner sends the declared requests of the
// run's tests as the run begins, while the workers start, in the order the workers will need them (inOrderOfNeed);
// a link's read as soon as its write is answered. A worker asks for its test's answers over a local socket in the run
// directory (answersFromRunner), and gets them when they are in: no file is polled.
//
// Playwright loads the spec files in the runner to list their tests, so their declarations are registered here too:
// that is how the runner knows what each planned test sends (README, "Playwright internals": were the files loaded
// elsewhere, nothing would be sent ahead, and tests/self/prefetch.spec.ts would fail).
//
// At the first sign of trouble (an answer throttled, a gateway blip or none, the breaker open) the runner stops
// sending, and each test sends what the runner did not answer, paced, retried and counted as usual. It stops too for
// a quick target, whose answers leave nothing to overlap: then it tells the workers which tests it sent a request for
// (RunnerReply.sentFor), and a worker asks it about those only and sends the others' requests ahead itself, one test
// ahead (prefetch.ts).
// A connection the runner's burst had refused or reset is not counted by the breaker (a server or proxy may do that
// to a burst it would serve one by one); a time-out is, so that a target that dies mid-run ends the run in time.
import { existsSync, rmSync } from 'node:fs';
import { type Server, createServer, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { gatedByBreaker } from '../http/breaker';
import { type Send, type Sent, compose } from '../http/delivery';
import type { OutgoingRequest, WireResponse } from '../http/exchange';
import { Limiter, paced } from '../http/limiter';
import { requestFingerprint } from '../http/request';
import { isUsableAnswer } from '../http/retry';
import { RunState } from '../http/run-state';
import { wireOptions } from '../http/transport';
import { wire } from '../http/wire';
import { whenInterrupted } from '../http/interrupt';
import { throttleNotice } from '../http/throttle-notice';
import { SlowDownLog } from '../http/slow-downs';
import { targetInProcess, transportOptions } from '../config/target';
import type { Config } from '../config/config';
import type { Delivery } from '../http/delivery';
import {
  type Declaration,
  type DeclaredRequest,
  type PlannedTest,
  type RequestContext,
  buildRequests,
  declarationOf,
  exchangesOf,
  sendsAhead,
} from './declarations';

/** The runner's socket in the run directory, where workers ask for their tests' answers. */
export const RUNNER_SOCKET = 'prefetch.sock';
/**
 * The longest socket path that both Linux (107 bytes) and macOS (103) bind whole: Node cuts a longer one short and
 * binds that, in another folder, where a worker that asks by the whole path finds no socket.
 */
const MAX_SOCKET_PATH_BYTES = 103;
/** The runner sends for every worker: twice the requests one worker may have out (limiter.ts, MAX_WINDOW). */
export const RUNNER_WINDOWS = 2;
/**
 * One worker's window for the embedded reference without latency, which answers from the runner's own process:
 * there is no latency to overlap, but the worker, on the other core, is the run's critical path (its start, then
 * the tests), while this core would idle. Sent ahead here, its tests' answers cost the worker one ask each instead of
 * an HTTP exchange per request (npm run bench, goal a).
 */
const IN_PROCESS_WINDOW = 4;

type Recorded = Omit<WireResponse, 'body'> & { body: string };

/**
 * A test's answers, as the runner hands them to its worker: by request fingerprint, the body in base64. A request a
 * test declares twice (a property's restore that is one of its inputs) has an answer each, in the order they came.
 */
type Answers = Record<string, Recorded[]>;

/** What the runner hands a worker that asks for a test's answers. */
export interface RunnerReply {
  answers: Answers;
  /**
   * Once the runner has stopped sending for a quick target (nothing to overlap), to a worker that asks: the keys of
   * the tests it sent a request for. For any other test, the worker need not ask, and sends its declared requests
   * ahead itself. Not after trouble: then each test sends its own, paced and retried.
   */
  sentFor?: string[];
}

/** The query by which a worker that does not know yet whether the runner stopped for a quick target asks it. */
export const ASK_SENT_FOR = 'sent-for';

interface Progress {
  /** Its requests (and follow-ups) not yet settled. */
  pending: number;
  answers: Answers;
  /** Replies to workers waiting for its answers, sent when they are in or the runner stops. */
  waiters: (() => void)[];
}

interface Queued {
  key: string;
  request: OutgoingRequest;
  /** Told of the attempt once it settles: a chain builds its follow-up from it. */
  onSettled?: (sent: Sent, usable: boolean) => void;
}

/**
 * The planned tests in the order the workers will start them. Playwright hands each free worker the next group of
 * tests (a project's spec file, or one test of a file shared out test by test), and a worker runs a group's tests in
 * order: so the order is simulated with `workers` workers and every test taking as long (weighing tests by their
 * requests made no difference against a target 150 ms away).
 */
export function inOrderOfNeed(groups: readonly (readonly PlannedTest[])[], workers: number): PlannedTest[] {
  const freeAt = Array.from({ length: Math.max(1, workers) }, () => 0);
  const starts: { at: number; test: PlannedTest }[] = [];
  for (const group of groups) {
    const worker = freeAt.indexOf(Math.min(...freeAt));
    let at = freeAt[worker] ?? 0;
    for (const test of group) starts.push({ at: at++, test });
    freeAt[worker] = at;
  }
  // A stable sort: tests that start at once keep the order of their groups.
  return starts.sort((a, b) => a.at - b.at).map(({ test }) => test);
}

/** One per run, in the runner: sends the planned tests' declared requests and serves their answers. */
export class RunnerPrefetch {
  private readonly progress = new Map<string, Progress>();
  private readonly queue: Queued[] = [];
  private readonly limiter: Limiter;
  private readonly send: Send;
  private readonly server: Server;
  private inFlight = 0;
  /** The target answers from this process (targetInProcess): its answers are quick, and sent ahead all the same. */
  private readonly inProcess: boolean;
  /** Why it sent its last request: all were sent, the target is quick (nothing to overlap), or trouble. */
  private stopped: 'done' | 'quick' | 'trouble' | undefined;
  /** The tests this runner sent a request for: a worker asks for their answers even after it stopped. */
  private readonly sentFor = new Set<string>();

  private constructor(
    private readonly config: Config,
    private readonly ctx: RequestContext,
    private readonly apiBase: string,
    state: RunState,
  ) {
    this.limiter = new Limiter({ maxRequestsPerSecond: 0, workers: 1, burst: true }, state);
    this.inProcess = targetInProcess(config);
    this.send = compose(
      wire(wireOptions(transportOptions(config))),
      gatedByBreaker(state, ['refused', 'reset']),
      // Its halvings of the run's pace go to the workers' tests, whose annotations every report counts.
      paced(this.limiter, state, new SlowDownLog((s) => state.handOverSlowDown(s)).noting(throttleNotice(state))),
    );
    this.server = createServer((req, res) => {
      const [path = '/', query] = (req.url ?? '/').split('?');
      const progress = this.progress.get(decodeURIComponent(path.slice(1)));
      // A test not planned here gets no answers, as one planned and not yet sent when the runner stopped.
      const reply = () => res.writeHead(200).end(JSON.stringify(this.reply(progress, query === ASK_SENT_FOR)));
      if (!progress || progress.pending === 0 || this.stopped) reply();
      else progress.waiters.push(reply);
    });
    this.server.unref();
  }

  /**
   * Starts sending the declared requests of the planned tests, given as the groups Playwright hands out to the run's
   * `workers` in its order, and serving their answers on a socket in `runDir`. Undefined when there is nothing to send,
   * or no socket to serve it on.
   */
  static start(
    config: Config,
    ctx: RequestContext,
    apiBase: string,
    runDir: string,
    groups: readonly (readonly PlannedTest[])[],
    workers = 1,
  ): RunnerPrefetch | undefined {
    const socket = join(runDir, RUNNER_SOCKET);
    // Under a long TMPDIR: nothing is sent ahead, rather than answers that no worker could ask for.
    if (Buffer.byteLength(socket) > MAX_SOCKET_PATH_BYTES) return undefined;
    // The run's shared state (breaker, throttle) in its directory, which the workers' transports share.
    const runner = new RunnerPrefetch(config, ctx, apiBase, new RunState(runDir));
    for (const planned of inOrderOfNeed(groups, workers)) runner.plan(planned);
    if (runner.queue.length === 0) return undefined;
    if (existsSync(socket)) rmSync(socket);
    // A server error stops the sending: each test then sends what was not answered.
    runner.server.on('error', () => runner.stop('trouble'));
    runner.server.listen(socket);
    // A socket's path is bound at once, or not at all.
    if (!runner.server.listening) return undefined;
    runner.pump();
    return runner;
  }

  private plan(planned: PlannedTest): void {
    const declaration = declarationOf(planned.key);
    if (!planned.key || !declaration || !sendsAhead(planned, this.config) || this.progress.has(planned.key)) return;
    const declared = declaration.requests(this.ctx);
    const requests = buildRequests(declared, this.config, this.apiBase);
    if (requests.length === 0) return;
    const progress: Progress = { pending: requests.length, answers: {}, waiters: [] };
    this.progress.set(planned.key, progress);
    const followUp = declaration.followUp && this.followUp(planned.key, declaration, declared);
    for (const [index, request] of requests.entries()) {
      const onSettled = followUp && ((sent: Sent, usable: boolean) => followUp(index, sent, usable));
      this.queue.push({ key: planned.key, request, ...(onSettled && { onSettled }) });
    }
  }

  /**
   * Once every declared request of a chain is answered, its follow-up goes first in the queue. The answers come in any
   * order: each is kept at its request's place among the declared, as the worker's sender pairs them (prefetch.ts).
   */
  private followUp(
    key: string,
    declaration: Declaration,
    declared: readonly DeclaredRequest[],
  ): (index: number, sent: Sent, usable: boolean) => void {
    const answered: Delivery[] = [];
    let count = 0;
    return (index, sent, usable) => {
      if (sent.kind !== 'answer' || !usable) return;
      answered[index] = { kind: 'answer', response: sent.response, attempts: [] };
      if (++count < declared.length || !declaration.followUp) return;
      try {
        const exchanges = exchangesOf(declared, answered, this.config, this.apiBase);
        const requests = buildRequests(declaration.followUp(this.ctx, exchanges), this.config, this.apiBase);
        const progress = this.progress.get(key);
        if (progress) progress.pending += requests.length;
        this.queue.unshift(...requests.map((request) => ({ key, request })));
      } catch {
        // Its test builds the follow-up itself, and judges why it could not be.
      }
    };
  }

  private reply(progress: Progress | undefined, askSentFor: boolean): RunnerReply {
    const answers = progress?.answers ?? {};
    return this.stopped === 'quick' && askSentFor ? { answers, sentFor: [...this.sentFor] } : { answers };
  }

  private pump(): void {
    // No window yet: the first answers say how far the target is; a quick one leaves nothing to overlap.
    const window = (this.inProcess ? IN_PROCESS_WINDOW : this.limiter.inFlightWindow()) * RUNNER_WINDOWS;
    while (!this.stopped && this.queue.length > 0 && this.inFlight < window) {
      const item = this.queue.shift() as Queued;
      this.inFlight++;
      this.sentFor.add(item.key);
      this.send(item.request).then(
        (sent) => this.settled(item, sent),
        () => this.settled(item, undefined),
      );
    }
    if (!this.stopped && this.inFlight === 0) {
      if (this.queue.length === 0) this.stop('done');
      else if (window === 0) this.stop('quick');
    }
  }

  private settled(item: Queued, sent: Sent | undefined): void {
    this.inFlight--;
    const progress = this.progress.get(item.key);
    // A gateway's error is not usable either, a 502 to a write too: the test sends that request itself, and its
    // transport retries or leaves it unjudged as for any other (retry.ts).
    const usable = sent?.kind === 'answer' && isUsableAnswer(sent.response);
    if (usable && progress) {
      const { body, ...rest } = sent.response;
      const fingerprint = requestFingerprint(item.request);
      progress.answers[fingerprint] = [
        ...(progress.answers[fingerprint] ?? []),
        { ...rest, body: body.toString('base64') },
      ];
    }
    if (!usable) this.stop('trouble');
    if (sent) item.onSettled?.(sent, usable);
    if (progress) {
      progress.pending--;
      if (progress.pending === 0) for (const reply of progress.waiters.splice(0)) reply();
    }
    this.pump();
  }

  /** Sends nothing more; every test gets what was answered, and sends the rest itself. */
  private stop(why: 'done' | 'quick' | 'trouble'): void {
    if (this.stopped) return;
    this.stopped = why;
    this.queue.length = 0;
    for (const progress of this.progress.values()) for (const reply of progress.waiters.splice(0)) reply();
  }

  close(): void {
    this.stop('done');
    this.server.close();
  }
}

/** The runner's answers to a test, for its worker. */
export interface FromRunner {
  /** The deliveries of the requests it answered, by request fingerprint: one each time the request was declared. */
  sent: Map<string, Promise<Delivery>[]>;
  /** Set once the runner has stopped, when asked (askSentFor): the tests it sent a request for (RunnerReply). */
  sentFor?: ReadonlySet<string>;
}

/**
 * For a worker: the answers the runner has for the test of `key`, waiting until they are in; with `askSentFor`, also
 * the tests the runner sent a request for, if it has stopped. Undefined when the runner sends nothing (no socket, or
 * no answer from it): the test sends its own.
 */
export function answersFromRunner(
  runDir: string,
  key: string,
  timeoutMs: number,
  askSentFor = false,
): Promise<FromRunner | undefined> {
  const socketPath = join(runDir, RUNNER_SOCKET);
  if (!existsSync(socketPath)) return Promise.resolve(undefined);
  const path = `/${encodeURIComponent(key)}${askSentFor ? `?${ASK_SENT_FOR}` : ''}`;
  return new Promise((resolve) => {
    const req = httpRequest({ socketPath, path }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        if (res.statusCode !== 200) return resolve(undefined);
        const { answers, sentFor } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RunnerReply;
        const sent = new Map<string, Promise<Delivery>[]>();
        for (const [fingerprint, recorded] of Object.entries(answers)) {
          const deliveries = recorded.map(({ body, ...rest }) => {
            const response: WireResponse = { ...rest, body: Buffer.from(body, 'base64') };
            return Promise.resolve<Delivery>({ kind: 'answer', response, attempts: [] });
          });
          sent.set(fingerprint, deliveries);
        }
        resolve({ sent, ...(sentFor && { sentFor: new Set(sentFor) }) });
      });
      res.on('error', () => resolve(undefined));
    });
    if (timeoutMs > 0) req.setTimeout(timeoutMs, () => req.destroy());
    // Interrupted: the test sends its own, which the wire refuses at once.
    const forget = whenInterrupted(() => req.destroy());
    req.on('close', forget);
    req.on('error', () => resolve(undefined));
    req.end();
  });
}
