import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, ISO_TIMESTAMP } from '../helpers/assertions.js';
import { serverForSuite, type CreatedBoard, tokenOf, createBoard, postFrame } from '../helpers/fixtures.js';
import { request, type ApiResponse } from '../helpers/testServer.js';

/** The frame endpoints as a host or guest calls them over HTTP (docs/frames-and-zones.md). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FRAME_FIELDS = [
  'id', 'board_id', 'name', 'order', 'bounds_x', 'bounds_y', 'bounds_width', 'bounds_height', 'lock_mode', 'background_color',
  'visibility', 'parent_frame_id', 'assigned_participant_id', 'assigned_user_id', 'zone_visibility', 'zone_version', 'created_at', 'updated_at',
];

const { server } = serverForSuite();

const newBoard = () => createBoard(server, 'Frames');

const createFrame = (boardId: string, body: Record<string, unknown> = {}) => postFrame(server, boardId, body);

/** Calls the API with a board access token instead of the API key. */
const withToken = (token: string, method: string, path: string, body?: unknown): Promise<ApiResponse> =>
  request(server.url, method, `/api/v1${path}`, body, { authorization: `Bearer ${token}` });
const asGuest = (board: CreatedBoard, method: string, path: string, body?: unknown) => withToken(tokenOf(board.access_links.guest), method, path, body);
const getFrame = async (boardId: string, frameId: string) => (await server.api('GET', `/boards/${boardId}/frames/${frameId}`)).body;
const listNames = async (path: string) => ((await server.api('GET', path)).body as Array<{ name: string }>).map((f) => f.name);

/** Every frames-and-zones endpoint, with a body it would accept. */
const endpoints = [
  { name: 'POST /frames', method: 'POST', path: (b: string) => `/boards/${b}/frames`, body: { name: 'New' } },
  { name: 'GET /frames', method: 'GET', path: (b: string) => `/boards/${b}/frames` },
  { name: 'GET /frames/:fid', method: 'GET', path: (b: string, f: string) => `/boards/${b}/frames/${f}` },
  { name: 'PATCH /frames/:fid', method: 'PATCH', path: (b: string, f: string) => `/boards/${b}/frames/${f}`, body: { name: 'Renamed' } },
  { name: 'DELETE /frames/:fid', method: 'DELETE', path: (b: string, f: string) => `/boards/${b}/frames/${f}` },
  { name: 'POST /frames/:fid/clone', method: 'POST', path: (b: string, f: string) => `/boards/${b}/frames/${f}/clone`, body: {} },
  { name: 'POST /frames/:fid/assign', method: 'POST', path: (b: string, f: string) => `/boards/${b}/frames/${f}/assign`, body: { user_id: 'u-1' } },
  { name: 'POST /frames/:fid/unassign', method: 'POST', path: (b: string, f: string) => `/boards/${b}/frames/${f}/unassign` },
  { name: 'POST /zones/bulk-assign', method: 'POST', path: (b: string) => `/boards/${b}/zones/bulk-assign`, body: { assignments: [{ frame_id: 'x', user_id: 'u-1' }] } },
] as const;

