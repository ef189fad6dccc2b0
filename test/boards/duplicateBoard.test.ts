import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { createBoard, expectOk, postFrame, serverForSuite, tokenOf, type CreatedBoard } from '../helpers/fixtures.js';
import { addObject } from '../helpers/realtimeClient.js';

/**
 * POST /boards/<id>/duplicate copies everything a board holds: its frames (zones as plain
 * frames: participants are not copied, so neither are assignments), parent links pointing at
 * the copies, and every object, those inside zones included. Zone content lives in each zone's
 * own document; the copy has no zone, so it all lives in the copy's board document, the one
 * every client opens.
 */
const { server, connect } = serverForSuite();

const zoneDocument = (boardId: string, frameId: string) => `${boardId}/zones/${frameId}`;
const textsOf = (objects: Array<{ data?: { text?: unknown } }>) => objects.map((object) => object.data?.text).sort();

/** The frame fields a copy keeps, without what makes each frame its own (id, board, timestamps). */
const kept = (frame: Record<string, any>) => ({
  name: frame.name,
  order: frame.order,
  bounds: [frame.bounds_x, frame.bounds_y, frame.bounds_width, frame.bounds_height],
  lock_mode: frame.lock_mode,
  background_color: frame.background_color,
  visibility: frame.visibility,
  zone_visibility: frame.zone_visibility,
});

/**
 * A lesson board: an object on the board, a locked plain frame and a clone of it, a hidden zone
 * whose student writes in it over a socket (one object reusing the id of the board's object),
 * a host-only zone the host writes in over REST, and a zone archived after it got content.
 */
async function lessonBoard(): Promise<{ board: CreatedBoard; frames: Record<string, Record<string, any>>; texts: string[] }> {
  const board = await createBoard(server, 'Lesson', { initial_objects: [{ type: 'note', data: { text: 'on the board' }, position: { x: -500, y: -500 } }] });
  const boardObjectId = (await expectOk(server, 'GET', `/boards/${board.board_uuid}`)).state.objects[0].id as string;
  const intro = await postFrame(server, board.board_uuid, { name: 'Intro', order: 0, lock_mode: 'soft', background_color: '#fafafa', bounds_x: -1000, bounds_y: -1000 });
  const introCopy = (await server.api('POST', `/boards/${board.board_uuid}/frames/${intro.id}/clone`, { offsetY: 2000 })).body;
  const zone = { bounds_width: 400, bounds_height: 400, bounds_y: 0 };
  const ada = await postFrame(server, board.board_uuid, { ...zone, name: 'Ada', order: 1, bounds_x: 0, assigned_user_id: 'ada', zone_visibility: 'hidden' });
  const bo = await postFrame(server, board.board_uuid, { ...zone, name: 'Bo', order: 1, bounds_x: 1000, assigned_user_id: 'bo', zone_visibility: 'host_only' });
  const cy = await postFrame(server, board.board_uuid, { ...zone, name: 'Cy', order: 2, bounds_x: 2000, assigned_user_id: 'cy' });

  const { link } = await server.personalLink(board.board_uuid, 'ada');
  const student = connect(tokenOf(link), zoneDocument(board.board_uuid, ada.id));
  await student.synced();
  addObject(student.doc, { id: 'ada-answer', data: { text: 'ada answer' }, x: 50, y: 50, createdBy: 'ada' });
  addObject(student.doc, { id: boardObjectId, data: { text: 'ada reused an id' }, x: 60, y: 60, createdBy: 'ada' });
  await student.saved();
  for (const [text, x] of [['bo answer', 1050], ['cy answer', 2050]] as const) {
    const posted = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'note', data: { text }, position: { x, y: 50 } });
    expect(posted.status).toBe(201);
    expect(posted.body.zone_id).toBeDefined();
  }
  await expectOk(server, 'DELETE', `/boards/${board.board_uuid}/frames/${cy.id}`);
  const frames = { intro, introCopy, ada, bo, cy: await expectOk(server, 'GET', `/boards/${board.board_uuid}/frames/${cy.id}`) };
  return { board, frames, texts: ['on the board', 'ada answer', 'ada reused an id', 'bo answer', 'cy answer'].sort() };
}

describe('POST /boards/:id/duplicate of a board with frames and zones', () => {
  it('copies every frame, zones as plain frames keeping their settings, with parent links to the copies, and leaves the source as it was', async () => {
    const { board, frames } = await lessonBoard();
    const sourceBefore = await expectOk(server, 'GET', `/boards/${board.board_uuid}`);
    const framesBefore = await expectOk(server, 'GET', `/boards/${board.board_uuid}/frames?includeArchived=true`);
    const copy = await server.api('POST', `/boards/${board.board_uuid}/duplicate`);
    expect(copy.status).toBe(201);

    const copied = (await expectOk(server, 'GET', `/boards/${copy.body.board_uuid}/frames?includeArchived=true`)) as unknown as Array<Record<string, any>>;
    const sources = [frames.intro!, frames.introCopy!, frames.ada!, frames.bo!, frames.cy!];
    expect(copied.map(kept)).toEqual(sources.map(kept));
    for (const frame of copied) {
      expect(frame).toMatchObject({ board_id: copy.body.board_uuid, assigned_participant_id: null, assigned_user_id: null, zone_version: 1 });
      expect(sources.map((source) => source.id)).not.toContain(frame.id);
    }
    const copyOf = (name: string) => copied.find((frame) => frame.name === name)!;
    expect(copyOf('Intro (Copy)').parent_frame_id).toBe(copyOf('Intro').id);
    expect(copied.filter((frame) => frame.name !== 'Intro (Copy)').map((frame) => frame.parent_frame_id)).toEqual([null, null, null, null]);

    // The source keeps its zones, their assignments and their content.
    expect(await expectOk(server, 'GET', `/boards/${board.board_uuid}/frames?includeArchived=true`)).toEqual(framesBefore);
    expect((await expectOk(server, 'GET', `/boards/${board.board_uuid}`)).state).toEqual(sourceBefore.state);
    const { link } = await server.personalLink(board.board_uuid, 'ada');
    const student = connect(tokenOf(link), zoneDocument(board.board_uuid, frames.ada!.id));
    await student.synced();
    expect(student.doc.getMap('objects').size).toBe(2);
  });

  it('copies the content of every zone into the copy’s board document, where guests and the API see it', async () => {
    const { board, texts } = await lessonBoard();
    const copy = await server.api('POST', `/boards/${board.board_uuid}/duplicate`);
    expect(copy.status).toBe(201);

    const read = await expectOk(server, 'GET', `/boards/${copy.body.board_uuid}`);
    expect(textsOf(read.state.objects)).toEqual(texts);
    expect(read.state.objects.filter((object: Record<string, unknown>) => 'zone_id' in object)).toEqual([]);
    expect(read.objects_count).toBe(texts.length);
    // Every object keeps its place and author; one whose id the board already used got a new id.
    const answer = read.state.objects.find((object: Record<string, any>) => object.data.text === 'ada answer');
    expect(answer).toMatchObject({ id: 'ada-answer', position: { x: 50, y: 50 }, created_by: 'ada' });
    expect(new Set(read.state.objects.map((object: Record<string, unknown>) => object.id)).size).toBe(texts.length);

    // A guest of the copy, on the document every client opens, sees all of it.
    const guest = connect(tokenOf(copy.body.access_links.guest), copy.body.board_uuid);
    await guest.synced();
    const seen = [...guest.doc.getMap('objects').values()].map((value) => (value as Y.Map<any>).get('data'));
    expect(textsOf(seen.map((data) => ({ data })))).toEqual(texts);
  });
});
