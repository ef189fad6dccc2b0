import { afterAll, describe, expect, it } from 'vitest';
import type { DocumentStore } from '../../src/store/documentStore.js';
import { expectErrorBody } from '../helpers/assertions.js';
import { createBoard } from '../helpers/fixtures.js';
import { addObject, connectBoardClient } from '../helpers/realtimeClient.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { eventually, request, startTestServer, type TestServer } from '../helpers/testServer.js';

/**
 * An instance that is told to stop (SIGTERM: main.ts calls `close`) drains: `/ready` answers
 * 503 so the proxy sends it nothing more, requests and new sockets are turned away, sockets
 * are closed with 1012 so clients reconnect to another instance, and every acknowledged
 * update is stored before it exits.
 */
describe('shutting an instance down', () => {
  let database: TestDatabase;
  const servers: TestServer[] = [];

  afterAll(async () => {
    for (const server of servers) await server.stop();
    await database?.drop();
  });

  it('answers /ready with 503, refuses requests, closes sockets with 1012, and keeps every acknowledged update', async () => {
    database = await createTestDatabase();
    // The compaction that runs once the last socket has gone waits for the test's word: the
    // instance stays in its draining state for as long as the test looks at it.
    let letCompactionRun = () => {};
    const compactionMayRun = new Promise<void>((resolve) => (letCompactionRun = resolve));
    const holdCompaction = (store: DocumentStore): DocumentStore => {
      const saveSnapshot = store.saveSnapshot.bind(store);
      store.saveSnapshot = async (...args) => {
        await compactionMayRun;
        return saveSnapshot(...args);
      };
      return store;
    };
    const server = await startTestServer({ database, decorateStore: holdCompaction });
    const board = await createBoard(server, 'Draining');
    const client = connectBoardClient({ url: server.socketUrl(board.access_links.guest), name: board.board_uuid });
    await client.saved();
    addObject(client.doc, { id: 'acknowledged', x: 1, y: 1 });
    await client.saved();

    const closing = server.app.close();
    await eventually(() => client.closes.some((close) => close.code === 1012));

    const ready = await request(server.url, 'GET', '/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'draining' });
    expect((await request(server.url, 'GET', '/health')).status).toBe(200);
    const refused = await server.api('GET', `/boards/${board.board_uuid}`);
    expectErrorBody(refused, { statusCode: 503, error: 'Service Unavailable', path: `/api/v1/boards/${board.board_uuid}` });
    expect(refused.headers.get('connection')).toBe('close');
    const late = connectBoardClient({ url: server.socketUrl(board.access_links.guest), name: board.board_uuid });
    await eventually(() => late.closes.length > 0);
    expect(late.provider.isSynced).toBe(false);
    late.destroy();
    client.destroy();

    letCompactionRun();
    await closing;
    const restarted = await startTestServer({ database });
    servers.push(restarted);
    const read = await restarted.api('GET', `/boards/${board.board_uuid}`, undefined, { 'x-api-key': server.apiKey });
    expect(read.status).toBe(200);
    expect(read.body.state.objects.map((object: { id: string }) => object.id)).toContain('acknowledged');
  });
});
