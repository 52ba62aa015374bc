// Replay (issue 24, item 2): RSF_TARGET_URL=har:PATH answers every request from a recording, and sends nothing.
// The replay is the pipeline's innermost layer, in place of the wire: retries, the breaker and the checks run as
// they ran. A request the recording does not hold gets the no-answer kind 'not-recorded', which the client turns
// into "inconclusive: not in the recording" and the breaker does not count.
import { readFileSync } from 'node:fs';
import { REPLAYED_SETTINGS } from '../config/config';
import { REPLAY_SCHEME } from '../config/settings/target';
import { REPLAY_API_BASE } from '../config/target';
import type { Send } from '../http/delivery';
import type { Credentials, OutgoingRequest } from '../http/exchange';
import { CREDENTIALS } from '../model/send-options';
import { type Tokens, authorizationHeader } from '../http/request';
import { NoAnswer } from '../http/no-answer';
import { type BreakerTrip, RUN_NONCE_ENV, RunState } from '../http/run-state';
import { type ExchangeRecord, HarError, type ParsedHar, parseHar, requestFingerprint } from '../evidence/har';

/** The HAR file RSF_TARGET_URL names, or undefined when it names a live target. */
export function recordingPath(targetUrl: string | undefined): string | undefined {
  const url = targetUrl?.trim() ?? '';
  return url.startsWith(REPLAY_SCHEME) ? url.slice(REPLAY_SCHEME.length) : undefined;
}

/** Reads the recording a replay runs against; a file that is not one of this suite's HARs throws HarError. */
export function readRecording(path: string): ParsedHar {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new HarError(`RSF_TARGET_URL=har:${path}: ${(e as Error).message.split('\n')[0]}`);
  }
  const har = parseHar(text, path);
  if (!har.rsf?.replay)
    throw new HarError(`${path} was not recorded by this suite's conformance run: no log._rsf.replay`);
  return har;
}

/** A replay of a run that its global setup stopped before any test (log._rsf.replay.stoppedBeforeTests). */
export class StoppedReplayError extends Error {
  override name = 'StoppedReplayError';

  constructor(path: string, recordedReason: string) {
    super(`The recorded run stopped before its first test, and so does this replay of ${path}:\n${recordedReason}`);
  }
}

/**
 * The environment a replay runs under, in the runner before any worker starts: the recorded seed, property runs,
 * writes and settings (its test data, its recognition patterns), so that the suite sends what the recorded run sent
 * and judges as it judged, whatever this machine's .env says (a seed set by hand would draw other inputs).
 */
export function replayEnvironment(path: string): Record<string, string> {
  const { rsf } = readRecording(path);
  const replay = rsf?.replay;
  if (!rsf || !replay) return {};
  // Only the settings a recording may decide: a setting it names otherwise (a token command, say) is not taken.
  const replayed = new Set(REPLAYED_SETTINGS.map((s) => s.name));
  const settings = Object.entries(replay.settings ?? {}).filter(([name]) => replayed.has(name));
  return {
    ...Object.fromEntries(settings),
    RSF_FC_SEED: rsf.seed,
    RSF_FC_NUM_RUNS: String(replay.fcNumRuns),
    RSF_ALLOW_WRITES: String(replay.writesEnabled),
    ...(replay.runNonce !== undefined && { [RUN_NONCE_ENV]: replay.runNonce }),
  };
}

/** The credentials an Authorization header stands for, given this run's tokens. */
export function credentialsOf(request: OutgoingRequest, tokens: Tokens): Credentials {
  const sent = Object.entries(request.headers).find(([name]) => name.toLowerCase() === 'authorization')?.[1];
  const header = (kind: Credentials): string | undefined => {
    try {
      return authorizationHeader(kind, tokens);
    } catch {
      return undefined; // a token with no letter has no other letter case: no request was sent so
    }
  };
  return CREDENTIALS.find((kind) => header(kind) === sent) ?? 'none';
}

/** A URL relative to the base it was sent to: the recorded run's base and the replay's differ. */
function relativeTo(base: string, url: string): string {
  if (url.startsWith(base)) return url.slice(base.length) || '/';
  return new URL(url).pathname + new URL(url).search;
}

export interface ReplayOptions {
  tokens: Tokens;
  /** Applied to a request before it is looked up: the recording holds secrets redacted (operation 15's path). */
  redact: (text: string) => string;
  /** The running test's ID: a test gets its own recorded answers first, in the order they were sent. */
  testId: () => string | undefined;
}

/**
 * The run state of a replay: nothing is sent, so the breaker never opens and the throttle never slows the run; what
 * the recorded run's breaker and throttle did is in the recording (Replay answers "not sent" after a recorded trip).
 */
