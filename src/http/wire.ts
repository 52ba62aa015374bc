// One HTTP exchange with a target, on Node's own client: Playwright's request context buffers whole bodies and
// inflates gzip without a limit, so it could not keep a hostile target from filling memory. Here the body is streamed,
// counted after decompression and read up to a cap; one deadline covers the whole exchange, including a body that
// drips a byte a second; no redirect is followed; connections are kept alive between requests.
import { type ClientRequest, Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import {
  BodyCutShort,
  DeadlineExceeded,
  Interrupted,
  UndecodedBody,
  UnaskedCoding,
  codeOf,
  describeError,
  isOwnError,
} from './wire-errors';
import { whenInterrupted } from './interrupt';
import { ACCEPT_ENCODING, sentHeaders } from './client-headers';
import { decompressionOf, unreadCodingOf } from './decompress';
import { type ProxyRoute, type ProxySettings, proxyRoute, tunnelAgent } from './proxy';
import type { Send } from './delivery';
import type { WireResponse } from './exchange';

export interface WireRequest extends WireOptions {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** A certificate and its key, in PEM, for an https target that asks the client for one (mutual TLS). */
export interface ClientCertificate {
  cert: Buffer;
  key: Buffer;
  passphrase?: string;
}

export interface WireOptions {
  /** For the whole exchange: connecting, sending, the headers and the body. */
  timeoutMs: number;
  /** Decompressed bytes kept; the rest of a larger body is not read. */
  maxBodyBytes: number;
  /** The environment's forward proxies (proxy.ts); none: every target is reached directly. */
  proxy?: ProxySettings;
  /** Presented to an https target that asks for one. */
  clientCertificate?: ClientCertificate;
  /**
   * Rides out a restart of the target (a rolling deploy), within the deadline. A refused connection is sent again
   * after REFUSED_WAITS_MS: it never reached the target, whatever its method. A connection reset before any answer is
   * sent again once, after the first of those waits, for a method whose answer a second sending leaves the same
   * (SAME_ANSWER_WHEN_RESENT). Off for the preflight, whose first refusal says at once that the target is not there (or
   * waits, RSF_WAIT_FOR_TARGET_MS).
   */
  resendAfterRestart?: boolean;
  /** false: each request on a connection of its own, closed after its answer (RSF_KEEP_ALIVE); the pool's otherwise. */
  keepAlive?: boolean;
}

/** The waits before a refused connection is tried again (resendAfterRestart): 3.75 s in all, at most. */
const REFUSED_WAITS_MS: readonly number[] = [250, 500, 1000, 2000];
/**
 * Methods that may be sent again when the first sending may have been carried out (a reset with no answer, a
 * gateway's 502 or 504): safe, or idempotent with the same answer the second time (RFC 9110 §9.2.1, §9.2.2). Not
 * DELETE: carried out the first time, it is refused as not found the second (indep96: a 502, then a 404, judged).
 */
export const SAME_ANSWER_WHEN_RESENT: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT']);

export type { WireResponse };

import { NoAnswer, type NoAnswerKind } from './no-answer';

export { NoAnswer, type NoAnswerKind };

/** A free connection is closed before a server's usual 5 s keep-alive, so that a request seldom races its close. */
const IDLE_SOCKET_MS = 4000;
/**
 * Connections one process keeps to a host at most: requests beyond wait for a free one. Enough for a property's
 * sampled inputs (100 against the reference) in one round trip to a slow target (limiter.ts, MAX_WINDOW).
 */
export const MAX_SOCKETS_PER_HOST = 100;
const agentOptions = { keepAlive: true, timeout: IDLE_SOCKET_MS, maxSockets: MAX_SOCKETS_PER_HOST };
const httpAgent = new HttpAgent(agentOptions);
const httpsAgent = new HttpsAgent(agentOptions);

/** For the runner, which sends ahead for every worker of the run: more connections than one worker keeps. */
export function keepConnectionsPerHost(max: number): void {
  agentOptions.maxSockets = max; // and the tunnels of a proxy made from now on (proxy.ts)
  httpAgent.maxSockets = max;
  httpsAgent.maxSockets = max;
}

/**
 * The headers of an answer, read up to this many bytes: Node's default of 16 KiB refuses what curl and browsers read
 * (an SSO proxy's session cookies, a long Content-Security-Policy). curl's own limit is of this size.
 */
export const MAX_HEADER_BYTES = 256 * 1024;

/** The one application protocol this client speaks (RFC 7301). */
const ALPN_PROTOCOLS = ['http/1.1'];

/** A reused keep-alive connection that the server had just closed: the request never reached it. */
class StaleConnection extends Error {
  constructor(readonly original: unknown) {
    super('stale keep-alive connection');
  }
}

/**
 * Sends one request and reads its answer. Resolves with the answer (any status, a redirect included); rejects with
 * NoAnswer when none came, whole, within the deadline.
 */
export async function sendOnce(wire: WireRequest): Promise<WireResponse> {
  const started = Date.now();
  let refusals = 0;
  let resetResent = false;
  let stale = false;
  for (let attempt = 0; ; attempt++) {
    try {
      // Once more, after a reused connection turned out closed: on a new one, not another of the pool, which a server
      // closing its idle connections may have closed at the same moment.
      return await exchange(wire, started, stale || wire.keepAlive === false);
    } catch (e) {
      if (isOwnError(e)) throw e;
      stale = e instanceof StaleConnection && attempt === 0;
      if (stale) continue;
      const wait = wire.resendAfterRestart ? restartWait(e, wire.method, refusals, resetResent) : undefined;
      if (codeOf(e) === 'ECONNREFUSED') refusals++;
      else if (wait !== undefined) resetResent = true;
      if (wait !== undefined && Date.now() + wait < started + wire.timeoutMs) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        continue;
      }
      const cause = e instanceof StaleConnection ? e.original : e;
      const { kind, message } = describeError(cause, { timeoutMs: wire.timeoutMs, maxHeaderBytes: MAX_HEADER_BYTES });
      throw new NoAnswer(kind, message, Date.now() - started);
    }
  }
}

/**
 * The wait before sending again what a restart of the target may have cut off (resendAfterRestart), or undefined:
 * a refusal, after each of REFUSED_WAITS_MS in turn; a reset before any answer (not of a reused connection: that is
 * a StaleConnection), once, for a method in SAME_ANSWER_WHEN_RESENT.
 */
function restartWait(error: unknown, method: string, refusals: number, resetResent: boolean): number | undefined {
  const code = codeOf(error);
  if (code === 'ECONNREFUSED') return REFUSED_WAITS_MS[refusals];
  const reset = (code === 'ECONNRESET' || code === 'EPIPE') && !(error instanceof BodyCutShort);
  return reset && !resetResent && SAME_ANSWER_WHEN_RESENT.has(method.toUpperCase()) ? REFUSED_WAITS_MS[0] : undefined;
}

/** The wire as the pipeline's innermost layer: one attempt, with the deadline and the body cap. */
export function wire(options: WireOptions): Send {
  return async ({ operation: _, ...request }) => {
    const sentAt = Date.now();
    try {
      return { kind: 'answer', response: await sendOnce({ ...request, ...options }), sentAt };
    } catch (e) {
      if (!(e instanceof NoAnswer)) throw e;
      return { kind: 'no-answer', failure: e, sentAt };
    }
  };
}

function exchange(wire: WireRequest, started: number, newConnection: boolean): Promise<WireResponse> {
  const url = new URL(wire.url);
  const body = wire.body === undefined ? undefined : Buffer.from(wire.body, 'utf8');
  const headers = sentHeaders(wire.headers);
  if (body !== undefined) headers['Content-Length'] = String(body.length);
  const route = proxyRoute(url, wire.proxy);
  return new Promise<WireResponse>((resolve, reject) => {
    let settled = false;
    let answered = false;
    let response: IncomingMessage | undefined;
    const streams: Readable[] = [];
    const progress: BodyProgress = { receivedBytes: 0 };
    let request: ClientRequest | undefined;
    let forget = (): void => {};
    const settle = (outcome: () => void): boolean => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      forget();
      outcome();
      return true;
    };
    const fail = (error: unknown): void => {
      // Bytes after a whole answer, in the same packet (a body sent with a 204, one longer than its Content-Length):
      // the answer stands as its framing delimits it, and is judged; Node's parser has closed the connection.
      if (response?.complete && codeOf(error).startsWith('HPE_')) return;
      const reset = ['ECONNRESET', 'EPIPE'].includes(codeOf(error));
      const stale = !answered && request !== undefined && request.reusedSocket && reset;
      // A reset once the answer began cut its body short: said with how much of it came.
      const cut = answered && reset && !(error instanceof BodyCutShort);
      const why = stale
        ? new StaleConnection(error)
        : cut
          ? new BodyCutShort(progress.receivedBytes, progress.announcedBytes)
          : error;
      if (!settle(() => reject(why))) return;
      for (const stream of streams) stream.destroy();
      request?.destroy();
    };
    const timer = setTimeout(() => fail(new DeadlineExceeded()), Math.max(0, started + wire.timeoutMs - Date.now()));
    forget = whenInterrupted(() => fail(new Interrupted()));
    if (settled) return; // the run was interrupted before it went out
    try {
      const onResponse = (incoming: IncomingMessage) => {
        answered = true;
        response = incoming;
        readBody(incoming, wire.maxBodyBytes, streams, progress).then((read) => {
          const { statusCode = 0, headers: responseHeaders, httpVersion, statusMessage = '' } = incoming;
          const answer = {
            status: statusCode,
            headers: responseHeaders,
            ...read,
            durationMs: Date.now() - started,
            httpVersion,
            statusText: statusMessage,
          };
          settle(() => resolve(answer));
          // The rest of a larger body is not read: the connection cannot be reused.
          if (read.truncated) request?.destroy();
        }, fail);
      };
      request = openRequest(url, wire, headers, route, onResponse, newConnection);
    } catch (e) {
      settle(() => reject(e));
      return;
    }
    request.on('error', fail);
    request.end(body);
  });
}

