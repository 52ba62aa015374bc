// The embedded reference server: node:http, one process serving every profile (clean /v1,
// /_modes/<mode>/v1, /_faults/<fault>/v1), each with its own in-memory state.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthRule } from '../src/model/operations';
import { isJsonContentType, parseJsonBody, parseLenientJson, readBody } from './body';
import { faultNamed } from './faults';
import type { Credentials, ExchangeFacts, FaultHooks } from './hooks';
import { type Mode, modeNamed, REFERENCE_MODE } from './modes';
import { type Context, credentialsMessage, rejectionReply, type Route, ROUTES } from './operations';
import { isTransportKind, plain, Rejection, type Reply } from './reply';
import { createStore, DEFAULT_BEARER_TOKEN, DEFAULT_CHANNEL_TOKEN, type Store } from './seed';
import { validateRequest } from './validation';

export { FAULTS, profilePath, type Fault } from './faults';
export { MODES, type Mode } from './modes';

export interface ReferenceServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  bearerToken?: string;
  channelToken?: string;
  /** Milliseconds each answer waits before it is worked out, as if the server were that far away (default 0). */
  latencyMs?: number;
}

export interface ReferenceServer {
  /** Root URL: no trailing slash, no /v1. */
  url: string;
  /** Requests waiting out latencyMs now: how the self-tests see them wait side by side, without a clock. */
  readonly waiting: number;
  close(): Promise<void>;
}

interface Profile {
  mode: Mode;
  hooks: FaultHooks;
  store: Store;
  /** Requests routed to an operation of this profile so far (the flaky mode's count). */
  routed: number;
}

/** The challenge of a refused token that has expired (the expiring-token mode). */
const EXPIRED_TOKEN_CHALLENGE = 'Bearer error="invalid_token", error_description="The access token expired"';

/** The three statuses of the flaky mode's gateway, in turn; a POST, PATCH or DELETE gets 503 only (modes.ts). */
const BLIPS = [502, 503, 504] as const;

/** Methods a client does not send again after a 502 or 504 (they may have been carried out): these get the 503. */
const NOT_RESENT_AFTER_502 = new Set(['POST', 'PATCH', 'DELETE']);

/** A load balancer's page, as a gateway sends it: HTML, whatever the client accepts. `index` counts blips from 1. */
function gatewayBlip(res: ServerResponse, method: string, index: number): void {
  const status = NOT_RESENT_AFTER_502.has(method) ? 503 : (BLIPS[(index - 1) % BLIPS.length] ?? 503);
  const body = `<html><head><title>${status}</title></head><body><h1>${status} Gateway trouble</h1></body></html>`;
  res.writeHead(status, { 'content-type': 'text/html', 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
}

/** Where a request goes once its profile prefix is stripped. */
interface Target {
  profile: Profile;
  /** Set when no operation answers at this path. */
  rejection?: Rejection;
  route?: Route;
  /** Every route whose path matched, whatever the method (for 405). */
  pathRoutes: Route[];
  params: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------
// Routing

const SEGMENT_PARAM = /\{(\w+)\}/;

interface CompiledRoute {
  route: Route;
  segments: { pattern: RegExp; names: string[] }[];
}

/** A template segment as a regex; in "{branch}-{order}" the lazy first group splits at the first hyphen. */
function segmentPattern(segment: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = segment
    .split(SEGMENT_PARAM)
    .map((part, i, all) => {
      if (i % 2 === 0) return literalPattern(part);
      names.push(part);
      return i === all.length - 2 ? '(.+)' : '(.+?)';
    })
    .join('');
  return { pattern: new RegExp(`^${source}$`), names };
}

const COMPILED: CompiledRoute[] = ROUTES.map((route) => ({
  route,
  segments: route.path.split('/').slice(1).map(segmentPattern),
}));

/** A literal part of a path template: words and hyphens (§4's paths), which stand for themselves in a pattern. */
function literalPattern(part: string): string {
  if (!/^[\w-]*$/.test(part)) throw new Error(`path template part "${part}" needs escaping: not a word or hyphen`);
  return part;
}

/** Matches raw (still percent-encoded) segments; parameters are decoded later. */
function matchPath(segments: string[]): { route: Route; rawParams: Record<string, string> }[] {
  const found: { route: Route; rawParams: Record<string, string> }[] = [];
  for (const { route, segments: patterns } of COMPILED) {
    if (patterns.length !== segments.length) continue;
    const rawParams: Record<string, string> = {};
    const matches = patterns.every(({ pattern, names }, i) => {
      const m = pattern.exec(segments[i]!);
      for (const [j, name] of names.entries()) rawParams[name] = m?.[j + 1] ?? '';
      return m !== null;
    });
    if (matches) found.push({ route, rawParams });
  }
  return found;
}

function decodeParams(raw: Record<string, string>): Record<string, string> {
  try {
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, decodeURIComponent(v)]));
  } catch {
    throw new Rejection('invalid', 'invalid percent-encoding in the path');
  }
}

