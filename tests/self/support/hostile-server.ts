// Hostile targets for the self-tests, on 127.0.0.1 with a free port: each answers like a conforming target (by
// forwarding to the embedded reference) until its misbehaviour starts, then dies, resets, drips, throttles, or sends
// what no API should. Every timer is unref'd and close() ends every connection, so a test never waits on one.
import { type IncomingMessage, type Server, type ServerResponse, createServer, request } from 'node:http';
import { type Socket, createServer as createTcpServer } from 'node:net';
import { listenOnLoopback } from './listening';

export interface HostileTarget {
  /** Root URL, no trailing slash (RSF_TARGET_URL). */
  url: string;
  /** Requests received so far. */
  readonly requests: number;
  /** Requests received after the misbehaviour started (`after` of startHostileTarget). */
  readonly requestsSinceTurn: number;
  /**
   * Requests whose connection the client closed before their answer ended: against a target that hangs or drips,
   * each is a time-out the client waited (a body cut at the size cap counts too). Not those close() ends.
   */
  readonly abandoned: number;
  /**
   * The longest chain of abandoned requests, each sent after the one before it was abandoned: the time-outs the client
   * waited one after another, which bound how long it waited in all (those waited side by side count once).
   */
  readonly abandonedInSequence: number;
  close(): Promise<void>;
}

/**
 * What the target does with one request: answer it itself (and return true), or return false to have it forwarded
 * to the conforming upstream. `index` counts from 1.
 */
export type Misbehaviour = (req: IncomingMessage, res: ServerResponse, index: number) => boolean;

export interface HostileOptions {
  /** The conforming target that requests are forwarded to (the embedded reference's root URL). */
  upstream?: string;
  /** The first `after` requests are forwarded untouched (the preflight, and then some). */
  after?: number;
  misbehave: Misbehaviour;
  /** Forwarded requests wait this long first, as at a distant target (unref'd timers). */
  latencyMs?: number;
  /**
   * A request the client gave up on sooner than this was not a time-out it waited (on a loaded machine, a few are
   * closed within milliseconds as the run stops): it counts as abandoned, and extends no chain of time-outs.
   */
  waitedAtLeastMs?: number;
}

/** Passes an upstream's answer on to the client: as it is, unless a misbehaviour changes it. */
export type AnswerHandler = (answer: IncomingMessage, res: ServerResponse) => void;

const passOn: AnswerHandler = (answer, res) => {
  res.writeHead(answer.statusCode ?? 502, answer.headers);
  answer.pipe(res);
};

/**
 * An answer handler that passes on the upstream's answer with its body made by `rewrite` (from the whole body, read
 * uncompressed: ask for it with Accept-Encoding: identity), and a Content-Length to match.
 */
function bodyRewritten(rewrite: (body: Buffer) => Buffer | string): AnswerHandler {
  return (answer, res) => {
    const chunks: Buffer[] = [];
    answer.on('data', (chunk: Buffer) => chunks.push(chunk));
    answer.on('end', () => {
      const body = rewrite(Buffer.concat(chunks));
      const { 'content-length': _, 'transfer-encoding': __, ...rest } = answer.headers;
      res.writeHead(answer.statusCode ?? 502, { ...rest, 'content-length': String(Buffer.byteLength(body)) });
      res.end(body);
    });
  };
}

/**
 * Forwards a request to `upstream` (a listener of any server, https too), with `headers` if given, and `body` in place
 * of its own if given, and its answer back through `onAnswer`: byte for byte unless told otherwise.
 */
export function forward(
  upstream: string,
  req: IncomingMessage,
  res: ServerResponse,
  {
    headers = req.headers,
    onAnswer = passOn,
    body,
  }: { headers?: IncomingMessage['headers']; onAnswer?: AnswerHandler; body?: string } = {},
): void {
  const sent = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  const outgoing = request(`${upstream}${req.url ?? ''}`, { method: req.method, headers: sent }, (answer) =>
    onAnswer(answer, res),
  );
  outgoing.on('error', () => res.destroy());
  if (body === undefined) req.pipe(outgoing);
  else outgoing.end(body);
}

