import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestServer, type TestServer } from '../helpers/testServer.js';

describe('realtime smoke', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startTestServer(); });
  afterAll(async () => { await server.close(); });

  it('syncs', async () => {
    const created = await server.api('POST', '/boards', { title: 'A', initial_objects: [{ type: 't', data: {a:1}, position: { x: 1, y: 2 } }] });
    const token = new URL(created.body.access_links.guest).searchParams.get('token')!;
    const wsUrl = server.url.replace('http', 'ws') + '/api/v1/realtime?token=' + token + '&user_id=u1';
    const socket = new HocuspocusProviderWebsocket({ url: wsUrl, WebSocketPolyfill: WebSocket as any });
    const doc = new Y.Doc();
    const provider = new HocuspocusProvider({ websocketProvider: socket, name: created.body.board_uuid, document: doc, token: 'x' });
    provider.attach();
    await eventually(() => provider.isSynced);
    expect(doc.getMap('objects').size).toBe(1);
    const m = new Y.Map<unknown>([['id','o2'],['type','t'],['data',{}],['position',{x:0,y:0}],['created_at', new Date().toISOString()],['created_by','u1']]);
    doc.getMap('objects').set('o2', m);
    await eventually(() => provider.unsyncedChanges === 0);
    const read = await server.api('GET', `/boards/${created.body.board_uuid}?includeParticipants=true`);
    expect(read.body.state.objects).toHaveLength(2);
    expect(read.body.participants).toHaveLength(1);
    console.log(server.events.map(e => e.name));
    provider.destroy(); socket.destroy();
    await eventually(() => server.events.some(e => e.name === 'session.ended'));
    console.log(server.events.map(e => e.name));
  });
});
