import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/assertions.js';
import { serverForSuite, type CreatedBoard, tokenOf, createBoard, postFrame } from '../helpers/fixtures.js';
import { addObject, connectBoardClient } from '../helpers/realtimeClient.js';
import { eventually, request, type ApiResponse } from '../helpers/testServer.js';

/** Zones over REST: their fields, assignment, visibility and permissions (docs/frames-and-zones.md). */

const { server, clients } = serverForSuite();

const newBoard = () => createBoard(server, 'Zones');

/** Creates a frame (a zone when an assignment id is given); 300×300 at (x, 0) unless told otherwise. */
const createFrame = (board: CreatedBoard, body: Record<string, unknown> = {}) => postFrame(server, board.board_uuid, { bounds_width: 300, bounds_height: 300, ...body });

/** Calls the API with a board token (`role`) and, when given, a declared user id. */
const callAs = (board: CreatedBoard, role: 'host' | 'guest', userId: string | null, method: string, path: string, body?: unknown): Promise<ApiResponse> =>
  request(server.url, method, `/api/v1${path}`, body, { authorization: `Bearer ${tokenOf(board.access_links[role])}`, ...(userId ? { 'x-user-id': userId } : {}) });
/** Calls the API with a student's personal link (a student owns its zones only through it). */
const callAsStudent = async (board: CreatedBoard, userId: string, method: string, path: string, body?: unknown): Promise<ApiResponse> =>
  request(server.url, method, `/api/v1${path}`, body, { authorization: `Bearer ${(await server.personalLink(board.board_uuid, userId)).token}` });
const framePath = (board: CreatedBoard, frameId: string, suffix = '') => `/boards/${board.board_uuid}/frames/${frameId}${suffix}`;
const getFrame = async (board: CreatedBoard, frameId: string) => (await server.api('GET', framePath(board, frameId))).body;
const names = (res: ApiResponse) => (res.body as Array<{ name: string }>).map((f) => f.name);
const zoneNames = async (board: CreatedBoard) => names(await server.api('GET', `/boards/${board.board_uuid}/frames?assigned=true`));

/** Connects a participant over a socket with its personal link, which makes its id known to the board. */
async function join(board: CreatedBoard, userId: string): Promise<void> {
  const { link } = await server.personalLink(board.board_uuid, userId);
  const client = connectBoardClient({ url: server.socketUrl(link), name: board.board_uuid });
  clients.push(client);
  await client.synced();
}

/** Repeats a call until it stops answering 404 (the participant is recorded right after it connected). */
const onceKnown = async (call: () => Promise<ApiResponse>): Promise<ApiResponse> =>
  (await eventually(async () => {
    const res = await call();
    return res.status === 404 ? undefined : res;
  }))!;

