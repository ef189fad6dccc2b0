import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/** A TCP proxy on loopback in front of one upstream, which can stop passing bytes without closing anything. */
export interface StallingProxy {
  /** `upstreamUrl` with its host and port replaced by the proxy's (credentials and path kept). */
  url: string;
  /**
   * Stops passing bytes either way, as a frozen server or a path that drops packets does:
   * connections stay open (new ones are accepted too) and nothing is answered or refused.
   */
  stall(): void;
  /** Passes bytes again: first the ones that waited, in the order they came. */
  resume(): void;
  close(): Promise<void>;
}

/** Starts a stalling proxy in front of the server of `upstreamUrl` (such as `redis://host:port/0`). */
export async function startStallingProxy(upstreamUrl: string): Promise<StallingProxy> {
  const upstream = new URL(upstreamUrl);
  const sockets = new Set<Socket>();
  let stalled = false;
  /** Writes held back while stalled, across connections, in arrival order. */
  let waiting: Array<() => void> = [];
  const pass = (from: Socket, to: Socket) =>
    from.on('data', (chunk: Buffer) => {
      if (stalled) waiting.push(() => to.write(chunk));
      else to.write(chunk);
    });
  const server = createServer((client) => {
    const target = connect(Number(upstream.port || 6379), upstream.hostname);
    for (const socket of [client, target]) {
      sockets.add(socket);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        target.destroy();
      });
      socket.on('error', () => socket.destroy());
    }
    pass(client, target);
    pass(target, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(upstreamUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String((server.address() as AddressInfo).port);
  return {
    url: proxied.href,
    stall: () => void (stalled = true),
    resume() {
      stalled = false;
      const held = waiting;
      waiting = [];
      held.forEach((write) => write());
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