/** The request on the wire: direct, through a proxy's CONNECT tunnel (https), or asked of the proxy (http). */
function openRequest(
  url: URL,
  { method, timeoutMs, clientCertificate }: WireRequest,
  headers: Record<string, string>,
  route: ProxyRoute | undefined,
  onResponse: (response: IncomingMessage) => void,
  newConnection: boolean,
): ClientRequest {
  const secure = url.protocol === 'https:';
  // A connection of its own, closed after the answer, instead of one of the pool's.
  const pooled = <A>(agent: A): A | false => (newConnection ? false : agent);
  const maxHeaderSize = MAX_HEADER_BYTES;
  // Per request, not per agent: an agent keeps apart the connections of different certificates (its getName). HTTP/1.1
  // offered by name in the handshake, as curl and browsers offer it: a server that speaks only HTTP/2 then says so
  // with a TLS alert (wire-errors.ts), where Node's own answers a client that names none with an HTTP 403.
  const tls = { ALPNProtocols: ALPN_PROTOCOLS, ...clientCertificate };
  if (!route && secure)
    return httpsRequest(url, { method, headers, maxHeaderSize, agent: pooled(httpsAgent), ...tls }, onResponse);
  if (!route) return httpRequest(url, { method, headers, maxHeaderSize, agent: pooled(httpAgent) }, onResponse);
  if (secure) {
    const agent = tunnelAgent(route, timeoutMs, agentOptions);
    return httpsRequest(url, { method, headers, maxHeaderSize, agent, ...tls }, onResponse);
  }
  // An http target: the whole URL, asked of the proxy (RFC 9112 §3.2.2), with the target's host in Host.
  const proxied = {
    ...headers,
    Host: url.host,
    ...(route.authorization && { 'Proxy-Authorization': route.authorization }),
  };
  const { host, port } = route;
  return httpRequest(
    { host, port, path: url.href, method, headers: proxied, maxHeaderSize, agent: pooled(httpAgent) },
    onResponse,
  );
}