describe('authentication and unknown boards on every frame endpoint', () => {
  let board: CreatedBoard;
  let frameId: string;
  beforeAll(async () => {
    board = await newBoard();
    frameId = (await createFrame(board.board_uuid, { name: 'Guarded' })).id;
  });

  it.each(endpoints)('$name answers 401 without a credential, with an unknown API key and with an unknown board token', async (endpoint) => {
    const path = `/api/v1${endpoint.path(board.board_uuid, frameId)}`;
    const body = 'body' in endpoint ? endpoint.body : undefined;
    const credentials: Array<Record<string, string>> = [{}, { 'x-api-key': 'wb_unknown' }, { authorization: 'Bearer not-a-board-token' }];
    for (const headers of credentials) {
      expectErrorBody(await request(server.url, endpoint.method, path, body, headers), { statusCode: 401, error: 'Unauthorized', path });
    }
    expectErrorBody(await request(server.url, endpoint.method, `${path}?token=not-a-board-token`, body), { statusCode: 401, error: 'Unauthorized', path });
    const frame = await getFrame(board.board_uuid, frameId);
    expect(frame).toMatchObject({ name: 'Guarded', visibility: 'active', zone_version: 1, assigned_user_id: null });
    expect(await listNames(`/boards/${board.board_uuid}/frames?includeArchived=true`)).toEqual(['Guarded']);
  });

  it.each(endpoints)('$name answers 404 for an unknown board', async (endpoint) => {
    const path = endpoint.path(randomUUID(), frameId);
    const res = await server.api(endpoint.method, path, 'body' in endpoint ? endpoint.body : undefined);
    expectErrorBody(res, { statusCode: 404, error: 'Not Found', path: `/api/v1${path}` });
  });

  it.each(endpoints.filter((e) => e.path.length === 2))('$name answers 404 for an unknown frame and for a frame of another board', async (endpoint) => {
    const other = await newBoard();
    const foreign = (await createFrame(other.board_uuid, { name: 'Foreign' })).id;
    for (const id of [randomUUID(), foreign]) {
      const path = endpoint.path(board.board_uuid, id);
      const res = await server.api(endpoint.method, path, 'body' in endpoint ? endpoint.body : undefined);
      expectErrorBody(res, { statusCode: 404, error: 'Not Found', path: `/api/v1${path}` });
    }
    expect(await getFrame(other.board_uuid, foreign)).toMatchObject({ name: 'Foreign', visibility: 'active', zone_version: 1 });
  });
});

