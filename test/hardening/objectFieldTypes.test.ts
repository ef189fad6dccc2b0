import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { createBoard, serverForSuite } from '../helpers/fixtures.js';

/**
 * A socket client writes an object's fields as it likes: `created_at` may be a number, an
 * object or null instead of a timestamp. The board must stay readable, in one order, for
 * everyone who lists it.
 */
const suite = serverForSuite();

describe('objects a socket client wrote with a created_at that is no timestamp', () => {
  it('keep the board listable: GET /boards/<id> and GET /boards/<id>/elements answer 200 in one order', async () => {
    const { server } = suite;
    const board = await createBoard(server, 'Odd fields');
    const client = suite.connect(new URL(board.access_links.guest).searchParams.get('token')!, board.board_uuid);
    await client.saved();
    const odd: Array<[string, unknown]> = [['as-number', 1_700_000_000], ['as-object', { when: 'now' }], ['as-null', null], ['as-string', '2030-01-01T00:00:00.000Z']];
    client.doc.transact(() => {
      for (const [id, createdAt] of odd) {
        client.doc.getMap('objects').set(id, new Y.Map<unknown>([['id', id], ['type', 'note'], ['data', {}], ['position', { x: 1, y: 1 }], ['created_at', createdAt]]));
      }
    });
    await client.saved();

    const read = await server.api('GET', `/boards/${board.board_uuid}`);
    expect(read.status).toBe(200);
    const listed = (read.body.state.objects as Array<{ id: string }>).map((object) => object.id);
    expect(listed).toEqual(expect.arrayContaining(odd.map(([id]) => id)));
    const elements = await server.api('GET', `/boards/${board.board_uuid}/elements?pagination=false`);
    expect(elements.status).toBe(200);
    expect((elements.body as Array<{ id: string }>).map((object) => object.id)).toEqual(listed);
  });
});