describe('creating a zone with POST /boards/:id/frames', () => {
  it('creates a zone for a user with zone_version 1 and the given zone_visibility', async () => {
    const board = await newBoard();
    const zone = await createFrame(board, { name: 'Anna', assigned_user_id: 'user-anna', zone_visibility: 'hidden' });
    expect(zone).toMatchObject({ assigned_user_id: 'user-anna', assigned_participant_id: null, zone_visibility: 'hidden', zone_version: 1, visibility: 'active' });
    expect(await zoneNames(board)).toEqual(['Anna']);
  });

  it('stores only assigned_user_id when both assignment ids are given', async () => {
    const board = await newBoard();
    const zone = await createFrame(board, { assigned_user_id: 'user-1', assigned_participant_id: 'never-connected' });
    expect(zone).toMatchObject({ assigned_user_id: 'user-1', assigned_participant_id: null });
    expect(await getFrame(board, zone.id)).toEqual(zone);
  });

  it('answers 404 for a participant that never connected and assigns it once it connected over a socket', async () => {
    const board = await newBoard();
    const body = { name: 'Ben', bounds_width: 300, bounds_height: 300, assigned_participant_id: 'ben' };
    const path = `/boards/${board.board_uuid}/frames`;
    expectErrorBody(await server.api('POST', path, body), { statusCode: 404, error: 'Not Found', path: `/api/v1${path}` });
    expect(await zoneNames(board)).toEqual([]);

    await join(board, 'ben');
    const created = await onceKnown(() => server.api('POST', path, body));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ assigned_participant_id: 'ben', assigned_user_id: null, zone_version: 1 });
  });

  it('answers 409 when a new zone overlaps an existing zone and creates nothing', async () => {
    const board = await newBoard();
    await createFrame(board, { name: 'First', assigned_user_id: 'u-1' });
    const path = `/boards/${board.board_uuid}/frames`;
    for (const at of [{ bounds_x: 299, bounds_y: 299 }, { bounds_x: -100, bounds_y: -100 }, { bounds_x: 100, bounds_y: 100, bounds_width: 100, bounds_height: 100 }]) {
      const res = await server.api('POST', path, { name: 'Second', bounds_width: 300, bounds_height: 300, assigned_user_id: 'u-2', ...at });
      expectErrorBody(res, { statusCode: 409, error: 'Conflict', path: `/api/v1${path}` });
    }
    expect(names(await server.api('GET', path))).toEqual(['First']);
  });

  it('accepts zones that only touch at their edges', async () => {
    const board = await newBoard();
    await createFrame(board, { name: 'Centre', assigned_user_id: 'u-0' });
    await createFrame(board, { name: 'Right', bounds_x: 300, assigned_user_id: 'u-1' });
    await createFrame(board, { name: 'Below', bounds_y: 300, assigned_user_id: 'u-2' });
    await createFrame(board, { name: 'Corner', bounds_x: -300, bounds_y: -300, assigned_user_id: 'u-3' });
    expect(await zoneNames(board)).toEqual(['Centre', 'Right', 'Below', 'Corner']);
  });

  it('lets a plain frame overlap a zone and a zone be created over a plain frame', async () => {
    const board = await newBoard();
    await createFrame(board, { name: 'Zone', assigned_user_id: 'u-1' });
    await createFrame(board, { name: 'Plain over zone', bounds_x: 100 });
    await createFrame(board, { name: 'Backdrop', bounds_x: 1000, bounds_width: 2000, bounds_height: 2000 });
    await createFrame(board, { name: 'Zone over plain', bounds_x: 1500, assigned_user_id: 'u-2' });
    expect(await zoneNames(board)).toEqual(['Zone', 'Zone over plain']);
  });

  it('answers 403 when a guest creates a zone and creates nothing', async () => {
    const board = await newBoard();
    await join(board, 'guest-1');
    const path = `/boards/${board.board_uuid}/frames`;
    for (const body of [{ name: 'Mine', assigned_user_id: 'guest-1' }, { name: 'Mine', assigned_participant_id: 'guest-1', zone_visibility: 'visible' }]) {
      expectErrorBody(await callAs(board, 'guest', 'guest-1', 'POST', path, body), { statusCode: 403, error: 'Forbidden', path: `/api/v1${path}` });
    }
    expect(names(await server.api('GET', `${path}?includeArchived=true`))).toEqual([]);
  });
});

describe('zone_version', () => {
  it('starts at 1 and increments on every zone change: patch, assign, reassign, unassign, delete', async () => {
    const board = await newBoard();
    const zone = await createFrame(board, { assigned_user_id: 'u-1' });
    expect(zone.zone_version).toBe(1);
    const steps: Array<[string, string, unknown?]> = [['PATCH', '', { bounds_x: 40 }], ['POST', '/assign', { user_id: 'u-2' }],
      ['PATCH', '', { zone_visibility: 'host_only' }], ['POST', '/assign', { user_id: 'u-3' }], ['POST', '/unassign'], ['DELETE', '']];
    for (const [index, [method, suffix, body]] of steps.entries()) {
      const res = await server.api(method, framePath(board, zone.id, suffix), body);
      expect(res.status).toBe(200);
      expect((await getFrame(board, zone.id)).zone_version).toBe(index + 2);
    }
  });
});

