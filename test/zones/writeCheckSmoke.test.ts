import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addObject, connectBoardClient } from '../helpers/realtimeClient.js';
import { eventually, startTestServer, type TestServer } from '../helpers/testServer.js';

describe('write check smoke', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startTestServer(); });
  afterAll(async () => { await server.close(); });

  it('undoes a guest write into a zone area and never shows it to others', async () => {
    const board = (await server.api('POST', '/boards', { title: 'Z' })).body;
    const zone = await server.api('POST', `/boards/${board.board_uuid}/frames`, { name: 'zone', bounds_x: 0, bounds_y: 0, bounds_width: 500, bounds_height: 500, assigned_user_id: 'bob' });
    expect(zone.status).toBe(201);
    const alice = connectBoardClient({ url: server.socketUrl(board.access_links.guest, { user_id: 'alice' }), name: board.board_uuid });
    const watcher = connectBoardClient({ url: server.socketUrl(board.access_links.guest, { user_id: 'carol' }), name: board.board_uuid });
    await alice.synced(); await watcher.synced();
    const seen: string[] = [];
    watcher.doc.on('update', (u: Uint8Array) => seen.push(Buffer.from(u).toString('latin1')));
    addObject(alice.doc, { id: 'secret', data: { text: 'TOPSECRET' }, x: 10, y: 10 });
    addObject(alice.doc, { id: 'fine', data: { text: 'ok' }, x: 900, y: 900 });
    await eventually(() => watcher.doc.getMap('objects').has('fine'));
    await eventually(() => !alice.doc.getMap('objects').has('secret'));
    await alice.saved();
    expect(watcher.doc.getMap('objects').has('secret')).toBe(false);
    expect(seen.join('')).not.toContain('TOPSECRET');
    expect(alice.messages.some((m) => m.type === 'write-rejected')).toBe(true);
    const read = await server.api('GET', `/boards/${board.board_uuid}`);
    expect(read.body.state.objects.map((o: { id: string }) => o.id)).toEqual(['fine']);
    const rest = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 't', data: {}, position: { x: 5, y: 5 } }, { 'x-api-key': '', authorization: `Bearer ${new URL(board.access_links.guest).searchParams.get('token')}` });
    expect(rest.status).toBe(403);
    alice.destroy(); watcher.destroy();
  });
});