// ---------------------------------------------------------------------------------------------
// Credentials

/** The bearer token presented, if the header is a Bearer one. */
/** A text of a body (an object's, or each item's of an array) longer than the mode's limit is refused (ModeChoices). */
function refuseLongTexts(body: unknown, limit: number | null): void {
  if (limit === null) return;
  for (const item of Array.isArray(body) ? body : [body]) {
    if (typeof item !== 'object' || item === null) continue;
    for (const [field, value] of Object.entries(item))
      if (typeof value === 'string' && [...value].length > limit)
        throw new Rejection('invalid', `${field} is longer than ${limit} characters`);
  }
}

function presentedBearer(header: string | undefined): string | undefined {
  const m = header === undefined ? null : /^(\S+)(?:\s+(.*))?$/.exec(header.trim());
  return m && m[1]!.toLowerCase() === 'bearer' ? m[2] : undefined;
}

function presentedCredentials(header: string | undefined, accepted: (token: string) => boolean): Credentials {
  if (header === undefined) return 'absent';
  const token = presentedBearer(header);
  return token !== undefined && accepted(token) ? 'valid' : 'invalid';
}

// ---------------------------------------------------------------------------------------------
// Rendering

const NO_BODY_STATUSES = new Set([204, 304]);

/** Applies the mode's choices and the fault's content-type hook, then writes the reply. */
function send(res: ServerResponse, reply: Reply, profile: Profile | undefined): void {
  const choices = (profile?.mode ?? REFERENCE_MODE).choices;
  let status = reply.status;
  if (choices.errorStatus === '200' && reply.outcome !== 'success' && !isTransportKind(reply.outcome) && status < 500)
    status = 200;
  let payload = '';
  let contentType: string | undefined;
  const body = reply.body;
  if (body.kind === 'json') {
    payload = JSON.stringify(withExtraField(body.value, choices.extraField, profile?.store));
    contentType = 'application/json; charset=utf-8';
  } else if (body.kind === 'plain') {
    const raw = choices.plainStrings === 'raw-text';
    const rawAnyway = profile?.hooks.rawPlainLabelledJson === (reply.outcome === 'success' ? 'successes' : 'errors');
    payload = raw || rawAnyway ? body.text : JSON.stringify(body.text);
    contentType = raw ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
  } else if (body.kind === 'raw') {
    payload = body.text;
    contentType = body.contentType;
  }
  if (contentType && profile?.hooks.contentType) contentType = profile.hooks.contentType(reply, contentType);
  let bytes = Buffer.from(payload, 'utf8');
  if (contentType?.startsWith('application/json') && profile?.hooks.latin1Json) {
    bytes = Buffer.from(payload.replace(/[\u{100}-\u{10ffff}]/gu, '?'), 'latin1');
    contentType = contentType.replace('charset=utf-8', 'charset=iso-8859-1');
  }
  if (contentType?.startsWith('application/json') && profile?.hooks.jsonBom)
    bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
  const headers: Record<string, string | number> = { ...reply.headers };
  if (contentType && !NO_BODY_STATUSES.has(status)) {
    headers['content-type'] = contentType;
    headers['content-length'] = bytes.length;
  } else bytes = Buffer.alloc(0);
  res.writeHead(status, headers);
  res.end(bytes);
}

