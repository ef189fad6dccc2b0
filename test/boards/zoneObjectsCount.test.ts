import { describe, expect, it } from 'vitest';
import { createBoard, postFrame, serverForSuite, tokenOf, type CreatedBoard } from '../helpers/fixtures.js';
import { addObject } from '../helpers/realtimeClient.js';
import { eventually, request } from '../helpers/testServer.js';

/**
 * `objects_count` counts the objects of every document of a board, its zones' documents
 * included, as far as the reader may count them: the organization's listing (API key) and the
 * host count everything; a guest counts the board's document and the zones it may read, never a
 * zone hidden from it. `state.version` moves when a zone's content changes.
 */
const { server, connect } = serverForSuite();

const zoneDocument = (board: CreatedBoard, frameId: string) => `${board.board_uuid}/zones/${frameId}`;
const ZONE = { bounds_y: 0, bounds_width: 400, bounds_height: 400 };

async function listedCount(board: CreatedBoard): Promise<number> {
  const listed = await server.api('GET', '/boards');
  expect(listed.status).toBe(200);
  return (listed.body as Array<{ board_uuid: string; objects_count: number }>).find((item) => item.board_uuid === board.board_uuid)!.objects_count;
}

/** GET /boards/<id> with a board token (or the API key), without and with its objects. */
async function readAs(board: CreatedBoard, token: string | null): Promise<{ count: number; listedObjects: number; version: number }> {
  const get = (query: string) =>
    token === null
      ? server.api('GET', `/boards/${board.board_uuid}${query}`)
      : request(server.url, 'GET', `/api/v1/boards/${board.board_uuid}${query}`, undefined, { authorization: `Bearer ${token}` });
  const bare = await get('?includeObjects=false');
  const full = await get('');
  expect([bare.status, full.status]).toEqual([200, 200]);
  expect(full.body.objects_count).toBe(bare.body.objects_count);
  return { count: bare.body.objects_count, listedObjects: full.body.state.objects.length, version: bare.body.state.version };
}

describe('objects_count and state.version of a board with zones', () => {
  it('count zone content for whoever may read it, and move as a student edits a zone over a socket', async () => {
    // One object on the board; a zone created over it takes it into the zone's document.
    const board = await createBoard(server, 'Counts', { initial_objects: [{ type: 'note', data: { text: 'gathered' }, position: { x: 2050, y: 50 } }] });
    await postFrame(server, board.board_uuid, { ...ZONE, name: 'Open', bounds_x: 2000, assigned_user_id: 'bo' });
    const hidden = await postFrame(server, board.board_uuid, { ...ZONE, name: 'Ada', bounds_x: 0, assigned_user_id: 'ada', zone_visibility: 'hidden' });
    const outside = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'note', data: { text: 'outside' }, position: { x: -900, y: 0 } });
    expect(outside.status).toBe(201);
    const { link, token: adaToken } = await server.personalLink(board.board_uuid, 'ada');
    const ada = connect(tokenOf(link), zoneDocument(board, hidden.id));
    await ada.synced();
    addObject(ada.doc, { id: 'a1', x: 10, y: 10 });
    addObject(ada.doc, { id: 'a2', x: 20, y: 20 });
    await ada.saved();

    await eventually(async () => (await listedCount(board)) === 4);
    const guestToken = tokenOf(board.access_links.guest);
    expect(await readAs(board, null)).toMatchObject({ count: 4, listedObjects: 4 });
    expect(await readAs(board, tokenOf(board.access_links.host))).toMatchObject({ count: 4, listedObjects: 4 });
    expect(await readAs(board, adaToken)).toMatchObject({ count: 4, listedObjects: 4 });
    // The shared guest link reads the board and the open zone, not Ada's hidden one.
    expect(await readAs(board, guestToken)).toMatchObject({ count: 2, listedObjects: 2 });

    const before = await readAs(board, guestToken);
    addObject(ada.doc, { id: 'a3', x: 30, y: 30 });
    await ada.saved();
    await eventually(async () => (await listedCount(board)) === 5);
    const added = await readAs(board, guestToken);
    expect(added.count).toBe(2);
    expect(added.version).toBeGreaterThan(before.version);

    ada.doc.getMap('objects').delete('a1');
    await ada.saved();
    await eventually(async () => (await listedCount(board)) === 4);
    expect((await readAs(board, null)).version).toBeGreaterThan(added.version);
  });
});
