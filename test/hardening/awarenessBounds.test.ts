import * as encoding from 'lib0/encoding';
import { describe, expect, it } from 'vitest';
import { MessageType } from '../../src/realtime/wireFrames.js';
import { createBoard, serverForSuite, tokenOf, type CreatedBoard } from '../helpers/fixtures.js';
import type { BoardClient } from '../helpers/realtimeClient.js';
import { eventually, request } from '../helpers/testServer.js';

/**
 * Awareness (presence) states a socket sends are bounded like the values it writes into a
 * document: a state nested deeper than documents allow, or one too big to relay at cursor
 * rate, is dropped before any other client receives it and its socket is closed with
 * 4400 `invalid-awareness`; a name, a colour and a cursor pass.
 */
const { server, connect } = serverForSuite();

/** What each refused state carries under `payload`: no state a watcher sees may hold it. */
const REFUSED = [
  { what: 'nested 40 levels deep (documents allow 32)', json: nestedJson(40) },
  { what: 'nested 5,000 levels deep', json: nestedJson(5_000) },
  { what: 'of 200 kB', json: JSON.stringify({ payload: 'x'.repeat(200_000) }) },
];

/** `{"payload":{"a":{"a":…1}}}`, `depth` objects below `payload`, written as text (no recursion). */
function nestedJson(depth: number): string {
  return `{"payload":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
}

/**
 * The Awareness frame a provider sends for its own state, with the state's JSON text as given
 * (a provider's own `JSON.stringify` cannot write a state this deep).
 */
function awarenessFrame(client: BoardClient, json: string): Uint8Array {
  const update = encoding.createEncoder();
  encoding.writeVarUint(update, 1);
  encoding.writeVarUint(update, client.doc.clientID);
  encoding.writeVarUint(update, 1_000);
  encoding.writeVarString(update, json);
  const frame = encoding.createEncoder();
  encoding.writeVarString(frame, client.provider.effectiveName);
  encoding.writeVarUint(frame, MessageType.Awareness);
  encoding.writeVarUint8Array(frame, encoding.toUint8Array(update));
  return encoding.toUint8Array(frame);
}

/** A host watching the board's awareness, keeping every state it was ever shown. */
async function watch(board: CreatedBoard): Promise<{ client: BoardClient; seen: Array<Record<string, unknown>> }> {
  const client = connect(tokenOf(board.access_links.host), board.board_uuid);
  await client.synced();
  const seen: Array<Record<string, unknown>> = [];
  client.provider.awareness!.on('change', () => {
    for (const state of client.provider.awareness!.getStates().values()) seen.push(state);
  });
  return { client, seen };
}

/**
 * A guest whose name, colour and cursor the watcher sees (normal presence passes): once it
 * does, everything relayed before them has arrived too.
 */
async function presenceSeenBy(board: CreatedBoard, watcher: BoardClient): Promise<BoardClient> {
  const mover = connect(tokenOf(board.access_links.guest), board.board_uuid);
  await mover.synced();
  const presence = { user: { id: 'guest-7', name: 'Ada ü 🎉', color: '#336699' }, cursor: { x: 12.5, y: -34 } };
  mover.provider.setAwarenessField('user', presence.user);
  mover.provider.setAwarenessField('cursor', presence.cursor);
  await eventually(() => {
    const seen = watcher.provider.awareness!.getStates().get(mover.doc.clientID);
    return JSON.stringify({ user: seen?.user, cursor: seen?.cursor }) === JSON.stringify(presence);
  });
  return mover;
}

describe('awareness states sent over a socket are bounded', () => {
  for (const { what, json } of REFUSED) {
    it(`a state ${what} closes its socket with 4400 invalid-awareness and reaches no other client`, async () => {
      const board = await createBoard(server, 'Awareness');
      const watcher = await watch(board);
      const sender = connect(tokenOf(board.access_links.guest), board.board_uuid);
      await sender.synced();

      sender.socket.send(awarenessFrame(sender, json));
      await eventually(() => sender.closes.length > 0, 10_000);
      expect(sender.closes.at(-1)).toEqual({ code: 4400, reason: 'invalid-awareness' });

      // Normal presence still passes, and anything relayed before it has arrived.
      const mover = await presenceSeenBy(board, watcher.client);
      expect(watcher.seen.some((state) => 'payload' in state)).toBe(false);
      expect(mover.closes).toEqual([]);
      expect(watcher.client.closes).toEqual([]);
      expect((await request(server.url, 'GET', '/health')).status).toBe(200);
    });
  }
});
