import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { addObject, connectBoardClient, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';

/**
 * Only the names of the document layout open (docs/architecture.md): `<board_uuid>` and
 * `<board_uuid>/zones/<frame_uuid>` of one of the board's frames. Anything else is refused
 * before a document is created, so a guest cannot make the server keep documents of its own.
 */

const { server, clients } = serverForSuite();

type Client = BoardClient & { refusals: string[] };

function connect(link: string, name: string): Client {
  const client = Object.assign(connectBoardClient({ url: server.socketUrl(link), name }), { refusals: [] as string[] });
  client.provider.on('authenticationFailed', ({ reason }: { reason: string }) => client.refusals.push(reason));
  clients.push(client);
  return client;
}

/** Names of every document the database holds for a board (update log and snapshots). */
async function storedDocuments(boardId: string): Promise<string[]> {
  const database = await openDatabase(server.database.url);
  try {
    // Every name, filtered here: a name in capitals must count too, whatever the database's LIKE does.
    const updates = await database.prisma.documentUpdate.findMany({ distinct: ['name'], select: { name: true } });
    const snapshots = await database.prisma.documentSnapshot.findMany({ select: { name: true } });
    const names = [...updates, ...snapshots].map((row) => row.name).filter((name) => name.toLowerCase().startsWith(boardId));
    return [...new Set(names)].sort();
  } finally {
    await database.close();
  }
}

async function boardWithFrame() {
  const created = await server.api('POST', '/boards', { title: `Names ${randomUUID().slice(0, 8)}` });
  expect(created.status).toBe(201);
  const boardId = created.body.board_uuid as string;
  const frame = await server.api('POST', `/boards/${boardId}/frames`, { name: 'Plain frame' });
  expect(frame.status).toBe(201);
  return { boardId, frameId: frame.body.id as string, guest: created.body.access_links.guest as string, host: created.body.access_links.host as string };
}

const REFUSED: Array<[string, (board: { boardId: string; frameId: string }) => string]> = [
  ['<board>/scratch-1', ({ boardId }) => `${boardId}/scratch-1`],
  ['<board>/zones/', ({ boardId }) => `${boardId}/zones/`],
  ['<board>/anything/at/all', ({ boardId }) => `${boardId}/anything/at/all`],
  ['<board>//zones/<frame>', ({ boardId, frameId }) => `${boardId}//zones/${frameId}`],
  ['<board>/zones/<frame>/more', ({ boardId, frameId }) => `${boardId}/zones/${frameId}/more`],
  ['<board>/zones/<unknown frame uuid>', ({ boardId }) => `${boardId}/zones/${randomUUID()}`],
  ['<BOARD> in capitals', ({ boardId }) => boardId.toUpperCase()],
];

describe('document names outside the layout', () => {
  for (const [what, nameOf] of REFUSED) {
    it(`refuses ${what} to a guest before anything is created or stored`, async () => {
      const board = await boardWithFrame();
      const name = nameOf(board);
      const client = connect(board.guest, name);
      addObject(client.doc, { id: 'squatter', data: { text: 'kept?' }, x: 1, y: 1 });
      await eventually(() => client.refusals.length > 0 || client.closes.length > 0);
      expect(client.provider.isSynced).toBe(false);
      // Barrier: a valid document opened afterwards is stored, the refused one never was.
      const host = connect(board.host, board.boardId);
      addObject(host.doc, { id: 'barrier', x: 2, y: 2 });
      await host.saved();
      expect(await storedDocuments(board.boardId)).toEqual([board.boardId]);
    });
  }

  it('opens and stores the board document and the document of one of its frames', async () => {
    const board = await boardWithFrame();
    const zone = `${board.boardId}/zones/${board.frameId}`;
    for (const name of [board.boardId, zone]) {
      const client = connect(board.guest, name);
      addObject(client.doc, { id: `in-${name.length}`, x: 1, y: 1 });
      await client.saved();
    }
    expect(await storedDocuments(board.boardId)).toEqual([board.boardId, zone].sort());
  });
});
