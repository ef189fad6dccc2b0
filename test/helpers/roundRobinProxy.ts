import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/** A TCP proxy on loopback in front of several upstreams, as the compose file's nginx is. */
export interface RoundRobinProxy {
  url: string;
  /** The upstream index each accepted connection went to, in order. */
  readonly routed: number[];
  /** Drops every open connection at once, as a network that goes away does (new ones are still let through). */
  dropConnections(): void;
  /**
   * Ends every open connection on the upstream side only and stops forwarding: the upstream
   * sees it closed, while the client's end stays open and silent (a connection a network cut
   * left half-open, as a browser coming back online may still hold).
   */
  abandonConnections(): void;
  close(): Promise<void>;
}

/**
 * Hands each new connection to the next upstream in turn, and to the one after it when an
 * upstream refuses the connection (a replica that is down), like nginx's round robin with
 * `proxy_next_upstream error`. Bytes pass through untouched, WebSocket upgrades included.
 */
export async function startRoundRobinProxy(upstreams: Array<{ host: string; port: number }>): Promise<RoundRobinProxy> {
  const routed: number[] = [];
  const sockets = new Set<Socket>();
  const pairs = new Set<{ client: Socket; upstream: Socket; closeClient: () => void }>();
  let turn = 0;
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.pause();
    const first = turn++ % upstreams.length;
    const tryUpstream = (attempt: number) => {
      if (attempt === upstreams.length) return void client.destroy();
      const index = (first + attempt) % upstreams.length;
      const upstream = connect(upstreams[index]!.port, upstreams[index]!.host);
      upstream.once('error', () => {
        if (!upstream.remoteAddress) tryUpstream(attempt + 1);
        else client.destroy();
      });
      upstream.once('connect', () => {
        routed.push(index);
        sockets.add(upstream);
        const closeClient = () => client.destroy();
        const pair = { client, upstream, closeClient };
        pairs.add(pair);
        upstream.on('close', () => {
          sockets.delete(upstream);
          pairs.delete(pair);
        });
        upstream.on('close', closeClient);
        client.on('close', () => upstream.destroy());
        client.on('error', () => upstream.destroy());
        client.pipe(upstream).pipe(client);
        client.resume();
      });
    };
    tryUpstream(0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    routed,
    dropConnections() {
      for (const socket of sockets) socket.destroy();
    },
    abandonConnections() {
      for (const { client, upstream, closeClient } of pairs) {
        upstream.off('close', closeClient);
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.on('data', () => undefined); // read and dropped: nothing reaches the upstream any more
        upstream.destroy();
      }
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
