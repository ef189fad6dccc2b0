import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { encodeUpdateFrame } from '../../src/realtime/wireFrames.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { addObject, authReplyOf, connectBoardClient, encodeAuthFrame, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';

/**
 * At most 10 messages per second per connection pass at once. Beyond it the service merges
 * instead of dropping (no acknowledged edit is lost), and only a connection that floods far
 * past the limit is closed (4429), without slowing down anybody else on the board.
 */
const { server, clients } = serverForSuite();
const rawSockets: WebSocket[] = [];

afterEach(() => {
  rawSockets.splice(0).forEach((socket) => socket.terminate());
});

async function newBoard(): Promise<{ boardId: string; url: string }> {
  const created = await server.api('POST', '/boards', { title: 'Busy board' });
  expect(created.status).toBe(201);
  return { boardId: created.body.board_uuid, url: server.socketUrl(created.body.access_links.guest) };
}

async function connected(url: string, boardId: string): Promise<BoardClient> {
  const client = connectBoardClient({ url, name: boardId });
  clients.push(client);
  await client.synced();
  return client;
}

/** A bare WebSocket speaking the Hocuspocus protocol, authenticated for one document. */
async function connectRawClient(url: string, documentName: string): Promise<{ socket: WebSocket; closed: Promise<{ code: number; reason: string }> }> {
  const socket = new WebSocket(url);
  rawSockets.push(socket);
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const authenticated = new Promise<void>((resolve, reject) => {
    socket.on('message', (data: Buffer) => {
      const reply = authReplyOf(new Uint8Array(data));
      if (!reply) return;
      if (reply.granted) resolve();
      else reject(new Error(`authentication refused (${reply.authType})`));
    });
  });
  await once(socket, 'open');
  socket.send(encodeAuthFrame(documentName, new URL(url).searchParams.get('token') ?? ''));
  await authenticated;
  return { socket, closed };
}

/** `count` valid update frames, each a separate Yjs update of its own document. */
function updateFrames(documentName: string, count: number): Uint8Array[] {
  const doc = new Y.Doc();
  const frames: Uint8Array[] = [];
  doc.on('update', (update: Uint8Array) => frames.push(encodeUpdateFrame(documentName, update)));
  for (let index = 0; index < count; index += 1) doc.getMap('scratch').set('counter', index);
  return frames;
}

const ids = (objects: Array<{ id: string }>) => objects.map((object) => object.id).sort();

describe('the per-connection message rate limit', () => {
  it('merges a burst of 100 updates instead of dropping any, tells the sender, and acknowledges every one of them', async () => {
    const { boardId, url } = await newBoard();
    const sender = await connected(url, boardId);
    const receiver = await connected(url, boardId);

    const expected: string[] = [];
    for (let index = 0; index < 100; index += 1) {
      const id = `burst-${String(index).padStart(3, '0')}`;
      expected.push(id);
      addObject(sender.doc, { id, data: { text: `note ${index}` }, x: index });
    }
    expect(sender.provider.unsyncedChanges).toBeGreaterThanOrEqual(100);

    await eventually(() => receiver.doc.getMap('objects').size === 100, 10_000);
    await sender.saved();
    expect([...receiver.doc.getMap('objects').keys()].sort()).toEqual(expected);
    expect(receiver.doc.getMap('objects').toJSON()).toEqual(sender.doc.getMap('objects').toJSON());
    expect(sender.messages).toContainEqual(expect.objectContaining({ type: 'rate-limited', limit_per_second: 10 }));
    expect(sender.closes).toEqual([]);

    const read = await server.api('GET', `/boards/${boardId}`);
    expect(ids(read.body.state.objects)).toEqual(expected);
    expect(read.body.objects_count).toBe(100);
  });

  it('ends with the latest awareness state on the other client after awareness spam', async () => {
    const { boardId, url } = await newBoard();
    const spammer = await connected(url, boardId);
    const watcher = await connected(url, boardId);

    const seen: number[] = [];
    watcher.provider.awareness!.on('change', () => {
      const cursor = watcher.provider.awareness!.getStates().get(spammer.doc.clientID)?.cursor as { x: number } | undefined;
      if (cursor && cursor.x !== seen.at(-1)) seen.push(cursor.x);
    });
    for (let index = 0; index <= 60; index += 1) spammer.provider.setAwarenessField('cursor', { x: index, y: -index });

    await eventually(() => seen.at(-1) === 60, 10_000);
    expect(watcher.provider.awareness!.getStates().get(spammer.doc.clientID)?.cursor).toEqual({ x: 60, y: -60 });
    // Never an older state after a newer one.
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(spammer.closes).toEqual([]);
  });

  it('closes a flooding connection with 4429 while another client on the board keeps working', async () => {
    const { boardId, url } = await newBoard();
    const editor = await connected(url, boardId);
    const watcher = await connected(url, boardId);
    const flooder = await connectRawClient(url, boardId);
    const frames = updateFrames(boardId, 3_000);

    let latencyMs: number | null = null;
    let sentDuringFlood = false;
    const flood = (async () => {
      for (let index = 0; index < frames.length && flooder.socket.readyState === WebSocket.OPEN; index += 20) {
        for (const frame of frames.slice(index, index + 20)) flooder.socket.send(frame);
        if (index >= 100 && !sentDuringFlood) {
          sentDuringFlood = true;
          const sentAt = Date.now();
          addObject(editor.doc, { id: 'during-flood', data: { text: 'still gets through' } });
          void eventually(() => watcher.doc.getMap('objects').has('during-flood'), 10_000).then(() => (latencyMs = Date.now() - sentAt));
        }
        // Pace the flood (about 2 000 frames per second) so it is still going when the edit is made.
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();

    const closed = await flooder.closed;
    await flood;
    expect(sentDuringFlood).toBe(true);
    expect(closed).toEqual({ code: 4429, reason: 'rate-limited' });
    await eventually(() => latencyMs !== null, 5_000);
    expect(latencyMs).toBeLessThan(2_000);

    await editor.saved();
    expect(editor.closes).toEqual([]);
    expect(watcher.closes).toEqual([]);
    addObject(editor.doc, { id: 'after-flood', data: { text: 'the board still works' } });
    await eventually(() => watcher.doc.getMap('objects').has('after-flood'));
    const read = await server.api('GET', `/boards/${boardId}`);
    expect(ids(read.body.state.objects)).toEqual(['after-flood', 'during-flood']);
  });
});