export async function startHostileTarget(options: HostileOptions): Promise<HostileTarget> {
  const after = options.after ?? 0;
  const sockets = new Set<Socket>();
  let requests = 0;
  let abandoned = 0;
  let abandonedInSequence = 0;
  let closing = false;
  const server: Server = createServer((req, res) => {
    requests++;
    // The chain this request would extend: the longest one abandoned before it arrived.
    const chainBefore = abandonedInSequence;
    const arrived = Date.now();
    res.on('close', () => {
      if (res.writableFinished || closing || endedByTarget.has(res)) return;
      abandoned++;
      if (Date.now() - arrived < (options.waitedAtLeastMs ?? 0)) return;
      abandonedInSequence = Math.max(abandonedInSequence, chainBefore + 1);
    });
    if (requests > after && options.misbehave(req, res, requests)) return;
    if (!options.upstream) {
      res.writeHead(502).end();
      return;
    }
    const upstream = options.upstream;
    if (options.latencyMs) setTimeout(() => forward(upstream, req, res), options.latencyMs).unref();
    else forward(upstream, req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    get requestsSinceTurn() {
      return Math.max(0, requests - after);
    },
    get abandoned() {
      return abandoned;
    },
    get abandonedInSequence() {
      return abandonedInSequence;
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Answers the target cut off itself (a reset): the client did not abandon them. */
const endedByTarget = new WeakSet<ServerResponse>();

/** Never answers: the request hangs until the client gives up (a target that died with its sockets open). */
export const hang: Misbehaviour = () => true;

/** Resets the connection as soon as the request arrives. */
export const reset: Misbehaviour = (req, res) => {
  endedByTarget.add(res);
  req.socket.resetAndDestroy();
  return true;
};

/** Announces a JSON body of `announced` bytes, sends `sent` of them, and closes the connection. */
export function cutShort(sent: number, announced: number): Misbehaviour {
  return (req, res) => {
    endedByTarget.add(res);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(announced) });
    res.write('['.padEnd(sent, ' '), () => req.socket.destroy());
    return true;
  };
}

/** Writes `raw` as the whole answer, whatever HTTP/1.1 allows (two Content-Lengths, a bad chunk size), and closes. */
export function rawAnswer(raw: string): Misbehaviour {
  return (req, res) => {
    endedByTarget.add(res);
    req.socket.end(raw);
    return true;
  };
}

/** Sends the headers and then one byte of the body every `everyMs`, for ever; `bytes()` counts the body's bytes. */
export function dripEvery(everyMs: number): Misbehaviour & { bytes: () => number } {
  let bytes = 0;
  const behave: Misbehaviour = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000000' });
    res.write('[');
    bytes++;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      res.write(' ');
      bytes++;
    }, everyMs);
    timer.unref();
    res.on('close', () => clearInterval(timer));
    return true;
  };
  return Object.assign(behave, { bytes: () => bytes });
}

/** Sends the headers and then one byte of the body a second, for ever. */
export const drip: Misbehaviour = dripEvery(1000);

/** Answers every request with a redirect to itself. */
export const redirectLoop: Misbehaviour = (req, res) => {
  res.writeHead(302, { location: req.url ?? '/' }).end();
  return true;
};

/** Answers `body` with `headers` (status 200 unless given) for requests whose path matches `path`. */
export function answerFor(
  path: RegExp,
  body: Buffer | string,
  headers: Record<string, string>,
  status = 200,
): Misbehaviour {
  return (req, res) => {
    if (!path.test(req.url ?? '')) return false;
    res.writeHead(status, { 'content-length': String(Buffer.byteLength(body)), ...headers });
    res.end(body);
    return true;
  };
}

/**
 * An account that may not write, on a server that checks its rights before the data: every POST, PATCH and DELETE
 * with `Bearer <token>` is refused with a 403 of the server's own, in no shape the spec documents.
 */
export function writesRefusedFor(token: string): Misbehaviour {
  return (req, res) => {
    if (req.method === 'GET' || req.headers.authorization !== `Bearer ${token}`) return false;
    res.writeHead(403, { 'content-type': 'application/json' }).end('{"error":"forbidden","message":"read-only"}');
    return true;
  };
}

/**
 * A server that serves one connection at a time, as a single-threaded HTTP/1.1 server that keeps connections alive
 * does (Python's http.server): the next connection waits, accepted but unread, until the client closes the one
 * served, which has no idle time-out of its own (indep111). Every request is forwarded to `upstream`.
 */
