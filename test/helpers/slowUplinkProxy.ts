import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/** A TCP proxy on loopback in front of one HTTP server, modelling a slow uplink (see startSlowUplinkProxy). */
export interface SlowUplinkProxy {
  /** The proxied server's URL with the proxy's host and port. */
  url: string;
  close(): Promise<void>;
}

/**
 * On loopback a client reads an early answer long before anything else happens, which hides
 * how a server ends a connection while a large upload is still in flight. This proxy shows it:
 * the server's bytes reach the client only once the client has sent `uploadBytes` (its whole
 * request), as on a link where the upload takes a while. A server that closes cleanly (FIN) has
 * its answer delivered then; a server that resets the connection has it reset towards the
 * client at once, the held answer dropped, as a TCP reset drops data its receiver has not read.
 */
export async function startSlowUplinkProxy(serverUrl: string, uploadBytes: number): Promise<SlowUplinkProxy> {
  const target = new URL(serverUrl);
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    // Half-open: the server may finish its answer (FIN) and go on reading the upload.
    const server = connect({ port: Number(target.port), host: target.hostname, allowHalfOpen: true });
    for (const socket of [client, server]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    let uploaded = 0;
    let held: Buffer[] | null = [];
    let serverEnded = false;
    const release = () => {
      if (held === null || uploaded < uploadBytes) return;
      held.forEach((chunk) => client.write(chunk));
      held = null;
      if (serverEnded) client.end();
    };
    client.on('data', (chunk: Buffer) => {
      uploaded += chunk.length;
      server.write(chunk);
      release();
    });
    server.on('data', (chunk: Buffer) => (held ? held.push(chunk) : client.write(chunk)));
    server.on('end', () => {
      serverEnded = true;
      if (held === null) client.end();
      else release();
    });
    server.on('error', () => client.resetAndDestroy());
    client.on('error', () => server.destroy());
    client.on('close', () => server.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = new URL(serverUrl);
  url.hostname = '127.0.0.1';
  url.port = String((proxy.address() as AddressInfo).port);
  return {
    url: url.origin,
    async close() {
      const closed = new Promise<void>((resolve) => proxy.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