interface BodyRead {
  body: Buffer;
  sizeBytes: number;
  truncated: boolean;
  announcedBytes?: number;
}

/** How much of a body came as sent (before any decompression), and how much its Content-Length announced. */
interface BodyProgress {
  receivedBytes: number;
  announcedBytes?: number;
}

/**
 * Reads the body, decompressed, up to `max` bytes; a larger one is cut there and its streams destroyed. `progress`
 * follows the bytes as they come.
 */
function readBody(
  response: IncomingMessage,
  max: number,
  streams: Readable[],
  progress: BodyProgress,
): Promise<BodyRead> {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decompressor = decompressionOf(encoding);
  if (decompressor) response.pipe(decompressor.first);
  const source: Readable = decompressor?.last ?? response;
  streams.push(response, ...(decompressor?.all ?? []));
  // Only an uncompressed length says how large the decompressed body is.
  const announced = decompressor ? Number.NaN : Number(response.headers['content-length']);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let read = 0;
    let done = false;
    source.on('data', (chunk: Buffer) => {
      if (done) return;
      read += chunk.length;
      if (kept < max) {
        const part = chunk.subarray(0, max - kept);
        chunks.push(part);
        kept += part.length;
      }
      if (read <= max) return;
      done = true;
      for (const stream of streams) stream.destroy();
      const known = Number.isFinite(announced) && announced >= read;
      const body = Buffer.concat(chunks);
      resolve(
        known
          ? { body, sizeBytes: announced, truncated: true, announcedBytes: announced }
          : { body, sizeBytes: read, truncated: true },
      );
    });
    source.on('end', () => {
      done = true;
      // A body in a coding it did not ask for is no answer it can read (an empty one is empty whatever it says).
      const unread = read > 0 ? unreadCodingOf(encoding) : undefined;
      if (unread !== undefined) return reject(new UnaskedCoding(unread, ACCEPT_ENCODING));
      resolve({ body: Buffer.concat(chunks), sizeBytes: read, truncated: false });
    });
    const length = Number(response.headers['content-length']);
    if (Number.isFinite(length)) progress.announcedBytes = length;
    response.on('data', (chunk: Buffer) => (progress.receivedBytes += chunk.length));
    // A body cut short by the target (a reset, a close before Content-Length) is no answer either: said with how much
    // of it came.
    const cutShort = () => new BodyCutShort(progress.receivedBytes, progress.announcedBytes);
    source.on('error', (error) => {
      if (!response.complete && codeOf(error) === 'ECONNRESET') return reject(cutShort());
      if (!decompressor) return reject(error);
      // A body of no bytes is empty whatever its Content-Encoding says (a 204, a Content-Length of 0), as curl and
      // browsers read it; the decompressor calls that a truncated stream.
      if (progress.receivedBytes > 0 || !response.complete) return reject(new UndecodedBody(encoding, error));
      done = true;
      resolve({ body: Buffer.alloc(0), sizeBytes: 0, truncated: false });
    });
    response.on('close', () => {
      if (!done && !response.complete) reject(cutShort());
    });
  });
}