describe('POST /boards/:id/frames', () => {
  it('answers 201 with exactly the frame record fields and the frame defaults', async () => {
    const board = await newBoard();
    const res = await server.api('POST', `/boards/${board.board_uuid}/frames`, { name: 'Intro' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...FRAME_FIELDS].sort());
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID),
      board_id: board.board_uuid,
      name: 'Intro',
      order: 0,
      bounds_x: 0,
      bounds_y: 0,
      bounds_width: 1200,
      bounds_height: 800,
      lock_mode: 'none',
      background_color: null,
      visibility: 'active',
      parent_frame_id: null,
      assigned_participant_id: null,
      assigned_user_id: null,
      zone_visibility: 'visible',
      zone_version: 1,
      created_at: expect.stringMatching(ISO_TIMESTAMP),
      updated_at: expect.stringMatching(ISO_TIMESTAMP),
    });
    expect(await getFrame(board.board_uuid, res.body.id)).toEqual(res.body);
  });

  it('stores every optional field that is given', async () => {
    const board = await newBoard();
    const parent = await createFrame(board.board_uuid, { name: 'Parent' });
    const input = {
      name: 'Exercise 1',
      order: 3,
      bounds_x: -250.5,
      bounds_y: 40,
      bounds_width: 100,
      bounds_height: 100,
      lock_mode: 'hard',
      background_color: '#ff8800',
      visibility: 'hidden',
      parent_frame_id: parent.id,
    };
    const res = await server.api('POST', `/boards/${board.board_uuid}/frames`, input);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...input, assigned_participant_id: null, assigned_user_id: null, zone_version: 1 });
  });

  it.each([
    ['a missing name', { bounds_x: 0 }, 'name'],
    ['a name over 255 characters', { name: 'n'.repeat(256) }, 'name'],
    ['a name that is not a string', { name: 7 }, 'name'],
    ['a width under 100', { name: 'F', bounds_width: 99 }, 'bounds_width'],
    ['a height under 100', { name: 'F', bounds_height: 99.5 }, 'bounds_height'],
    ['a negative order', { name: 'F', order: -1 }, 'order'],
    ['an unknown lock_mode', { name: 'F', lock_mode: 'locked' }, 'lock_mode'],
    ['an unknown visibility', { name: 'F', visibility: 'deleted' }, 'visibility'],
    ['an unknown zone_visibility', { name: 'F', assigned_user_id: 'u-1', zone_visibility: 'secret' }, 'zone_visibility'],
    ['zone_visibility without an assignment id (missing assignment for a zone)', { name: 'F', zone_visibility: 'hidden' }, 'assigned_participant_id'],
    ['a background_color that is not hex', { name: 'F', background_color: 'orange' }, 'background_color'],
    ['bounds as strings', { name: 'F', bounds_x: '10' }, 'bounds_x'],
    ['an unknown field', { name: 'F', colour: '#fff' }, 'colour'],
  ])('answers 400 for %s and creates nothing', async (_case, body, field) => {
    const board = await newBoard();
    const path = `/api/v1/boards/${board.board_uuid}/frames`;
    expectErrorBody(await server.api('POST', `/boards/${board.board_uuid}/frames`, body), { statusCode: 400, error: 'Bad Request', path, field });
    expect(await listNames(`/boards/${board.board_uuid}/frames?includeArchived=true`)).toEqual([]);
  });

  it('answers 404 for an unknown parent frame and for a parent frame of another board', async () => {
    const board = await newBoard();
    const other = await newBoard();
    const foreign = await createFrame(other.board_uuid);
    for (const parent of [randomUUID(), foreign.id]) {
      const res = await server.api('POST', `/boards/${board.board_uuid}/frames`, { name: 'Child', parent_frame_id: parent });
      expectErrorBody(res, { statusCode: 404, error: 'Not Found', path: `/api/v1/boards/${board.board_uuid}/frames` });
    }
    expect(await listNames(`/boards/${board.board_uuid}/frames?includeArchived=true`)).toEqual([]);
  });

  it('lets a guest create a plain frame with its board token, in the header or in ?token=', async () => {
    const board = await newBoard();
    const header = await asGuest(board, 'POST', `/boards/${board.board_uuid}/frames`, { name: 'By guest' });
    expect(header.status).toBe(201);
    const query = await request(server.url, 'POST', `/api/v1/boards/${board.board_uuid}/frames?token=${tokenOf(board.access_links.guest)}`, { name: 'By query' });
    expect(query.status).toBe(201);
    expect(await listNames(`/boards/${board.board_uuid}/frames`)).toEqual(['By guest', 'By query']);
  });

  it('refuses a guest creating a locked frame (host-only, as PATCH is) and creates nothing; lock_mode none is the default and passes', async () => {
    const board = await newBoard();
    const path = `/boards/${board.board_uuid}/frames`;
    for (const lock_mode of ['soft', 'hard']) {
      expectErrorBody(await asGuest(board, 'POST', path, { name: `Locked ${lock_mode}`, lock_mode }), { statusCode: 403, error: 'Forbidden', path: `/api/v1${path}` });
    }
    expect(await listNames(`${path}?includeArchived=true`)).toEqual([]);
    const unlocked = await asGuest(board, 'POST', path, { name: 'Unlocked', lock_mode: 'none' });
    expect(unlocked.status).toBe(201);
    expect(unlocked.body).toMatchObject({ name: 'Unlocked', lock_mode: 'none' });
    expect((await createFrame(board.board_uuid, { name: 'Host lock', lock_mode: 'hard' })).lock_mode).toBe('hard');
  });
});

