import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { BusEvent, EventName } from '../../src/events/types.js';
import { expectErrorBody, ISO_TIMESTAMP } from '../helpers/assertions.js';
import { serverForSuite, createBoard } from '../helpers/fixtures.js';
import { eventually, request } from '../helpers/testServer.js';

const HOUR_MS = 3_600_000;

const { server } = serverForSuite();

const newBoard = (body: Record<string, unknown> = {}) => createBoard(server, 'Board', body);

const getBoard = (id: string) => server.api('GET', `/boards/${id}`);
const tokenOf = (link: string) => new URL(link).searchParams.get('token');
const listIds = async (path: string) => ((await server.api('GET', path)).body as Array<{ board_uuid: string }>).map((b) => b.board_uuid);

async function eventFor<N extends EventName>(name: N, boardId: string): Promise<Extract<BusEvent, { name: N }>> {
  const matches = (e: BusEvent): e is Extract<BusEvent, { name: N }> => e.name === name && e.payload.board_id === boardId;
  // `eventually` only resolves with a truthy value, so the event is there.
  return (await eventually(() => server.events.find(matches)))!;
}

/** Every lifecycle endpoint of one board, with a body it would accept. */
const lifecycleCalls = [
  { name: 'PATCH /boards/:id', method: 'PATCH', suffix: '', body: { title: 'Renamed' } },
  { name: 'DELETE /boards/:id', method: 'DELETE', suffix: '', body: undefined },
  { name: 'POST /boards/:id/end-session', method: 'POST', suffix: '/end-session', body: undefined },
  { name: 'POST /boards/:id/duplicate', method: 'POST', suffix: '/duplicate', body: undefined },
  { name: 'PATCH /boards/:id/archive', method: 'PATCH', suffix: '/archive', body: undefined },
] as const;

describe('PATCH /boards/:id', () => {
  it('answers 200 with the updated board fields and the new title is visible in GET', async () => {
    const board = await newBoard({ title: 'Before' });
    const before = Date.now();
    const patched = await server.api('PATCH', `/boards/${board.board_uuid}`, { title: 'After' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ board_uuid: board.board_uuid, title: 'After', status: 'active' });
    expect(patched.body.updated_at).toMatch(ISO_TIMESTAMP);
    expect(patched.body.expires_at).toMatch(ISO_TIMESTAMP);
    expect(Date.parse(patched.body.updated_at)).toBeGreaterThanOrEqual(before - 1);
    expect(patched.body.config).toEqual({ max_participants: 50, allow_anonymous: true, components: [] });
    expect(patched.body.webhook_url).toBeNull();

    const read = await getBoard(board.board_uuid);
    expect(read.body.title).toBe('After');
    expect(read.body.updated_at).toBe(patched.body.updated_at);
  });

  it('recomputes expires_at from now when expires_in_hours is given', async () => {
    const board = await newBoard({ expires_in_hours: 100 });
    const before = Date.now();
    const patched = await server.api('PATCH', `/boards/${board.board_uuid}`, { expires_in_hours: 2 });
    const after = Date.now();
    expect(patched.status).toBe(200);
    const expiresAt = Date.parse(patched.body.expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 2 * HOUR_MS - 1);
    expect(expiresAt).toBeLessThanOrEqual(after + 2 * HOUR_MS + 1);
    expect((await getBoard(board.board_uuid)).body.expires_at).toBe(patched.body.expires_at);
  });

  it('sets a webhook_url and removes it again with null', async () => {
    const board = await newBoard();
    const set = await server.api('PATCH', `/boards/${board.board_uuid}`, { webhook_url: 'https://hooks.example.com/board' });
    expect(set.status).toBe(200);
    expect((await getBoard(board.board_uuid)).body.webhook_url).toBe('https://hooks.example.com/board');

    const removed = await server.api('PATCH', `/boards/${board.board_uuid}`, { webhook_url: null });
    expect(removed.status).toBe(200);
    expect((await getBoard(board.board_uuid)).body.webhook_url).toBeNull();
  });

  it('merges a partial config into the stored config and keeps the other values', async () => {
    const board = await newBoard({ config: { max_participants: 10, allow_anonymous: false } });
    const patched = await server.api('PATCH', `/boards/${board.board_uuid}`, { config: { max_participants: 20 } });
    expect(patched.status).toBe(200);
    expect((await getBoard(board.board_uuid)).body.config).toEqual({ max_participants: 20, allow_anonymous: false, components: [] });
  });

  it('keeps the config defaults for values a partial config does not name', async () => {
    const board = await newBoard();
    await server.api('PATCH', `/boards/${board.board_uuid}`, { config: { allow_anonymous: false } });
    expect((await getBoard(board.board_uuid)).body.config).toEqual({ max_participants: 50, allow_anonymous: false, components: [] });
  });

  it.each([
    ['an empty body', {}, '(body)'],
    ['a title over 255 characters', { title: 'x'.repeat(256) }, 'title'],
    ['an empty title', { title: '' }, 'title'],
    ['a title that is not a string', { title: 42 }, 'title'],
    ['expires_in_hours as a string', { expires_in_hours: '5' }, 'expires_in_hours'],
    ['a negative expires_in_hours', { expires_in_hours: -1 }, 'expires_in_hours'],
    ['a webhook_url that is not a URL', { webhook_url: 'not a url' }, 'webhook_url'],
    ['a config that is not an object', { config: 'big' }, 'config'],
    ['a config value of the wrong type', { config: { max_participants: 'many' } }, 'config.max_participants'],
    ['an unknown field next to a valid one', { title: 'Valid', colour: 'red' }, 'colour'],
    ['an unknown config field', { config: { max_participants: 5, theme: 'dark' } }, 'config.theme'],
  ])('refuses %s with 400 in the API error body and changes nothing', async (_case, body, field) => {
    const board = await newBoard({ config: { max_participants: 7 } });
    const before = (await getBoard(board.board_uuid)).body;
    const refused = await server.api('PATCH', `/boards/${board.board_uuid}`, body);
    expectErrorBody(refused, { statusCode: 400, error: 'Bad Request', path: `/api/v1/boards/${board.board_uuid}`, field });
    const after = (await getBoard(board.board_uuid)).body;
    expect(after).toMatchObject({
      title: before.title,
      updated_at: before.updated_at,
      expires_at: before.expires_at,
      webhook_url: before.webhook_url,
      config: before.config,
    });
  });

  it('names the unknown field in the details of the 400 answer', async () => {
    const board = await newBoard();
    const refused = await server.api('PATCH', `/boards/${board.board_uuid}`, { title: 'Valid', colour: 'red' });
    expectErrorBody(refused, { statusCode: 400, error: 'Bad Request', path: `/api/v1/boards/${board.board_uuid}`, field: 'colour' });
  });

  it('refuses malformed JSON with 400', async () => {
    const board = await newBoard();
    const refused = await server.api('PATCH', `/boards/${board.board_uuid}`, '{"title": ');
    expectErrorBody(refused, { statusCode: 400, error: 'Bad Request', path: `/api/v1/boards/${board.board_uuid}` });
  });
});