export async function oneConnectionAtATime(upstream: string): Promise<{ url: string; close: () => Promise<void> }> {
  const http = createServer((req, res) => forward(upstream, req, res));
  http.keepAliveTimeout = 0;
  const waiting: Socket[] = [];
  const open = new Set<Socket>();
  let serving: Socket | undefined;
  const serveNext = (): void => {
    serving = waiting.shift();
    if (!serving) return;
    serving.once('close', serveNext);
    http.emit('connection', serving);
    serving.resume();
  };
  const server = createTcpServer({ pauseOnConnect: true }, (socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    waiting.push(socket);
    if (!serving) serveNext();
  });
  const port = await listenOnLoopback(server);
  const close = async (): Promise<void> => {
    for (const socket of open) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { url: `http://127.0.0.1:${port}`, close };
}

/** Express's page for a body over body-parser's limit, which it answers before any handler, credentials included. */
const EXPRESS_413_PAGE =
  '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n' +
  '<pre>PayloadTooLargeError: request entity too large</pre>\n</body>\n</html>\n';

/**
 * A framework's limit on request bodies (Express's body-parser: 100 kB by default), in front of a conforming API:
 * a body announced larger than `limitBytes` is answered 413 with Express's page, before anything else looks at it.
 */
export function bodyLimit(limitBytes: number): Misbehaviour {
  return (req, res) => {
    if (Number(req.headers['content-length'] ?? 0) <= limitBytes) return false;
    req.resume();
    res.writeHead(413, { 'content-type': 'text/html; charset=utf-8' }).end(EXPRESS_413_PAGE);
    return true;
  };
}

/**
 * The upstream's refusals (any status from 400) of requests with `token` to the paths `paths` matches, answered HTTP
 * 403 with a JSON object of the target's own; its successes forwarded as they are. `writes`: also every write to
 * those paths with `token`, as an account that may not write there is refused.
 */
export function refusedWith403(upstream: string, token: string, paths: RegExp, { writes = false } = {}): Misbehaviour {
  return (req, res) => {
    if (!paths.test(req.url ?? '') || req.headers.authorization !== `Bearer ${token}`) return false;
    const forbid = () => res.writeHead(403, { 'content-type': 'application/json' }).end('{"message":"No permitido"}');
    if (writes && req.method !== 'GET') {
      req.resume();
      forbid();
      return true;
    }
    forward(upstream, req, res, { onAnswer: refusalsAnswered(forbid) });
    return true;
  };
}

/** An answer handler: the upstream's successes passed on, its refusals (any status from 400) answered by `answer`. */
function refusalsAnswered(answer: () => void): AnswerHandler {
  return (upstreamAnswer, res) => {
    if ((upstreamAnswer.statusCode ?? 500) < 400) return passOn(upstreamAnswer, res);
    upstreamAnswer.resume();
    answer();
  };
}

/**
 * The upstream's refusals (any status from 400) of requests to the paths `paths` matches, answered HTTP 200 with
 * `body`, a JSON object of the target's own, as a deployment that refuses in HTTP 200 does where §7 shows no error
 * body; its successes forwarded as they are.
 */
export function refusedIn200(upstream: string, paths: RegExp, body: string): Misbehaviour {
  return (req, res) => {
    if (!paths.test(req.url ?? '')) return false;
    const inOwnShape = () => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    forward(upstream, req, res, { onAnswer: refusalsAnswered(inOwnShape) });
    return true;
  };
}

/**
 * Tokens that expire after `lifetime` requests each, on a staging server whose operation 8 (GET /item/…), which takes
 * the token optionally (§5.2), answers an expired one as it answers none: the product without the logged-in data, and
 * no 401 (indep99). Every other operation refuses it with 401, "not authenticated".
 */
export function expiringAnsweredAsAnonymous(upstream: string, lifetime: number): Misbehaviour {
  const uses = new Map<string, number>();
  return (req, res) => {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined) return false;
    const used = (uses.get(token) ?? 0) + 1;
    uses.set(token, used);
    if (used <= lifetime) return false;
    if (/\/v1\/item\//.test(req.url ?? '')) {
      const { authorization: _, ...anonymous } = req.headers;
      forward(upstream, req, res, { headers: anonymous });
    } else {
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' });
      res.end('{"message":"not authenticated"}');
    }
    return true;
  };
}

/**
 * A target whose shipping addresses have 64-bit ids (a Java long, a Snowflake id): the id a creation returns is the
 * upstream's plus 2^60, which a JavaScript number does not hold exactly; an update names it as written, or is sent
 * upstream as it came (and refused there as naming no address). `updated()` counts the updates that named it exactly.
 * `exponent`: the id written with every digit, in exponent form (1.152921504606846979e+18), which JSON allows.
 */
export function sixtyFourBitAddressIds(
  upstream: string,
  { exponent = false } = {},
): Misbehaviour & { updated: () => number } {
  const OFFSET = 2n ** 60n;
  let exact = 0;
  const behave: Misbehaviour = (req, res) => {
    if (!/\/v1\/miCuenta\/shippingAddress$/.test(req.url ?? '')) return false;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks)
        .toString('utf8')
        .replace(/"idDirCli":(\d{17,})/, (_whole, id: string) => {
          exact++;
          return `"idDirCli":${BigInt(id) - OFFSET}`;
        });
      const written = (digits: string) => (exponent ? `${digits[0]}.${digits.slice(1)}e+${digits.length - 1}` : digits);
      const withLargeId = (answer: Buffer) =>
        answer
          .toString('utf8')
          .replace(/"addressId":(\d+)/, (_, id: string) => `"addressId":${written(String(BigInt(id) + OFFSET))}`);
      const headers = { ...req.headers, 'accept-encoding': 'identity' };
      forward(upstream, req, res, { headers, body, onAnswer: bodyRewritten(withLargeId) });
    });
    return true;
  };
  return Object.assign(behave, { updated: () => exact });
}

