import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { createBoard, serverForSuite } from '../helpers/fixtures.js';
import { addObject } from '../helpers/realtimeClient.js';

// The board row's objects_count is kept from the objects map's own changes
// (realtime/persistenceExtension.ts), not by counting the map on every update.
const { server, connect } = serverForSuite();

async function listedCount(boardId: string): Promise<number> {
  const listed = await server.api('GET', '/boards');
  return (listed.body as Array<{ board_uuid: string; objects_count: number }>).find((board) => board.board_uuid === boardId)!.objects_count;
}

describe('objects_count of a board edited over a socket', () => {
  it('follows adds, deletes, replacements and changes inside objects', async () => {
    const board = await createBoard(server, 'Count');
    const client = connect(new URL(board.access_links.host).searchParams.get('token')!, board.board_uuid);
    await client.synced();
    const objects = client.doc.getMap('objects');

    for (const id of ['a', 'b', 'c', 'd']) addObject(client.doc, { id });
    await client.saved();
    expect(await listedCount(board.board_uuid)).toBe(4);

    objects.delete('a');
    // Replaced under the same id: still one object.
    client.doc.transact(() => objects.set('b', new Y.Map<unknown>([['id', 'b'], ['type', 'sticky']])));
    // A change inside an object, and an object added and removed in one transaction: no count change.
    (objects.get('c') as Y.Map<unknown>).set('data', { text: 'edited' });
    client.doc.transact(() => {
      addObject(client.doc, { id: 'fleeting' });
      objects.delete('fleeting');
    });
    // Deleting what is not there changes nothing.
    objects.delete('never-was');
    await client.saved();
    expect(await listedCount(board.board_uuid)).toBe(3);

    const read = await server.api('GET', `/boards/${board.board_uuid}`);
    expect((read.body.state.objects as unknown[]).length).toBe(3);
  });
});
