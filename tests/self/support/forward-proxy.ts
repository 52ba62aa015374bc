// A forward proxy for the self-tests, on 127.0.0.1: it takes requests in absolute form (an http target) and CONNECT
// tunnels (an https one), sends every one of them to 127.0.0.1 at the port they name, whatever their host, and records
// what it was asked. `refuse` makes it answer every request and tunnel with that status instead (a 407 asks for
// credentials, PROXY_CHALLENGE).
import { type IncomingMessage, type Server, createServer, request } from 'node:http';
import { type Socket, connect } from 'node:net';
import { listenOnLoopback } from './listening';

export interface ForwardProxy {
  /** http://user:secret@127.0.0.1:port, as HTTP_PROXY or HTTPS_PROXY holds it. */
  url: string;
  /** "GET http://host:port/path" or "CONNECT host:port", in the order asked. */
  readonly asked: string[];
  /** The Proxy-Authorization header of each, as sent. */
  readonly authorizations: (string | undefined)[];
  close(): Promise<void>;
}

export const PROXY_CREDENTIALS = { user: 'proxy-user', password: 'ZZPROXYSECRETZZ' };

/** What the proxy asks for when it refuses with 407: credentials, which it takes from no one. */
export const PROXY_CHALLENGE = 'Basic realm="self-test proxy"';
const challengeOf = (status: number): Record<string, string> =>
  status === 407 ? { 'proxy-authenticate': PROXY_CHALLENGE } : {};

export async function startForwardProxy(options: { refuse?: number } = {}): Promise<ForwardProxy> {
  const asked: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const sockets = new Set<Socket>();
  const note = (req: IncomingMessage) => {
    asked.push(`${req.method} ${req.url}`);
    authorizations.push(req.headers['proxy-authorization']);
  };
  const server: Server = createServer((req, res) => {
    note(req);
    if (options.refuse) return void res.writeHead(options.refuse, challengeOf(options.refuse)).end();
    const target = new URL(req.url ?? '');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const upstream = request(
      { host: '127.0.0.1', port: target.port, path: `${target.pathname}${target.search}`, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    note(req);
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    if (options.refuse) {
      const headers = Object.entries(challengeOf(options.refuse)).map(([name, value]) => `${name}: ${value}\r\n`);
      return void client.end(`HTTP/1.1 ${options.refuse} Refused\r\n${headers.join('')}\r\n`);
    }
    const port = Number(String(req.url).split(':').pop());
    const upstream = connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  const port = await listenOnLoopback(server);
  const { user, password } = PROXY_CREDENTIALS;
  return {
    url: `http://${user}:${password}@127.0.0.1:${port}`,
    asked,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