/** The first misbehaviour that answers a request, or none (forwarded). */
export function firstOf(...behaviours: Misbehaviour[]): Misbehaviour {
  return (req, res, index) => behaviours.some((behave) => behave(req, res, index));
}

/** nginx's page for a 503, as its limit_req and limit_conn send it by default. */
const NGINX_503_PAGE =
  '<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n' +
  '<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx</center>\r\n' +
  '</body>\r\n</html>\r\n';

/**
 * A rate limiter in front of a conforming target: above `perSecond` admitted requests in the last second, it answers
 * 429 with Retry-After: 1, or (`as: 'nginx'`) as nginx's limit_req does by default, 503 and a page without
 * Retry-After. It records how many it refused.
 */
export function rateLimiter(
  perSecond: number,
  { as = '429' }: { as?: '429' | 'nginx' } = {},
): Misbehaviour & { refused: () => number } {
  const admitted: number[] = [];
  let refused = 0;
  const behave: Misbehaviour = (_req, res) => {
    const now = Date.now();
    while ((admitted[0] ?? now) <= now - 1000) admitted.shift();
    if (admitted.length < perSecond) {
      admitted.push(now);
      return false;
    }
    refused++;
    if (as === 'nginx') {
      res.writeHead(503, { 'content-type': 'text/html', 'content-length': String(NGINX_503_PAGE.length) });
      res.end(NGINX_503_PAGE);
      return true;
    }
    const body = JSON.stringify({ error_message: 'too many requests' });
    res.writeHead(429, {
      'retry-after': '1',
      'content-type': 'application/json',
      'content-length': String(body.length),
    });
    res.end(body);
    return true;
  };
  return Object.assign(behave, { refused: () => refused });
}

/**
 * A load balancer's passing trouble: every `every`th request (counted from 1) gets 502, 503 (no Retry-After) or 504
 * in turn, with an HTML page, before the API sees it; `postsToo` sends POST, PATCH and DELETE the same statuses (a
 * client must not resend those after a 502 or 504), else they get only the 503. Counts what it answered.
 */
export function gatewayBlips(every: number, postsToo = false): Misbehaviour & { blips: () => number } {
  let blips = 0;
  const behave: Misbehaviour = (req, res, index) => {
    if (index % every !== 0) return false;
    const write = req.method === 'POST' || req.method === 'PATCH' || req.method === 'DELETE';
    const status = write && !postsToo ? 503 : ([502, 503, 504][blips % 3] ?? 503);
    blips++;
    const body = `<html><body><h1>${status} Bad Gateway</h1><p>upstream trouble</p></body></html>`;
    res.writeHead(status, { 'content-type': 'text/html', 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
    return true;
  };
  return Object.assign(behave, { blips: () => blips });
}

/** Requests whose path matches `path` are forwarded to `upstream` only after `delayMs`: one slow operation. */
export function slowFor(
  path: RegExp,
  upstream: () => string,
  delayMs: number,
): Misbehaviour & { received: () => number } {
  let received = 0;
  const behave: Misbehaviour = (req, res) => {
    if (!path.test(req.url ?? '')) return false;
    received++;
    setTimeout(() => (res.destroyed ? undefined : forward(upstream(), req, res)), delayMs).unref();
    return true;
  };
  return Object.assign(behave, { received: () => received });
}

/**
 * Requests whose path matches `path` get the upstream's answer with its JSON body padded by trailing spaces (still
 * the same JSON) to `bytes`, with Content-Length: a conforming answer larger than a small RSF_MAX_RESPONSE_BYTES.
 */
export function paddedTo(path: RegExp, upstream: () => string, bytes: number): Misbehaviour {
  return (req, res) => {
    if (!path.test(req.url ?? '')) return false;
    forward(upstream(), req, res, {
      headers: { ...req.headers, 'accept-encoding': 'identity' },
      onAnswer: bodyRewritten((body) => Buffer.concat([body, Buffer.alloc(Math.max(0, bytes - body.length), 0x20)])),
    });
    return true;
  };
}

/**
 * A gateway that serves the upstream under `prefix` only (a base path such as /api/storefront): a request there is
 * forwarded without the prefix; anything else gets the gateway's own 404 with a JSON error.
 */
export function mountedAt(prefix: string): Misbehaviour {
  return (req, res) => {
    const url = req.url ?? '/';
    if (url.startsWith(`${prefix}/`)) {
      req.url = url.slice(prefix.length);
      return false;
    }
    const body = JSON.stringify({ message: 'no route', path: url.split('?')[0] });
    res.writeHead(404, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
    return true;
  };
}