describe('DELETE /boards/:id', () => {
  it('answers 204 with an empty body and the board is gone from reads and lists', async () => {
    const board = await newBoard({ external_id: 'del-1', owner_external_id: 'owner-del' });
    const deleted = await server.api('DELETE', `/boards/${board.board_uuid}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();

    expectErrorBody(await getBoard(board.board_uuid), { statusCode: 404, error: 'Not Found', path: `/api/v1/boards/${board.board_uuid}` });
    expectErrorBody(await server.api('GET', `/boards/${board.board_uuid}/access-links`), {
      statusCode: 404,
      error: 'Not Found',
      path: `/api/v1/boards/${board.board_uuid}/access-links`,
    });
    for (const path of ['/boards', '/boards?status=active', '/boards?status=archived', '/boards/by-owner?externalId=owner-del']) {
      expect(await listIds(path)).not.toContain(board.board_uuid);
    }
  });

  it('publishes board.deleted with the board and organization ids', async () => {
    const board = await newBoard();
    await server.api('DELETE', `/boards/${board.board_uuid}`);
    const event = await eventFor('board.deleted', board.board_uuid);
    expect(event.payload).toMatchObject({ board_id: board.board_uuid, organization_id: server.organizationId });
  });

  it('answers 404 when the board was already deleted', async () => {
    const board = await newBoard();
    expect((await server.api('DELETE', `/boards/${board.board_uuid}`)).status).toBe(204);
    expectErrorBody(await server.api('DELETE', `/boards/${board.board_uuid}`), {
      statusCode: 404,
      error: 'Not Found',
      path: `/api/v1/boards/${board.board_uuid}`,
    });
    expect(server.events.filter((e) => e.name === 'board.deleted' && e.payload.board_id === board.board_uuid)).toHaveLength(1);
  });

  it('deletes an archived board too', async () => {
    const board = await newBoard();
    await server.api('PATCH', `/boards/${board.board_uuid}/archive`);
    expect((await server.api('DELETE', `/boards/${board.board_uuid}`)).status).toBe(204);
    expect((await getBoard(board.board_uuid)).status).toBe(404);
  });
});

describe('POST /boards/:id/end-session', () => {
  it('answers 200 with session_ended_at and leaves the board active and usable', async () => {
    const board = await newBoard();
    const before = Date.now();
    const ended = await server.api('POST', `/boards/${board.board_uuid}/end-session`);
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ board_uuid: board.board_uuid, status: 'active' });
    expect(ended.body.session_ended_at).toMatch(ISO_TIMESTAMP);
    expect(Date.parse(ended.body.session_ended_at)).toBeGreaterThanOrEqual(before - 1);
    expect(typeof ended.body.message).toBe('string');
    expect(ended.body.message.length).toBeGreaterThan(0);

    expect((await getBoard(board.board_uuid)).body.status).toBe('active');
    const added = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'note', data: { text: 'after' }, position: { x: 3, y: 4 } });
    expect(added.status).toBe(201);
    const objects = (await getBoard(board.board_uuid)).body.state.objects as Array<{ data: unknown }>;
    expect(objects.map((o) => o.data)).toEqual([{ text: 'after' }]);
  });

  it('publishes board.ended', async () => {
    const board = await newBoard();
    await server.api('POST', `/boards/${board.board_uuid}/end-session`);
    const event = await eventFor('board.ended', board.board_uuid);
    expect(event.payload).toMatchObject({ board_id: board.board_uuid, organization_id: server.organizationId });
  });
});

describe('POST /boards/:id/duplicate', () => {
  const sourceObjects = [
    { type: 'note', data: { text: 'one', tags: ['a'] }, position: { x: 10, y: 20 } },
    { type: 'shape', data: { kind: 'circle' }, position: { x: -5.5, y: 300 }, width: 40, height: 60 },
  ];

  it('answers 201 with a new active board, copied names and fresh links', async () => {
    const source = await newBoard({ title: 'Lesson', external_id: 'lesson-7', initial_objects: sourceObjects });
    const before = Date.now();
    const copy = await server.api('POST', `/boards/${source.board_uuid}/duplicate`);
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({
      title: 'Lesson (Copy)',
      external_id: 'lesson-7_copy',
      status: 'active',
      source_board_uuid: source.board_uuid,
    });
    expect(copy.body.board_uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(copy.body.board_uuid).not.toBe(source.board_uuid);
    expect(copy.body.created_at).toMatch(ISO_TIMESTAMP);
    expect(Date.parse(copy.body.created_at)).toBeGreaterThanOrEqual(before - 1);
    expect(copy.body.expires_at).toMatch(ISO_TIMESTAMP);
    const links = copy.body.access_links as { host: string; guest: string };
    for (const link of [links.host, links.guest]) expect(tokenOf(link)).toBeTruthy();
    const sourceTokens = [tokenOf(source.access_links.host), tokenOf(source.access_links.guest)];
    expect(sourceTokens).not.toContain(tokenOf(links.host));
    expect(sourceTokens).not.toContain(tokenOf(links.guest));
    expect(tokenOf(links.host)).not.toBe(tokenOf(links.guest));
  });

  it('copies objects with their type, data and position, plus config and webhook_url', async () => {
    const source = await newBoard({
      initial_objects: sourceObjects,
      config: { max_participants: 12, allow_anonymous: false },
      webhook_url: 'https://hooks.example.com/source',
    });
    const copy = await server.api('POST', `/boards/${source.board_uuid}/duplicate`);
    const read = await getBoard(copy.body.board_uuid);
    expect(read.status).toBe(200);
    const shape = (o: Record<string, unknown>) => ({ type: o.type, data: o.data, position: o.position, width: o.width, height: o.height });
    expect((read.body.state.objects as Array<Record<string, unknown>>).map(shape)).toEqual(expect.arrayContaining(sourceObjects.map(shape)));
    expect(read.body.objects_count).toBe(2);
    expect(read.body.config).toEqual({ max_participants: 12, allow_anonymous: false, components: [] });
    expect(read.body.webhook_url).toBe('https://hooks.example.com/source');
  });

  it('leaves the source board unchanged', async () => {
    const source = await newBoard({ title: 'Original', external_id: 'orig', initial_objects: sourceObjects });
    const before = (await getBoard(source.board_uuid)).body;
    expect((await server.api('POST', `/boards/${source.board_uuid}/duplicate`)).status).toBe(201);
    const after = (await getBoard(source.board_uuid)).body;
    expect(after).toEqual(before);
  });

  it('gives the copy of a board without external_id a null external_id', async () => {
    const source = await newBoard();
    const copy = await server.api('POST', `/boards/${source.board_uuid}/duplicate`);
    expect(copy.status).toBe(201);
    expect(copy.body.external_id).toBeNull();
    expect((await getBoard(copy.body.board_uuid)).body.external_id).toBeNull();
  });

  it('publishes board.created for the copy and lists it', async () => {
    const source = await newBoard({ external_id: 'evt' });
    const copy = await server.api('POST', `/boards/${source.board_uuid}/duplicate`);
    const event = await eventFor('board.created', copy.body.board_uuid);
    expect(event.payload).toMatchObject({
      board_id: copy.body.board_uuid,
      organization_id: server.organizationId,
      title: copy.body.title,
      external_id: 'evt_copy',
    });
    expect(await listIds('/boards')).toContain(copy.body.board_uuid);
  });
});

describe('PATCH /boards/:id/archive', () => {
  it('archives an active board: status, archived_at, message and board.archived', async () => {
    const board = await newBoard({ title: 'To archive' });
    const before = Date.now();
    const archived = await server.api('PATCH', `/boards/${board.board_uuid}/archive`);
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ board_uuid: board.board_uuid, title: 'To archive', status: 'archived' });
    expect(archived.body.archived_at).toMatch(ISO_TIMESTAMP);
    expect(Date.parse(archived.body.archived_at)).toBeGreaterThanOrEqual(before - 1);
    expect(archived.body).not.toHaveProperty('restored_at');
    expect(typeof archived.body.message).toBe('string');
    const event = await eventFor('board.archived', board.board_uuid);
    expect(event.payload).toMatchObject({ board_id: board.board_uuid, organization_id: server.organizationId });
  });

  it('keeps an archived board readable but hides it from the default list', async () => {
    const board = await newBoard();
    await server.api('PATCH', `/boards/${board.board_uuid}/archive`);
    const read = await getBoard(board.board_uuid);
    expect(read.status).toBe(200);
    expect(read.body.status).toBe('archived');
    expect((await server.api('GET', `/boards/${board.board_uuid}/access-links`)).status).toBe(200);
    expect(await listIds('/boards')).not.toContain(board.board_uuid);
    expect(await listIds('/boards?status=active')).not.toContain(board.board_uuid);
    expect(await listIds('/boards?status=archived')).toContain(board.board_uuid);
  });

  it('restores an archived board on the second call: status active, restored_at and board.unarchived', async () => {
    const board = await newBoard({ title: 'Toggle' });
    await server.api('PATCH', `/boards/${board.board_uuid}/archive`);
    const before = Date.now();
    const restored = await server.api('PATCH', `/boards/${board.board_uuid}/archive`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ board_uuid: board.board_uuid, title: 'Toggle', status: 'active' });
    expect(restored.body.restored_at).toMatch(ISO_TIMESTAMP);
    expect(Date.parse(restored.body.restored_at)).toBeGreaterThanOrEqual(before - 1);
    expect(restored.body).not.toHaveProperty('archived_at');
    expect(typeof restored.body.message).toBe('string');
    const event = await eventFor('board.unarchived', board.board_uuid);
    expect(event.payload).toMatchObject({ board_id: board.board_uuid, organization_id: server.organizationId });
    expect((await getBoard(board.board_uuid)).body.status).toBe('active');
    expect(await listIds('/boards')).toContain(board.board_uuid);
    expect(await listIds('/boards?status=archived')).not.toContain(board.board_uuid);
  });
});

describe('errors shared by the lifecycle endpoints', () => {
  it.each(lifecycleCalls)('$name answers 404 for a board that does not exist', async ({ method, suffix, body }) => {
    const eventsBefore = server.events.length;
    for (const path of [`/boards/${randomUUID()}${suffix}`, `/boards/not-a-uuid${suffix}`]) {
      expectErrorBody(await server.api(method, path, body), { statusCode: 404, error: 'Not Found', path: `/api/v1${path}` });
    }
    expect(server.events.length).toBe(eventsBefore);
  });

  it.each(lifecycleCalls)('$name answers 401 without an API key or with a wrong one and leaves the board alone', async ({ method, suffix, body }) => {
    const board = await newBoard({ title: 'Guarded' });
    const path = `/api/v1/boards/${board.board_uuid}${suffix}`;
    const eventsBefore = server.events.length;
    const unauthorized = { statusCode: 401, error: 'Unauthorized', path };
    expectErrorBody(await request(server.url, method, path, body), unauthorized);
    expectErrorBody(await request(server.url, method, path, body, { 'x-api-key': 'wrong-key' }), unauthorized);
    expect(server.events.length).toBe(eventsBefore);
    const read = await getBoard(board.board_uuid);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ title: 'Guarded', status: 'active' });
  });
});