describe('GET /boards/:id/frames', () => {
  it('lists nothing for a board without frames', async () => {
    const board = await newBoard();
    const res = await server.api('GET', `/boards/${board.board_uuid}/frames`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('lists frame records ordered by order, then by creation', async () => {
    const board = await newBoard();
    const created = [];
    for (const [name, order] of [['c', 2], ['a1', 0], ['b', 1], ['a2', 0], ['d', 7], ['a3', 0]] as const) {
      created.push(await createFrame(board.board_uuid, { name, order }));
    }
    const res = await server.api('GET', `/boards/${board.board_uuid}/frames`);
    expect(res.status).toBe(200);
    expect(res.body.map((f: { name: string }) => f.name)).toEqual(['a1', 'a2', 'a3', 'b', 'c', 'd']);
    expect(res.body.find((f: { name: string }) => f.name === 'b')).toEqual(created[2]);
  });

  it('hides archived frames unless includeArchived=true', async () => {
    const board = await newBoard();
    await createFrame(board.board_uuid, { name: 'kept' });
    const gone = await createFrame(board.board_uuid, { name: 'deleted', order: 1 });
    await createFrame(board.board_uuid, { name: 'archived by patch', order: 2, visibility: 'archived' });
    await createFrame(board.board_uuid, { name: 'hidden', order: 3, visibility: 'hidden' });
    expect((await server.api('DELETE', `/boards/${board.board_uuid}/frames/${gone.id}`)).status).toBe(200);
    expect(await listNames(`/boards/${board.board_uuid}/frames`)).toEqual(['kept', 'hidden']);
    expect(await listNames(`/boards/${board.board_uuid}/frames?includeArchived=false`)).toEqual(['kept', 'hidden']);
    expect(await listNames(`/boards/${board.board_uuid}/frames?includeArchived=true`)).toEqual(['kept', 'deleted', 'archived by patch', 'hidden']);
  });

  it('lists only zones with assigned=true and only plain frames with assigned=false', async () => {
    const board = await newBoard();
    await createFrame(board.board_uuid, { name: 'plain', bounds_x: 0 });
    await createFrame(board.board_uuid, { name: 'zone', bounds_x: 2000, assigned_user_id: 'student-1' });
    expect(await listNames(`/boards/${board.board_uuid}/frames`)).toEqual(['plain', 'zone']);
    expect(await listNames(`/boards/${board.board_uuid}/frames?assigned=true`)).toEqual(['zone']);
    expect(await listNames(`/boards/${board.board_uuid}/frames?assigned=false`)).toEqual(['plain']);
  });

  it('answers 400 for an includeArchived or assigned that is not a boolean', async () => {
    const board = await newBoard();
    const path = `/api/v1/boards/${board.board_uuid}/frames`;
    expectErrorBody(await server.api('GET', `/boards/${board.board_uuid}/frames?assigned=maybe`), { statusCode: 400, error: 'Bad Request', path, field: 'assigned' });
    expectErrorBody(await server.api('GET', `/boards/${board.board_uuid}/frames?includeArchived=all`), { statusCode: 400, error: 'Bad Request', path, field: 'includeArchived' });
  });
});

describe('PATCH /boards/:id/frames/:fid', () => {
  it('changes the given fields, keeps the others and increments zone_version', async () => {
    const board = await newBoard();
    const frame = await createFrame(board.board_uuid, { name: 'Before', background_color: '#abc' });
    const change = { name: 'After', order: 4, bounds_x: 10, bounds_y: 20, bounds_width: 300, bounds_height: 150, lock_mode: 'soft', visibility: 'hidden', zone_visibility: 'host_only' };
    const res = await server.api('PATCH', `/boards/${board.board_uuid}/frames/${frame.id}`, change);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...frame, ...change, zone_version: 2, updated_at: expect.stringMatching(ISO_TIMESTAMP) });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(frame.updated_at));
    expect(await getFrame(board.board_uuid, frame.id)).toEqual(res.body);
  });

  it('removes the background color with null', async () => {
    const board = await newBoard();
    const frame = await createFrame(board.board_uuid, { background_color: '#112233' });
    const res = await server.api('PATCH', `/boards/${board.board_uuid}/frames/${frame.id}`, { background_color: null });
    expect(res.status).toBe(200);
    expect(res.body.background_color).toBeNull();
    expect((await getFrame(board.board_uuid, frame.id)).background_color).toBeNull();
  });

  it('increments zone_version by one on every change', async () => {
    const board = await newBoard();
    const frame = await createFrame(board.board_uuid);
    for (const [index, change] of [{ name: 'One' }, { bounds_x: 50 }, { lock_mode: 'hard' }, { background_color: '#000' }].entries()) {
      const res = await server.api('PATCH', `/boards/${board.board_uuid}/frames/${frame.id}`, change);
      expect(res.body.zone_version).toBe(index + 2);
    }
    expect((await getFrame(board.board_uuid, frame.id)).zone_version).toBe(5);
  });

  it.each([
    ['an empty body', {}, '(body)'],
    ['a width under 100', { bounds_width: 10 }, 'bounds_width'],
    ['a height under 100', { bounds_height: 0 }, 'bounds_height'],
    ['an unknown lock_mode', { lock_mode: 'sticky' }, 'lock_mode'],
    ['an unknown visibility', { visibility: 'gone' }, 'visibility'],
    ['an unknown zone_visibility', { zone_visibility: 'private' }, 'zone_visibility'],
    ['an empty name', { name: '' }, 'name'],
    ['a name over 255 characters', { name: 'x'.repeat(256) }, 'name'],
    ['a fractional order', { order: 1.5 }, 'order'],
    ['an assignment field', { assigned_user_id: 'u-1' }, 'assigned_user_id'],
  ])('answers 400 for %s and changes nothing', async (_case, body, field) => {
    const board = await newBoard();
    const frame = await createFrame(board.board_uuid);
    const path = `/boards/${board.board_uuid}/frames/${frame.id}`;
    expectErrorBody(await server.api('PATCH', path, body), { statusCode: 400, error: 'Bad Request', path: `/api/v1${path}`, field });
    expect(await getFrame(board.board_uuid, frame.id)).toEqual(frame);
  });

  it('lets a guest change a plain frame', async () => {
    const board = await newBoard();
    const frame = await createFrame(board.board_uuid);
    const res = await asGuest(board, 'PATCH', `/boards/${board.board_uuid}/frames/${frame.id}`, { name: 'Guest edit', background_color: '#abcdef' });
    expect(res.status).toBe(200);
    expect(await getFrame(board.board_uuid, frame.id)).toMatchObject({ name: 'Guest edit', background_color: '#abcdef', zone_version: 2 });
  });

  it("refuses a guest changing a frame's lock mode (host-only, like the frame:lock socket command)", async () => {
    const board = await newBoard();
    const frame = await createFrame(board.board_uuid);
    const res = await asGuest(board, 'PATCH', `/boards/${board.board_uuid}/frames/${frame.id}`, { name: 'Guest edit', lock_mode: 'soft' });
    expectErrorBody(res, { statusCode: 403, error: 'Forbidden' });
    expect(await getFrame(board.board_uuid, frame.id)).toMatchObject({ name: frame.name, lock_mode: 'none', zone_version: 1 });
  });
});