describe('PATCH and DELETE of a zone', () => {
  it('lets the host move a zone up to another zone but answers 409 when the new bounds overlap it', async () => {
    const board = await newBoard();
    await createFrame(board, { name: 'Fixed', assigned_user_id: 'u-1' });
    const moving = await createFrame(board, { name: 'Moving', bounds_x: 1000, assigned_user_id: 'u-2' });
    const path = framePath(board, moving.id);
    for (const change of [{ bounds_x: 250 }, { bounds_x: 299, bounds_y: 299 }, { bounds_x: -1000, bounds_width: 2000 }]) {
      expectErrorBody(await server.api('PATCH', path, change), { statusCode: 409, error: 'Conflict', path: `/api/v1${path}` });
    }
    expect(await getFrame(board, moving.id)).toEqual(moving);
    const touching = await server.api('PATCH', path, { bounds_x: 300 });
    expect(touching.status).toBe(200);
    expect(touching.body).toMatchObject({ bounds_x: 300, zone_version: 2 });
  });

  it('answers 409 when an archived zone is restored onto the area of another zone', async () => {
    const board = await newBoard();
    const first = await createFrame(board, { name: 'First', assigned_user_id: 'u-1' });
    expect((await server.api('PATCH', framePath(board, first.id), { visibility: 'archived' })).status).toBe(200);
    await createFrame(board, { name: 'Second', assigned_user_id: 'u-2' });
    const path = framePath(board, first.id);
    expectErrorBody(await server.api('PATCH', path, { visibility: 'active' }), { statusCode: 409, error: 'Conflict', path: `/api/v1${path}` });
    expect(await getFrame(board, first.id)).toMatchObject({ visibility: 'archived', zone_version: 2 });
    expect(await zoneNames(board)).toEqual(['Second']);
  });

  it('answers 403 when a guest changes or deletes a zone, even its own, and changes nothing', async () => {
    const board = await newBoard();
    const zone = await createFrame(board, { assigned_user_id: 'owner' });
    const path = framePath(board, zone.id);
    for (const userId of ['owner', 'someone-else', null]) {
      expectErrorBody(await callAs(board, 'guest', userId, 'PATCH', path, { bounds_x: 500 }), { statusCode: 403, error: 'Forbidden', path: `/api/v1${path}` });
      expectErrorBody(await callAs(board, 'guest', userId, 'DELETE', path), { statusCode: 403, error: 'Forbidden', path: `/api/v1${path}` });
    }
    expectErrorBody(await callAsStudent(board, 'owner', 'PATCH', path, { bounds_x: 500 }), { statusCode: 403, error: 'Forbidden', path: `/api/v1${path}` });
    expectErrorBody(await callAsStudent(board, 'owner', 'DELETE', path), { statusCode: 403, error: 'Forbidden', path: `/api/v1${path}` });
    expect(await getFrame(board, zone.id)).toEqual(zone);
    expect((await callAs(board, 'host', null, 'PATCH', path, { name: 'By host token' })).status).toBe(200);
  });

  it('archives a deleted zone, clears both assignment ids, increments zone_version and frees its area', async () => {
    const board = await newBoard();
    const zone = await createFrame(board, { name: 'Old', assigned_user_id: 'u-1', zone_visibility: 'hidden' });
    const res = await server.api('DELETE', framePath(board, zone.id));
    expect(res.status).toBe(200);
    expect(typeof res.body.message).toBe('string');
    expect(await getFrame(board, zone.id)).toMatchObject({ visibility: 'archived', assigned_user_id: null, assigned_participant_id: null, zone_version: 2 });
    expect(await zoneNames(board)).toEqual([]);
    await createFrame(board, { name: 'New', assigned_user_id: 'u-2' });

    const restored = await server.api('PATCH', framePath(board, zone.id), { visibility: 'active' });
    expect(restored.body).toMatchObject({ visibility: 'active', assigned_user_id: null, zone_version: 3 });
    expect(await zoneNames(board)).toEqual(['New']);
  });
});