export class ReplayState extends RunState {
  override breakerOpen(): BreakerTrip | undefined {
    return undefined;
  }
  override answered(): void {}
  override unanswered(): BreakerTrip | undefined {
    return undefined;
  }
  override throttledRate(): number | undefined {
    return undefined;
  }
  override slowDown(): number | undefined {
    return undefined;
  }
}

/** The recorded answers by test and request. Each is handed out once to its test; another test may read any. */
export class Replay {
  private readonly byTest = new Map<string, ExchangeRecord[]>();
  private readonly byRequest = new Map<string, ExchangeRecord[]>();
  /** Why the recorded run's breaker opened: a test with nothing recorded left sent nothing after it. */
  private readonly trip: BreakerTrip | undefined;
  /** Why the recorded run stopped sending once the target refused its requests: alike. */
  private readonly refused: string | undefined;
  /** The recorded run's API base: its requests went there. */
  private readonly base: string;

  constructor(
    har: ParsedHar,
    private readonly options: ReplayOptions,
  ) {
    this.trip = har.rsf?.replay?.breaker;
    this.refused = har.rsf?.replay?.refused;
    this.base = har.rsf?.replay?.apiBase ?? '';
    for (const r of har.records) {
      const key = this.key(relativeTo(this.base, r.url), r.method, r.requestBody, r.credentials ?? 'valid');
      push(this.byRequest, key, r);
      if (r.test?.id !== undefined) push(this.byTest, `${r.test.id}\n${key}`, r);
    }
  }

  private key(path: string, method: string, body: string | undefined, credentials: string): string {
    return `${credentials}\n${requestFingerprint({ method, url: path, ...(body !== undefined && { body }) })}`;
  }

  /** The next recorded exchange of `request` for the running test, or undefined when the recording has none. */
  take(request: OutgoingRequest): ExchangeRecord | undefined {
    const { redact, tokens, testId } = this.options;
    const path = redact(relativeTo(REPLAY_API_BASE, request.url));
    const body = request.body === undefined ? undefined : redact(request.body);
    const key = this.key(path, request.method, body, credentialsOf(request, tokens));
    const id = testId();
    const own = id === undefined ? undefined : this.byTest.get(`${id}\n${key}`);
    if (own && own.length > 0) return own.shift();
    // Used up, or never sent: the breaker was open, or the target refused the run (send() says which).
    if (own || this.trip || this.refused !== undefined) return undefined;
    // Sent by another test (a test renamed since): an answer the target gave it, unthrottled.
    const any = this.byRequest.get(key);
    return any?.find((r) => r.status !== 0 && r.status !== 429) ?? any?.[0];
  }

  /**
   * A redirect's Location on the recorded target's host, moved to the replay's, whose host its requests name: a
   * redirect within the target stays within it, and one to another host stays away (exchange.ts, redirectedAway).
   */
  replayedLocation(location: string): string {
    try {
      const to = new URL(location); // a relative Location throws: it stays within the host as it is
      if (to.host !== new URL(this.base).host) return location;
      const replay = new URL(REPLAY_API_BASE);
      to.protocol = replay.protocol;
      to.host = replay.host;
      return to.href;
    } catch {
      return location;
    }
  }

  /** The pipeline's innermost layer: an answer from the recording, or 'not-recorded'. */
  send(): Send {
    return async (request) => {
      const sentAt = Date.now();
      const r = this.take(request);
      // The recorded run sent nothing more once its breaker opened: the test is "not run", as it was.
      if (!r && this.trip) return { kind: 'not-sent', trip: this.trip };
      if (!r && this.refused !== undefined)
        return { kind: 'no-answer', failure: new NoAnswer('stopped-in-recording', this.refused, 0), sentAt };
      if (!r) {
        const failure = new NoAnswer('not-recorded', 'not in the recording', 0);
        return { kind: 'no-answer', failure, sentAt };
      }
      if (r.status === 0)
        return { kind: 'no-answer', failure: new NoAnswer('other', r.error ?? '', r.durationMs), sentAt };
      const body = Buffer.from(r.responseBody);
      const headers = Object.fromEntries(
        Object.entries(r.responseHeaders).map(([name, value]) => [
          name.toLowerCase(),
          typeof value === 'string' ? value : [...value],
        ]),
      );
      if (typeof headers.location === 'string') headers.location = this.replayedLocation(headers.location);
      const size = r.truncated?.announcedBytes ?? body.byteLength;
      return {
        kind: 'answer',
        response: {
          status: r.status,
          headers,
          body,
          sizeBytes: size,
          truncated: r.truncated !== undefined,
          ...(r.truncated?.announcedBytes !== undefined && { announcedBytes: r.truncated.announcedBytes }),
          durationMs: r.durationMs,
        },
        sentAt,
      };
    };
  }
}

function push(map: Map<string, ExchangeRecord[]>, key: string, r: ExchangeRecord): void {
  const list = map.get(key);
  if (list) list.push(r);
  else map.set(key, [r]);
}
