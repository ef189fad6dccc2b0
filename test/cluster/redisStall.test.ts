import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_COMMAND_TIMEOUT_MS } from '../../src/store/redisOptions.js';
import { createBoard, type CreatedBoard } from '../helpers/fixtures.js';
import { connectBoardClient, type BoardClient } from '../helpers/realtimeClient.js';
import { startStallingProxy, type StallingProxy } from '../helpers/stallingProxy.js';
import { eventually, startTestServer, type TestServer } from '../helpers/testServer.js';

/**
 * Every Redis client of the service bounds its commands (store/redisOptions.ts): a Redis that
 * stops answering without closing its connections never holds a join, nor an instance's start.
 * Instances reach Redis only through a proxy that can stall; a join made while it stalls is
 * refused within a few command timeouts, and once Redis answers again joins sync as before.
 */
describe.skipIf(!process.env.REDIS_URL)('a Redis that stalls without closing', () => {
  /** Proxies and instances a test started, stopped after it (its proxy resumed first, so each stops cleanly). */
  const started: Array<{ proxy: StallingProxy; server?: TestServer }> = [];
  const clients: BoardClient[] = [];
  let proxy: StallingProxy;
  let server: TestServer;

  /** An instance reaching Redis through `through`, started now (a stalled proxy holds its start). */
  const startBehind = (through: StallingProxy): Promise<TestServer> => {
    const entry: { proxy: StallingProxy; server?: TestServer } = { proxy: through };
    started.push(entry);
    const prefix = `wb:test:${randomBytes(6).toString('hex')}:`;
    return startTestServer({ env: { REDIS_URL: through.url, CLUSTER_KEY_PREFIX: prefix } }).then((instance) => (entry.server = instance));
  };

  beforeAll(async () => {
    proxy = await startStallingProxy(process.env.REDIS_URL!);
    server = await startBehind(proxy);
  });
  afterAll(async () => {
    clients.forEach((client) => client.destroy());
    for (const entry of started) {
      entry.proxy.resume();
      await entry.server?.close();
      await entry.proxy.close();
    }
  });

  const join = (board: CreatedBoard, link: string, on: TestServer = server): BoardClient => {
    const client = connectBoardClient({ url: on.socketUrl(link), name: board.board_uuid });
    clients.push(client);
    return client;
  };

  it('refuses joins within a few command timeouts while Redis stalls, and lets them through once it answers', async () => {
    // A board nobody has open (joining loads it: the fan-out subscribes), and one somebody has.
    const idle = await createBoard(server, 'Stall idle');
    const open = await createBoard(server, 'Stall open');
    const present = join(open, open.access_links.host);
    await present.synced();
    // Its seat is claimed after it synced: stalled before the claim is answered, it would be refused too.
    await eventually(async () => (await server.api('GET', `/boards/${open.board_uuid}`)).body.participants_count === 1);

    proxy.stall();
    const [toIdle, toOpen] = [join(idle, idle.access_links.guest), join(open, open.access_links.guest)];
    const refusals: string[] = [];
    toIdle.provider.on('authenticationFailed', ({ reason }: { reason: string }) => refusals.push(reason));
    const startedAt = Date.now();
    // Refused after one command timeout (a subscription, the seat claim); the bound leaves room for a loaded machine.
    await eventually(() => refusals.length > 0 && toOpen.closes.length > 0, 5 * REDIS_COMMAND_TIMEOUT_MS);
    expect(Date.now() - startedAt).toBeLessThan(5 * REDIS_COMMAND_TIMEOUT_MS);
    // The idle board cannot be loaded without its fan-out subscription: the document is refused, nothing served.
    expect(toIdle.provider.isSynced).toBe(false);
    // The open board is served from memory, but its seat cannot be taken: the socket is closed (clients retry).
    expect(toOpen.closes).toEqual([{ code: 1011, reason: 'document-unavailable' }]);

    proxy.resume();
    const joined = [join(idle, idle.access_links.guest), join(open, open.access_links.guest)];
    for (const client of joined) await client.synced();
    for (const [board, readers] of [[idle, [joined[0]!]], [open, [joined[1]!, present]]] as const) {
      const written = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'sticky', data: { text: 'after the stall' }, position: { x: 1, y: 1 } });
      expect(written.status).toBe(201);
      for (const reader of readers) await eventually(() => reader.doc.getMap('objects').has(written.body.id), 10_000);
    }
    expect([...joined, present].flatMap((client) => client.closes)).toEqual([]);
  });

  it('starts an instance while Redis stalls, which serves documents once Redis answers', async () => {
    const stalled = await startStallingProxy(process.env.REDIS_URL!);
    stalled.stall();
    const starting = startBehind(stalled);
    let deadline: NodeJS.Timeout | undefined;
    const bound = new Promise<'still starting'>((resolve) => (deadline = setTimeout(() => resolve('still starting'), 8 * REDIS_COMMAND_TIMEOUT_MS)));
    // Each of its Redis clients gives up waiting after a command timeout; none holds the start.
    const outcome = await Promise.race([starting.then(() => 'started' as const), bound]);
    clearTimeout(deadline);
    stalled.resume();
    const late = await starting;
    expect(outcome).toBe('started');

    // Its document fan-out could not subscribe while Redis stalled; its first load does.
    const board = await createBoard(late, 'Stall start');
    const client = join(board, board.access_links.guest, late);
    await client.synced();
    const written = await late.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'sticky', data: { text: 'served' }, position: { x: 1, y: 1 } });
    expect(written.status).toBe(201);
    await eventually(() => client.doc.getMap('objects').has(written.body.id));
  });
});