/** The deployment mode's undocumented member, on the object or on each object of an array. */
function withExtraField(value: unknown, field: string | null, store: Store | undefined): unknown {
  if (!field || !store) return value;
  const tag = (v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? { ...v, [field]: `req-${store.nextRequestId++}` } : v;
  return Array.isArray(value) ? value.map(tag) : tag(value);
}

// ---------------------------------------------------------------------------------------------
// The request pipeline

const CLEAN: FaultHooks = {};
const VERSION = 'v1';

class ReferenceApp {
  private readonly profiles = new Map<string, Profile>();
  /** Tokens minted by POST /_tokens: accepted by every profile (the expiring-token mode counts their uses). */
  private readonly minted = new Set<string>();
  /** Uses of each token in a profile whose tokens expire, by profile. */
  private readonly uses = new WeakMap<Profile, Map<string, number>>();

  constructor(
    private readonly bearerToken: string,
    private readonly channelToken: string,
  ) {}

  /** '' | '_modes/<name>' | '_faults/<name>' → the profile, created on first use. */
  private profile(kind: string, name: string): Profile | undefined {
    const key = `${kind}/${name}`;
    const existing = this.profiles.get(key);
    if (existing) return existing;
    const mode = kind === '_modes' ? modeNamed(name) : kind === '' || kind === '_faults' ? REFERENCE_MODE : undefined;
    const hooks = kind === '_faults' ? faultNamed(name)?.hooks : CLEAN;
    if (!mode || !hooks) return undefined;
    const chosen = hooks.choices ? { ...mode, choices: { ...mode.choices, ...hooks.choices } } : mode;
    const profile = { mode: chosen, hooks, store: createStore(this.channelToken), routed: 0 };
    this.profiles.set(key, profile);
    return profile;
  }

  /** Splits off the profile prefix and the version segment, and matches a route. */
  private target(method: string, path: string): Target | Rejection {
    let segments = path.split('/').slice(1);
    let profile: Profile | undefined;
    if (segments[0] === '_modes' || segments[0] === '_faults') {
      profile = this.profile(segments[0], safeDecode(segments[1] ?? ''));
      if (!profile) return new Rejection('no-route', `unknown ${segments[0] === '_modes' ? 'mode' : 'fault'}`);
      segments = segments.slice(2);
    } else profile = this.profile('', '')!;
    const noRoute = { profile, pathRoutes: [], params: {}, rejection: new Rejection('no-route', 'no such operation') };
    if (segments[0] !== (profile.hooks.versionSegment ?? VERSION)) return noRoute;
    const matched = matchPath(segments.slice(1));
    if (matched.length === 0) return noRoute;
    const effective = method === 'HEAD' ? 'GET' : method;
    const hit = matched.find((m) => m.route.method === effective);
    return { profile, route: hit?.route, pathRoutes: matched.map((m) => m.route), params: hit?.rawParams ?? {} };
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    const query = new URLSearchParams(queryAt < 0 ? '' : url.slice(queryAt + 1));
    const method = req.method ?? 'GET';
    if (path === '/_tokens' && method === 'POST') return this.mint(res);
    const target = this.target(method, path);
    if (target instanceof Rejection) return send(res, rejectionReply(undefined, target), undefined);
    const { profile, route } = target;
    if (target.rejection) return send(res, rejectionReply(undefined, target.rejection), profile);
    if (!route) {
      const allow = [
        ...new Set(target.pathRoutes.flatMap((r) => (r.method === 'GET' ? ['GET', 'HEAD'] : [r.method]))),
      ].join(', ');
      const reply = rejectionReply(undefined, new Rejection('method', `method not allowed; allowed: ${allow}`));
      return send(res, { ...reply, headers: { allow } }, profile);
    }
    const blipEvery = profile.mode.choices.gatewayBlipEvery;
    profile.routed++;
    if (blipEvery && profile.routed % blipEvery === 0) return gatewayBlip(res, method, profile.routed / blipEvery);
    const facts: ExchangeFacts = { op: route.number, body: undefined, loggedIn: false, host: req.headers.host ?? '' };
    let reply: Reply;
    try {
      reply = await this.run(req, route, target, query, facts);
    } catch (e) {
      if (!(e instanceof Rejection)) throw e;
      reply = rejectionReply(route, e);
      // Why, as an OAuth resource server says it (RFC 6750 §3): the suite shows it when a token stops being accepted.
      if (e.kind === 'auth' && this.expired(profile, req.headers.authorization))
        reply = { ...reply, headers: { ...reply.headers, 'www-authenticate': EXPIRED_TOKEN_CHALLENGE } };
    }
    reply = profile.hooks.reply?.(reply, facts) ?? reply;
    if (reply.outcome === 'too-large') reply = { ...reply, headers: { ...reply.headers, connection: 'close' } };
    send(res, reply, profile);
  }

  /** POST /_tokens: a fresh bearer token, as text/plain (what a token command prints). */
  private mint(res: ServerResponse): void {
    const token = `Minted-${randomBytes(12).toString('hex')}`;
    this.minted.add(token);
    res.writeHead(201, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(token);
  }

  /** Whether `token` is accepted in `profile`; each valid use counts where tokens expire. */
  private accepts(profile: Profile, token: string): boolean {
    if (token !== this.bearerToken && !this.minted.has(token)) return false;
    const lifetime = profile.mode.choices.tokenLifetimeRequests;
    if (lifetime === null) return true;
    const uses = this.uses.get(profile) ?? new Map<string, number>();
    this.uses.set(profile, uses);
    const used = uses.get(token) ?? 0;
    uses.set(token, used + 1);
    return used < lifetime;
  }

  /** A token that was accepted here and is no more: refused on every operation, the optional-auth one too. */
  private expired(profile: Profile, header: string | undefined): boolean {
    const token = presentedBearer(header);
    const lifetime = profile.mode.choices.tokenLifetimeRequests;
    return token !== undefined && lifetime !== null && (this.uses.get(profile)?.get(token) ?? 0) > lifetime;
  }

  /** Auth, body, validation and the handler; throws a Rejection for any documented failure. */
  private async run(
    req: IncomingMessage,
    route: Route,
    target: Target,
    query: URLSearchParams,
    facts: ExchangeFacts,
  ): Promise<Reply> {
    const { profile } = target;
    const hooks = profile.hooks;
    const params = decodeParams(target.params);
    facts.params = params;
    const auth: AuthRule = hooks.authRule?.(route.number, route.auth) ?? route.auth;
    // A fault may compare tokens sloppily (tokenMatches): a near miss of the token then passes as it.
    const valid = [this.bearerToken, ...this.minted];
    const sloppy = (token: string): boolean => valid.some((t) => hooks.tokenMatches?.(route.number, token, t) ?? false);
    const header = hooks.authorization
      ? hooks.authorization(route.number, req.headers.authorization, this.bearerToken)
      : req.headers.authorization;
    const presented = presentedCredentials(header, (token) => this.accepts(profile, token) || sloppy(token));
    const credentials = hooks.credentials?.(route.number, presented) ?? presented;
    const expired = presented === 'invalid' && this.expired(profile, req.headers.authorization);
    if ((auth === 'bearer' && credentials !== 'valid') || expired)
      throw new Rejection('auth', credentialsMessage(route.number));
    facts.loggedIn = auth !== 'none' && credentials === 'valid';
    const ctx: Context = {
      params,
      query,
      loggedIn: facts.loggedIn,
      presented,
      body: undefined,
      store: profile.store,
      choices: profile.mode.choices,
      hooks,
      holds: (rule, condition) => condition || hooks.ignoresRule === rule,
      isAccessToken: (token) => valid.includes(token),
    };
    route.authorize?.(ctx);
    if (route.requestSchema) {
      ctx.body = await this.requestBody(req, route, hooks);
      validateRequest(
        route.requestSchema,
        ctx.body,
        (e) => hooks.ignoresRequestError?.(route.number, e, ctx.body) ?? false,
      );
      refuseLongTexts(ctx.body, ctx.choices.textLimit);
      facts.body = ctx.body;
    }
    return route.handle(ctx);
  }

  private async requestBody(req: IncomingMessage, route: Route, hooks: FaultHooks): Promise<unknown> {
    if (hasBody(req) && !isJsonContentType(req.headers['content-type']))
      throw new Rejection('media-type', 'the request body must be application/json');
    const raw = await readBody(req);
    if (!raw.ok) throw raw.rejection;
    try {
      return hooks.readsLenientJson ? parseLenientJson(raw.bytes.toString('utf8')) : parseJsonBody(raw.bytes);
    } catch (e) {
      // Only a fault answers a malformed body as if a valid one had come; a copy, since handlers may keep it.
      const standIn = hooks.acceptsMalformedJson?.(route.number) && route.sampleBody !== undefined;
      if (e instanceof Rejection && e.kind === 'invalid' && standIn) return structuredClone(route.sampleBody);
      throw e;
    }
  }
}

function hasBody(req: IncomingMessage): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

/** Unref: a delayed answer must not keep the process alive once the server is closed. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export async function startReferenceServer(opts: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const host = opts.host ?? '127.0.0.1';
  const app = new ReferenceApp(opts.bearerToken ?? DEFAULT_BEARER_TOKEN, opts.channelToken ?? DEFAULT_CHANNEL_TOKEN);
  const latencyMs = opts.latencyMs ?? 0;
  let waiting = 0;
  const waited = async (): Promise<void> => {
    waiting++;
    await delay(latencyMs).finally(() => waiting--);
  };
  const server = createServer((req, res) => {
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    const handled = latencyMs > 0 ? waited().then(() => app.handle(req, res)) : app.handle(req, res);
    handled.catch((e: unknown) => {
      // A real bug: answer 500 and keep serving.
      console.error('reference server: internal error:', e);
      if (!res.headersSent)
        send(res, { status: 500, body: plain('Internal server error'), outcome: 'internal' }, undefined);
      else res.destroy();
    });
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    get waiting() {
      return waiting;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}