describe('DELETE /boards/:id/frames/:fid', () => {
  it('answers 200 with a message and archives the frame, keeping the board objects inside it', async () => {
    const board = await newBoard();
    const frame = await createFrame(board.board_uuid, { bounds_width: 400, bounds_height: 400 });
    await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'sticky', data: { text: 'inside' }, position: { x: 10, y: 10 } });
    const res = await server.api('DELETE', `/boards/${board.board_uuid}/frames/${frame.id}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['message']);
    expect(typeof res.body.message).toBe('string');
    expect(res.body.message.length).toBeGreaterThan(0);
    expect(await getFrame(board.board_uuid, frame.id)).toMatchObject({ visibility: 'archived', zone_version: 2 });
    expect(await listNames(`/boards/${board.board_uuid}/frames`)).toEqual([]);
    expect((await server.api('GET', `/boards/${board.board_uuid}`)).body.state.objects.map((o: any) => o.data)).toEqual([{ text: 'inside' }]);
  });

  it('restores an archived frame with PATCH visibility active', async () => {
    const board = await newBoard();
    const frame = await createFrame(board.board_uuid, { name: 'Comeback' });
    await server.api('DELETE', `/boards/${board.board_uuid}/frames/${frame.id}`);
    const restored = await server.api('PATCH', `/boards/${board.board_uuid}/frames/${frame.id}`, { visibility: 'active' });
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ visibility: 'active', zone_version: 3 });
    expect(await listNames(`/boards/${board.board_uuid}/frames`)).toEqual(['Comeback']);
  });

  it('lets a guest delete a plain frame', async () => {
    const board = await newBoard();
    const frame = await createFrame(board.board_uuid);
    expect((await asGuest(board, 'DELETE', `/boards/${board.board_uuid}/frames/${frame.id}`)).status).toBe(200);
    expect((await getFrame(board.board_uuid, frame.id)).visibility).toBe('archived');
  });
});

describe('POST /boards/:id/frames/:fid/clone', () => {
  it('answers 201 with a copy named "<name> (Copy)", moved by the offsets, pointing at its source', async () => {
    const board = await newBoard();
    const source = await createFrame(board.board_uuid, {
      name: 'Worksheet', bounds_x: 100, bounds_y: 200, bounds_width: 640, bounds_height: 480, lock_mode: 'hard', background_color: '#fafafa', zone_visibility: 'hidden', assigned_user_id: 'student-9',
    });
    const res = await server.api('POST', `/boards/${board.board_uuid}/frames/${source.id}/clone`, { offsetX: 700, offsetY: -50.5 });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...FRAME_FIELDS].sort());
    expect(res.body).toMatchObject({
      id: expect.stringMatching(UUID),
      board_id: board.board_uuid,
      name: 'Worksheet (Copy)',
      bounds_x: 800,
      bounds_y: 149.5,
      bounds_width: 640,
      bounds_height: 480,
      lock_mode: 'hard',
      background_color: '#fafafa',
      visibility: 'active',
      parent_frame_id: source.id,
      assigned_participant_id: null,
      assigned_user_id: null,
      zone_version: 1,
    });
    expect(res.body.id).not.toBe(source.id);
    expect(await getFrame(board.board_uuid, res.body.id)).toEqual(res.body);
    expect(await getFrame(board.board_uuid, source.id)).toEqual(source);
  });

  it('keeps the bounds without offsets and takes a custom name', async () => {
    const board = await newBoard();
    const source = await createFrame(board.board_uuid, { bounds_x: 5, bounds_y: 6 });
    const res = await server.api('POST', `/boards/${board.board_uuid}/frames/${source.id}/clone`, { name: 'Group B' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Group B', bounds_x: 5, bounds_y: 6, bounds_width: 1200, bounds_height: 800, parent_frame_id: source.id });
    const noBody = await server.api('POST', `/boards/${board.board_uuid}/frames/${source.id}/clone`);
    expect(noBody.status).toBe(201);
    expect(noBody.body).toMatchObject({ name: 'Frame (Copy)', bounds_x: 5, bounds_y: 6 });
  });

  it("gives a guest's clone of a locked frame no lock (only the host locks frames); the host's clone keeps the lock", async () => {
    const board = await newBoard();
    const source = await createFrame(board.board_uuid, { name: 'Locked', lock_mode: 'hard' });
    const path = `/boards/${board.board_uuid}/frames/${source.id}/clone`;
    const byGuest = await asGuest(board, 'POST', path, { name: 'Guest copy' });
    expect(byGuest.status).toBe(201);
    expect(byGuest.body).toMatchObject({ name: 'Guest copy', lock_mode: 'none', parent_frame_id: source.id });
    expect(await getFrame(board.board_uuid, byGuest.body.id)).toMatchObject({ lock_mode: 'none' });
    const byHost = await server.api('POST', path, { name: 'Host copy' });
    expect(byHost.status).toBe(201);
    expect(byHost.body).toMatchObject({ name: 'Host copy', lock_mode: 'hard' });
  });

  it('does not copy the objects of the source frame', async () => {
    const board = await newBoard();
    const source = await createFrame(board.board_uuid, { bounds_width: 300, bounds_height: 300 });
    await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'sticky', data: { text: 'only once' }, position: { x: 50, y: 50 } });
    const res = await server.api('POST', `/boards/${board.board_uuid}/frames/${source.id}/clone`, { offsetX: 1000 });
    expect(res.status).toBe(201);
    const read = (await server.api('GET', `/boards/${board.board_uuid}`)).body;
    expect(read.objects_count).toBe(1);
    expect(read.state.objects.map((o: any) => o.position)).toEqual([{ x: 50, y: 50 }]);
  });

  it.each([
    ['an offsetX that is not a number', { offsetX: '10' }, 'offsetX'],
    ['an offsetY that is not a number', { offsetY: true }, 'offsetY'],
    ['an empty name', { name: '' }, 'name'],
    ['an unknown field', { offsetZ: 1 }, 'offsetZ'],
  ])('answers 400 for %s and creates nothing', async (_case, body, field) => {
    const board = await newBoard();
    const source = await createFrame(board.board_uuid);
    const path = `/boards/${board.board_uuid}/frames/${source.id}/clone`;
    expectErrorBody(await server.api('POST', path, body), { statusCode: 400, error: 'Bad Request', path: `/api/v1${path}`, field });
    expect(await listNames(`/boards/${board.board_uuid}/frames?includeArchived=true`)).toEqual(['Frame']);
  });
});
