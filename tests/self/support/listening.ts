// The servers of the self-tests listen on a free port of the loopback interface, which the system picks.
import { type AddressInfo, type Server, createServer } from 'node:net';

/** Starts `server` on a free port of 127.0.0.1, and gives that port. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Starts `server` on a free port of 127.0.0.1, and gives its http URL. */
export async function loopbackUrl(server: Server): Promise<string> {
  return `http://127.0.0.1:${await listenOnLoopback(server)}`;
}

/** A port of 127.0.0.1 that nothing listens on, found free and closed again: a target that is down, or not up yet. */
export async function closedLoopbackPort(): Promise<number> {
  const server = createServer();
  const port = await listenOnLoopback(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}