describe('POST /boards/:id/frames/:fid/assign and /unassign', () => {
  it('assigns a connected participant: 200 zone record, zone_version + 1', async () => {
    const board = await newBoard();
    const frame = await createFrame(board);
    await join(board, 'carla');
    const res = await onceKnown(() => server.api('POST', framePath(board, frame.id, '/assign'), { participant_id: 'carla' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...frame, assigned_participant_id: 'carla', zone_version: 2, updated_at: expect.any(String) });
    expect(await zoneNames(board)).toEqual(['Frame']);
  });

  it('stores only user_id when both ids are given, and reassigning to another id increments the version', async () => {
    const board = await newBoard();
    const frame = await createFrame(board);
    const first = await server.api('POST', framePath(board, frame.id, '/assign'), { participant_id: 'ghost', user_id: 'user-a' });
    expect(first.body).toMatchObject({ assigned_user_id: 'user-a', assigned_participant_id: null, zone_version: 2 });
    const second = await server.api('POST', framePath(board, frame.id, '/assign'), { user_id: 'user-b' });
    expect(second.body).toMatchObject({ assigned_user_id: 'user-b', assigned_participant_id: null, zone_version: 3 });
    await join(board, 'dora');
    const third = await onceKnown(() => server.api('POST', framePath(board, frame.id, '/assign'), { participant_id: 'dora' }));
    expect(third.body).toMatchObject({ assigned_user_id: null, assigned_participant_id: 'dora', zone_version: 4 });
  });

  it.each([
    ['an empty body', {}, 'participant_id'],
    ['an empty participant_id', { participant_id: '' }, 'participant_id'],
    ['a user_id that is not a string', { user_id: 42 }, 'user_id'],
    ['an unknown field only', { frame_id: 'x' }, 'frame_id'],
  ])('answers 400 for %s and assigns nothing', async (_case, body, field) => {
    const board = await newBoard();
    const frame = await createFrame(board);
    const path = framePath(board, frame.id, '/assign');
    expectErrorBody(await server.api('POST', path, body), { statusCode: 400, error: 'Bad Request', path: `/api/v1${path}`, field });
    expect(await getFrame(board, frame.id)).toEqual(frame);
  });

  it('answers 404 for a participant that never connected to the board', async () => {
    const board = await newBoard();
    const other = await newBoard();
    await join(other, 'elsewhere');
    const frame = await createFrame(board);
    const path = framePath(board, frame.id, '/assign');
    expectErrorBody(await server.api('POST', path, { participant_id: 'nobody' }), { statusCode: 404, error: 'Not Found', path: `/api/v1${path}` });
    expectErrorBody(await server.api('POST', path, { participant_id: 'elsewhere' }), { statusCode: 404, error: 'Not Found', path: `/api/v1${path}` });
    expect(await getFrame(board, frame.id)).toEqual(frame);
  });

  it('answers 409 when the assigned frame would overlap a zone, and changes nothing', async () => {
    const board = await newBoard();
    await createFrame(board, { name: 'Zone', assigned_user_id: 'u-1' });
    const frame = await createFrame(board, { name: 'Overlapping', bounds_x: 150, bounds_y: 150 });
    const path = framePath(board, frame.id, '/assign');
    expectErrorBody(await server.api('POST', path, { user_id: 'u-2' }), { statusCode: 409, error: 'Conflict', path: `/api/v1${path}` });
    expect(await getFrame(board, frame.id)).toEqual(frame);
  });

  it('unassigns a zone: both ids null, zone_version + 1, listed as a plain frame', async () => {
    const board = await newBoard();
    const zone = await createFrame(board, { name: 'Was zone', assigned_user_id: 'u-1' });
    const res = await server.api('POST', framePath(board, zone.id, '/unassign'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...zone, assigned_user_id: null, assigned_participant_id: null, zone_version: 2, updated_at: expect.any(String) });
    expect(await zoneNames(board)).toEqual([]);
    expect(names(await server.api('GET', `/boards/${board.board_uuid}/frames?assigned=false`))).toEqual(['Was zone']);
  });

  it('answers 403 when a guest assigns or unassigns, even with a host-looking user id', async () => {
    const board = await newBoard();
    const frame = await createFrame(board);
    const zone = await createFrame(board, { bounds_x: 1000, assigned_user_id: 'u-1' });
    for (const [path, body] of [[framePath(board, frame.id, '/assign'), { user_id: 'guest' }], [framePath(board, zone.id, '/unassign'), undefined]] as const) {
      expectErrorBody(await callAs(board, 'guest', 'u-1', 'POST', path, body), { statusCode: 403, error: 'Forbidden', path: `/api/v1${path}` });
    }
    expect(await getFrame(board, frame.id)).toEqual(frame);
    expect(await getFrame(board, zone.id)).toEqual(zone);
  });

  it('clones a zone as an unassigned frame without the content of the zone', async () => {
    const board = await newBoard();
    const zone = await createFrame(board, { assigned_user_id: 'u-1', background_color: '#123456' });
    const writer = connectBoardClient({ url: server.socketUrl(board.access_links.host), name: `${board.board_uuid}/zones/${zone.id}` });
    clients.push(writer);
    await writer.synced();
    addObject(writer.doc, { id: 'answer', data: { text: '42' }, x: 10, y: 10 });
    await writer.saved();
    const clone = await server.api('POST', framePath(board, zone.id, '/clone'), { offsetX: 400 });
    expect(clone.body).toMatchObject({ parent_frame_id: zone.id, assigned_user_id: null, assigned_participant_id: null, background_color: '#123456', zone_version: 1 });
    const objects = (await server.api('GET', `/boards/${board.board_uuid}`)).body.state.objects as Array<{ id: string; zone_id?: string }>;
    expect(objects.map((o) => [o.id, o.zone_id])).toEqual([['answer', zone.id]]);
  });
});

describe('POST /boards/:id/zones/bulk-assign', () => {
  const bulk = (board: CreatedBoard, body: unknown) => server.api('POST', `/boards/${board.board_uuid}/zones/bulk-assign`, body);

  it('assigns 30 zones in one request and reports each of them', async () => {
    const board = await newBoard();
    const frames = [];
    for (let i = 0; i < 30; i++) frames.push(await createFrame(board, { name: `Desk ${i}`, order: i, bounds_x: (i % 6) * 300, bounds_y: Math.floor(i / 6) * 300 }));
    const res = await bulk(board, { assignments: frames.map((f, i) => ({ frame_id: f.id, user_id: `student-${i}` })) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ assigned: 30, failed: 0, results: frames.map((f) => ({ frame_id: f.id, success: true, zone_version: 2 })) });
    const zones = (await server.api('GET', `/boards/${board.board_uuid}/frames?assigned=true`)).body as Array<Record<string, unknown>>;
    expect(zones.map((z) => [z.name, z.assigned_user_id, z.zone_version])).toEqual(frames.map((f, i) => [f.name, `student-${i}`, 2]));
  });

  it('fails an entry with an unknown frame or an overlap alone while the others are assigned', async () => {
    const board = await newBoard();
    await join(board, 'p-1');
    const existing = await createFrame(board, { name: 'Existing', assigned_user_id: 'u-0' });
    const a = await createFrame(board, { name: 'A', bounds_x: 1000 });
    const overlapsA = await createFrame(board, { name: 'Overlaps A', bounds_x: 1100 });
    const overlapsExisting = await createFrame(board, { name: 'Overlaps existing', bounds_x: 200 });
    const b = await createFrame(board, { name: 'B', bounds_x: 2000 });
    // Once this single assignment works, the board knows the participant that just connected.
    expect((await onceKnown(() => server.api('POST', framePath(board, b.id, '/assign'), { participant_id: 'p-1' }))).status).toBe(200);
    expect((await server.api('POST', framePath(board, b.id, '/unassign'))).status).toBe(200);
    const unknown = randomUUID();
    const assignments = [
      { frame_id: a.id, user_id: 'u-a' },
      { frame_id: unknown, user_id: 'u-x' },
      { frame_id: overlapsA.id, user_id: 'u-y' },
      { frame_id: overlapsExisting.id, user_id: 'u-z' },
      { frame_id: b.id, participant_id: 'p-1' },
    ];
    const res = await bulk(board, { assignments });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ assigned: 2, failed: 3 });
    expect(res.body.results.map((r: any) => [r.frame_id, r.success])).toEqual([[a.id, true], [unknown, false], [overlapsA.id, false], [overlapsExisting.id, false], [b.id, true]]);
    expect(res.body.results[0].zone_version).toBe(2);
    expect(res.body.results[4].zone_version).toBe(4);
    expect(await zoneNames(board)).toEqual(['Existing', 'A', 'B']);
    expect(await getFrame(board, overlapsA.id)).toEqual(overlapsA);
    expect(await getFrame(board, existing.id)).toEqual(existing);
  });

  it.each([
    ['assignments that is not an array', (f: string[]) => ({ assignments: { frame_id: f[0], user_id: 'u' } }), 'assignments'],
    ['a missing assignments array', () => ({}), 'assignments'],
    ['an empty array', () => ({ assignments: [] }), 'assignments'],
    ['51 assignments', (f: string[]) => ({ assignments: Array.from({ length: 51 }, (_, i) => ({ frame_id: f[i % 2], user_id: `u-${i}` })) }), 'assignments'],
    ['an entry without frame_id', (f: string[]) => ({ assignments: [{ frame_id: f[0], user_id: 'u-1' }, { user_id: 'u-2' }] }), 'assignments.1.frame_id'],
    ['an entry without participant_id or user_id', (f: string[]) => ({ assignments: [{ frame_id: f[0], user_id: 'u-1' }, { frame_id: f[1] }] }), 'assignments.1'],
  ])('answers 400 for %s and assigns nothing', async (_case, bodyFor, field) => {
    const board = await newBoard();
    const frames = [await createFrame(board, { bounds_x: 0 }), await createFrame(board, { bounds_x: 400 })];
    const path = `/boards/${board.board_uuid}/zones/bulk-assign`;
    expectErrorBody(await bulk(board, bodyFor(frames.map((f) => f.id))), { statusCode: 400, error: 'Bad Request', path: `/api/v1${path}`, field });
    expect(await zoneNames(board)).toEqual([]);
    for (const frame of frames) expect(await getFrame(board, frame.id)).toEqual(frame);
  });

  it('answers 403 for a guest and assigns nothing', async () => {
    const board = await newBoard();
    const frame = await createFrame(board);
    const path = `/boards/${board.board_uuid}/zones/bulk-assign`;
    const res = await callAs(board, 'guest', null, 'POST', path, { assignments: [{ frame_id: frame.id, user_id: 'u-1' }] });
    expectErrorBody(res, { statusCode: 403, error: 'Forbidden', path: `/api/v1${path}` });
    expect(await getFrame(board, frame.id)).toEqual(frame);
  });
});

