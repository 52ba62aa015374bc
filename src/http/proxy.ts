// A target behind a forward proxy (a company's egress proxy in front of a staging server), set as curl reads it:
// https_proxy or HTTPS_PROXY for https targets, http_proxy or HTTP_PROXY for http ones, all_proxy or ALL_PROXY for
// either without its own, no_proxy or NO_PROXY for the hosts reached directly. A target on this machine (loopback)
// is always reached directly. An http target is asked of the proxy in absolute form; an https one through a CONNECT
// tunnel, TLS end to end, so that the proxy sees only the host and port. The proxy's credentials go in
// Proxy-Authorization, never in a request the evidence records.
import { type ClientRequestArgs, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions } from 'node:https';
import { BlockList, isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { printable } from '../model/printable';
import { redact } from './redact';

/** The proxy settings of the environment, checked as the configuration loads (src/config/proxy-env.ts). */
export interface ProxySettings {
  /** For https targets: the variable that set it, and its URL (http://, credentials allowed). */
  https?: { variable: string; url: string };
  /** For http targets. */
  http?: { variable: string; url: string };
  /**
   * Hosts reached directly: a name (its subdomains too; a leading dot is the same), host:port, an IP, a subnet of
   * IPs (10.0.0.0/8), or '*'.
   */
  noProxy: string[];
}

/** The proxy a request to `target` goes through, or undefined to connect directly. */
export interface ProxyRoute {
  variable: string;
  url: URL;
  /** The proxy's address, to connect to (an IPv6 address without its brackets). */
  host: string;
  port: number;
  /** `Basic …` from the URL's credentials. */
  authorization?: string;
}

const unbracketed = (host: string): string => host.replace(/^\[|\]$/g, '');

const isLoopback = (host: string): boolean =>
  host === 'localhost' ||
  host.endsWith('.localhost') ||
  host === '[::1]' ||
  (isIP(host) === 4 && host.startsWith('127.'));

/**
 * Whether a NO_PROXY entry in CIDR notation (10.0.0.0/8, fd00::/8, as curl 7.86 and later read it, and as Kubernetes
 * clusters set it) holds an IP address `host`. A name is not resolved for it, as curl does not.
 */
function inSubnet(entry: string, host: string): boolean {
  const [, network = '', prefix = ''] = /^\[?([^\]/]+)\]?\/(\d{1,3})$/.exec(entry) ?? [];
  const family = isIP(network);
  if (family === 0 || family !== isIP(host) || Number(prefix) > (family === 4 ? 32 : 128)) return false;
  const subnet = new BlockList();
  subnet.addSubnet(network, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
  return subnet.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/** Whether a NO_PROXY entry names `target`'s host (and port, when the entry has one). */
function bypasses(entry: string, target: URL): boolean {
  if (entry === '*') return true;
  if (entry.includes('/')) return inSubnet(entry, unbracketed(target.hostname));
  const [, host = '', port] = /^\[?([^\]]*?)\]?(?::(\d+))?$/.exec(entry) ?? [];
  const name = host.replace(/^\*?\./, '').toLowerCase();
  if (!name) return false;
  const targetPort = target.port || (target.protocol === 'https:' ? '443' : '80');
  if (port !== undefined && port !== targetPort) return false;
  const targetHost = unbracketed(target.hostname).toLowerCase();
  return targetHost === name || (isIP(name) === 0 && targetHost.endsWith(`.${name}`));
}

/** How a request to `target` goes: through the proxy `settings` give for its scheme, or directly (undefined). */
export function proxyRoute(target: URL, settings: ProxySettings | undefined): ProxyRoute | undefined {
  const proxy = target.protocol === 'https:' ? settings?.https : settings?.http;
  if (!proxy || isLoopback(target.hostname) || settings?.noProxy.some((entry) => bypasses(entry, target))) return;
  const url = new URL(proxy.url);
  const credentials = url.username
    ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
    : undefined;
  return {
    variable: proxy.variable,
    url,
    host: unbracketed(url.hostname),
    port: Number(url.port || 80),
    ...(credentials !== undefined && { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` }),
  };
}

/**
 * What a proxy's HTTP 407 (RFC 9110 §15.5.8) asks for, and what to set: `route` is the proxy the request went
 * through, if any, `challenge` its Proxy-Authenticate, and `purpose` what it was asked (" to open a tunnel to …").
 * It names the proxy's variable, never its URL, which may hold credentials.
 */
export function proxyAuthenticationAdvice(
  route: ProxyRoute | undefined,
  challenge: string | undefined,
  purpose = '',
): string {
  const shown = challenge ? ` (Proxy-Authenticate: ${printable(challenge, { maxChars: 200, transform: redact })})` : '';
  const asks = `asks for credentials${shown}${purpose}`;
  if (route?.authorization !== undefined)
    return `the proxy in ${route.variable} ${asks}, and refused those in its URL: check them (not shown)`;
  if (route !== undefined)
    return `the proxy in ${route.variable} ${asks}: put them in its URL, as http://user:password@host:port`;
  return (
    `a proxy on the way ${asks}, and no proxy variable names one for this target: set HTTP_PROXY to it, with its ` +
    'credentials in its URL (http://user:password@host:port)'
  );
}

/** The proxy refused or failed to open a tunnel: the message names its variable, never its URL. */
export class ProxyTunnelError extends Error {
  readonly code = 'ERR_PROXY_TUNNEL';
}

/**
 * Keeps TLS connections to https targets through CONNECT tunnels of `route`'s proxy, alive between requests as the
 * direct agent does. Opening a tunnel waits at most `timeoutMs`.
 */
class TunnelAgent extends HttpsAgent {
  constructor(
    private readonly route: ProxyRoute,
    private readonly timeoutMs: number,
    options: AgentOptions,
  ) {
    super(options);
  }

  // Node's Agent takes the socket from the callback when this returns nothing (net.createConnection's contract).
  override createConnection(
    options: ClientRequestArgs,
    callback?: (err: Error | null, socket: Duplex) => void,
  ): Duplex {
    const authority = `${options.host}:${options.port}`;
    const done = (error: Error | null, socket?: Duplex) => callback?.(error, socket as Duplex);
    const connect = httpRequest({
      host: this.route.host,
      port: this.route.port,
      method: 'CONNECT',
      path: authority,
      headers: {
        host: authority,
        ...(this.route.authorization && { 'proxy-authorization': this.route.authorization }),
      },
      agent: false,
    });
    const fail = (why: string) => done(new ProxyTunnelError(`the proxy in ${this.route.variable} ${why}`));
    connect.setTimeout(this.timeoutMs, () => {
      connect.destroy();
      fail(`opened no tunnel to ${authority} within ${this.timeoutMs} ms`);
    });
    connect.once('connect', (answer, socket) => {
      connect.setTimeout(0);
      if (answer.statusCode !== 200) {
        socket.destroy();
        if (answer.statusCode === 407) {
          const challenge = answer.headers['proxy-authenticate'];
          const purpose = ` to open a tunnel to ${authority}`;
          done(new ProxyTunnelError(proxyAuthenticationAdvice(this.route, challenge, purpose)));
          return;
        }
        fail(`refused the tunnel to ${authority} (HTTP ${answer.statusCode})`);
        return;
      }
      done(null, tlsConnect({ ...(options as object), socket }));
    });
    connect.once('error', (e: NodeJS.ErrnoException) => fail(`could not be reached (${e.code ?? e.message})`));
    connect.end();
    return undefined as unknown as Duplex;
  }
}

const tunnels = new Map<string, TunnelAgent>();

/** The agent for https requests through `route`, one per proxy and time-out, kept for the process's life. */
export function tunnelAgent(route: ProxyRoute, timeoutMs: number, options: AgentOptions): HttpsAgent {
  const key = `${route.url.href} ${timeoutMs}`;
  let agent = tunnels.get(key);
  if (!agent) {
    agent = new TunnelAgent(route, timeoutMs, options);
    tunnels.set(key, agent);
  }
  return agent;
}
