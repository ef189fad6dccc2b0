import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { attemptDelivery } from './sender.js';

const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok';

/**
 * A receiver that answers the first request on each connection and resets the connection
 * when a second request arrives on it: what a client sees when it reuses a kept-alive
 * connection at the moment the receiver closes it as idle.
 */
async function receiverClosingIdleConnections(): Promise<{ url: string; connections: () => number; requests: () => number; close: () => Promise<void> }> {
  let connections = 0;
  let requests = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    let answered = false;
    socket.on('data', (bytes) => {
      if (!bytes.includes('\r\n\r\n')) return;
      if (answered) {
        socket.resetAndDestroy();
        return;
      }
      answered = true;
      requests += 1;
      socket.write(OK);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    connections: () => connections,
    requests: () => requests,
    close: async () => {
      sockets.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const deliver = (url: string) => attemptDelivery({ url, body: '{"event":"board.created"}', headers: { 'Content-Type': 'application/json' }, allowPrivate: true });

describe('attemptDelivery', () => {
  it('sends again on a fresh connection when the kept-alive one it reused was closed by the receiver', async () => {
    const receiver = await receiverClosingIdleConnections();
    closers.push(receiver.close);

    expect(await deliver(receiver.url)).toMatchObject({ kind: 'success', statusCode: 200 });
    expect(await deliver(receiver.url)).toMatchObject({ kind: 'success', statusCode: 200 });
    expect(receiver.requests()).toBe(2);
    expect(receiver.connections()).toBe(2);
  });

  it('fails the attempt when a fresh connection is reset', async () => {
    const server = net.createServer((socket) => socket.on('data', () => socket.resetAndDestroy()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as net.AddressInfo;

    expect(await deliver(`http://127.0.0.1:${port}/hook`)).toMatchObject({ kind: 'network-error' });
  });
});