describe('what a guest sees of zones over REST', () => {
  let board: CreatedBoard;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    board = await newBoard();
    const layout: Array<[string, Record<string, unknown>]> = [
      ['plain', {}],
      ['visible of other', { assigned_user_id: 'other', zone_visibility: 'visible' }],
      ['hidden of mine', { assigned_user_id: 'me', zone_visibility: 'hidden' }],
      ['hidden of other', { assigned_user_id: 'other', zone_visibility: 'hidden' }],
      ['host only of mine', { assigned_user_id: 'me', zone_visibility: 'host_only' }],
      ['visible of mine', { assigned_user_id: 'me' }],
    ];
    for (const [index, [name, fields]] of layout.entries()) ids[name] = (await createFrame(board, { name, order: index, bounds_x: index * 400, ...fields })).id;
  });
  const all = ['plain', 'visible of other', 'hidden of mine', 'hidden of other', 'host only of mine', 'visible of mine'];
  const list = (res: ApiResponse) => {
    expect(res.status).toBe(200);
    return names(res);
  };

  it('lists plain frames, visible zones and the own hidden zone, but neither hidden zones of others nor host_only zones', async () => {
    const path = `/boards/${board.board_uuid}/frames`;
    expect(list(await callAsStudent(board, 'me', 'GET', path))).toEqual(['plain', 'visible of other', 'hidden of mine', 'visible of mine']);
    expect(list(await callAsStudent(board, 'me', 'GET', `${path}?assigned=true`))).toEqual(['visible of other', 'hidden of mine', 'visible of mine']);
    expect(list(await callAsStudent(board, 'other', 'GET', path))).toEqual(['plain', 'visible of other', 'hidden of other', 'visible of mine']);
    expect(list(await callAs(board, 'guest', null, 'GET', path))).toEqual(['plain', 'visible of other', 'visible of mine']);
    const mine = await server.personalLink(board.board_uuid, 'me');
    expect(list(await request(server.url, 'GET', `/api/v1${path}?token=${mine.token}`))).toEqual(['plain', 'visible of other', 'hidden of mine', 'visible of mine']);
    // A user id declared next to the shared guest link owns nothing.
    expect(list(await callAs(board, 'guest', 'me', 'GET', path))).toEqual(['plain', 'visible of other', 'visible of mine']);
    const byQuery = await request(server.url, 'GET', `/api/v1${path}?token=${tokenOf(board.access_links.guest)}&user_id=me`);
    expect(list(byQuery)).toEqual(['plain', 'visible of other', 'visible of mine']);
  });

  it('answers 404 to a guest reading a zone it may not see, and 200 for the ones it may', async () => {
    for (const name of ['hidden of other', 'host only of mine']) {
      const path = framePath(board, ids[name]!);
      expectErrorBody(await callAsStudent(board, 'me', 'GET', path), { statusCode: 404, error: 'Not Found', path: `/api/v1${path}` });
    }
    for (const name of ['plain', 'visible of other', 'hidden of mine']) {
      const res = await callAsStudent(board, 'me', 'GET', framePath(board, ids[name]!));
      expect(res.status).toBe(200);
      expect(res.body.name).toBe(name);
    }
  });

  it('shows every frame and zone to the host, with the API key or the host token', async () => {
    const path = `/boards/${board.board_uuid}/frames`;
    expect(list(await server.api('GET', path))).toEqual(all);
    expect(list(await callAs(board, 'host', null, 'GET', path))).toEqual(all);
    expect(list(await callAs(board, 'host', 'someone', 'GET', path))).toEqual(all);
    for (const name of all) expect((await callAs(board, 'host', null, 'GET', framePath(board, ids[name]!))).status).toBe(200);
  });
});
