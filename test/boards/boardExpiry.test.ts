import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { BoardExpiredPayload } from '../../src/events/types.js';
import { expectErrorBody } from '../helpers/assertions.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { eventually, type TestServer } from '../helpers/testServer.js';

const HOUR_MS = 3_600_000;
const START = new Date('2031-03-01T09:00:00.000Z');

/** The `board.expired` payloads raised so far for one board. */
function expiredEvents(server: TestServer, boardId: string): BoardExpiredPayload[] {
  return server.events.flatMap((event) =>
    event.name === 'board.expired' && event.payload.board_id === boardId ? [event.payload] : [],
  );
}

async function createBoard(server: TestServer, body: Record<string, unknown>) {
  const created = await server.api('POST', '/boards', body);
  expect(created.status).toBe(201);
  return created.body as { board_uuid: string; status: string; created_at: string; expires_at: string };
}

/** Waits until the sweeper has raised `board.expired` for the board, without touching the board. */
async function waitForExpiry(server: TestServer, boardId: string): Promise<BoardExpiredPayload> {
  return (await eventually(() => expiredEvents(server, boardId)[0]))!;
}

describe('board expiry with the background sweeper', () => {
  const clock = new ManualClock(START);
  const { server } = serverForSuite({ clock, env: { EXPIRY_SWEEP_INTERVAL_MS: '50' } });

  it('creates a board with expires_in_hours 1 as active, expiring one hour later', async () => {
    const board = await createBoard(server, { title: 'Short-lived', expires_in_hours: 1 });
    expect(board.status).toBe('active');
    expect(Date.parse(board.expires_at) - Date.parse(board.created_at)).toBe(HOUR_MS);
    const read = await server.api('GET', `/boards/${board.board_uuid}`);
    expect(read.status).toBe(200);
    expect(read.body.status).toBe('active');
  });

  it('expires an overdue board and raises board.expired without anybody reading it', async () => {
    const board = await createBoard(server, { title: 'Unread board', expires_in_hours: 1 });
    clock.advance(HOUR_MS + 1_000);
    const expiredAt = clock.now().toISOString();

    const payload = await waitForExpiry(server, board.board_uuid);
    expect(payload).toMatchObject({
      board_id: board.board_uuid,
      organization_id: server.organizationId,
      expires_at: board.expires_at,
      expired_at: expiredAt,
    });

    const expired = await server.api('GET', '/boards?status=expired');
    expect(expired.status).toBe(200);
    const listed = expired.body.find((item: { board_uuid: string }) => item.board_uuid === board.board_uuid);
    expect(listed).toMatchObject({ status: 'expired', expires_at: board.expires_at });
    const active = await server.api('GET', '/boards?status=active');
    expect(active.body.map((item: { board_uuid: string }) => item.board_uuid)).not.toContain(board.board_uuid);
  });

  describe('an expired board', () => {
    let boardId: string;

    beforeAll(async () => {
      const board = await createBoard(server, {
        title: 'Expired board',
        external_id: 'exp-1',
        expires_in_hours: 1,
        initial_objects: [{ type: 'note', data: { text: 'hi' }, position: { x: 1, y: 2 } }],
      });
      boardId = board.board_uuid;
      clock.advance(HOUR_MS + 1);
      await waitForExpiry(server, boardId);
    });

    it('answers 410 Gone to GET /boards/:id', async () => {
      const response = await server.api('GET', `/boards/${boardId}`);
      expectErrorBody(response, { statusCode: 410, error: 'Gone', path: `/api/v1/boards/${boardId}` });
    });

    it('answers 410 Gone to GET access-links', async () => {
      expectErrorBody(await server.api('GET', `/boards/${boardId}/access-links`), {
        statusCode: 410,
        error: 'Gone',
        path: `/api/v1/boards/${boardId}/access-links`,
      });
    });

    it('answers 410 Gone to duplicate and creates no copy', async () => {
      const before = (await server.api('GET', '/boards')).body.length;
      expectErrorBody(await server.api('POST', `/boards/${boardId}/duplicate`), {
        statusCode: 410,
        error: 'Gone',
        path: `/api/v1/boards/${boardId}/duplicate`,
      });
      expect((await server.api('GET', '/boards')).body.length).toBe(before);
    });

    it('answers 410 Gone to adding an object', async () => {
      const response = await server.api('POST', `/boards/${boardId}/objects`, {
        type: 'note',
        data: { text: 'too late' },
        position: { x: 0, y: 0 },
      });
      expectErrorBody(response, { statusCode: 410, error: 'Gone', path: `/api/v1/boards/${boardId}/objects` });
    });

    it('answers 410 Gone to PATCH and keeps it expired', async () => {
      const response = await server.api('PATCH', `/boards/${boardId}`, { title: 'Revived?', expires_in_hours: 5 });
      expectErrorBody(response, { statusCode: 410, error: 'Gone', path: `/api/v1/boards/${boardId}` });
      const expired = await server.api('GET', '/boards?status=expired');
      const listed = expired.body.find((item: { board_uuid: string }) => item.board_uuid === boardId);
      expect(listed).toMatchObject({ title: 'Expired board', status: 'expired' });
    });

    it('raises board.expired only once however often it is touched', async () => {
      await server.app.expirySweeper.sweep();
      expect(expiredEvents(server, boardId)).toHaveLength(1);
    });

    it('can still be deleted: DELETE answers 204 and the board is gone for good', async () => {
      const deleted = await server.api('DELETE', `/boards/${boardId}`);
      expect(deleted.status).toBe(204);
      expect(deleted.body).toBeNull();
      expectErrorBody(await server.api('GET', `/boards/${boardId}`), {
        statusCode: 404,
        error: 'Not Found',
        path: `/api/v1/boards/${boardId}`,
      });
      const expired = await server.api('GET', '/boards?status=expired');
      expect(expired.body.map((item: { board_uuid: string }) => item.board_uuid)).not.toContain(boardId);
      expect(server.events.some((e) => e.name === 'board.deleted' && e.payload.board_id === boardId)).toBe(true);
    });
  });

  it('raises board.expired exactly once when reads race the sweeper', async () => {
    const board = await createBoard(server, { title: 'Raced board', expires_in_hours: 1 });
    clock.advance(HOUR_MS + 1);
    const id = board.board_uuid;
    const responses = await Promise.all([
      server.api('GET', `/boards/${id}`),
      server.api('GET', `/boards/${id}/access-links`),
      server.api('GET', '/boards'),
      server.app.expirySweeper.sweep(),
      server.api('GET', `/boards/${id}`),
    ]);
    expect((responses[0]).status).toBe(410);
    expect((responses[1]).status).toBe(410);
    expect((responses[4]).status).toBe(410);

    await waitForExpiry(server, id);
    // Later sweeps and reads find nothing left to expire.
    await Promise.all([server.app.expirySweeper.sweep(), server.api('GET', `/boards/${id}`), server.api('GET', '/boards')]);
    await server.app.expirySweeper.sweep();
    expect(expiredEvents(server, id)).toHaveLength(1);
  });

  it('keeps a board active until its expires_at, and expires it at that instant', async () => {
    const board = await createBoard(server, { title: 'Two hours', expires_in_hours: 2 });
    const expiresAt = new Date(board.expires_at);

    clock.advance(HOUR_MS);
    await server.app.expirySweeper.sweep();
    let read = await server.api('GET', `/boards/${board.board_uuid}`);
    expect(read.status).toBe(200);
    expect(read.body.status).toBe('active');

    clock.set(new Date(expiresAt.getTime() - 1));
    await server.app.expirySweeper.sweep();
    read = await server.api('GET', `/boards/${board.board_uuid}`);
    expect(read.body.status).toBe('active');
    expect(expiredEvents(server, board.board_uuid)).toHaveLength(0);

    clock.set(expiresAt);
    const payload = await waitForExpiry(server, board.board_uuid);
    expect(payload.expired_at).toBe(expiresAt.toISOString());
    expect((await server.api('GET', `/boards/${board.board_uuid}`)).status).toBe(410);
  });

  it('lists expired boards but not archived ones by default', async () => {
    const archived = await createBoard(server, { title: 'To archive', expires_in_hours: 48 });
    const expiring = await createBoard(server, { title: 'To expire', expires_in_hours: 1 });
    const lasting = await createBoard(server, { title: 'Lasting', expires_in_hours: 48 });
    const archive = await server.api('PATCH', `/boards/${archived.board_uuid}/archive`);
    expect(archive.body.status).toBe('archived');

    clock.advance(HOUR_MS + 1);
    await waitForExpiry(server, expiring.board_uuid);

    const list = await server.api('GET', '/boards');
    expect(list.status).toBe(200);
    const statusOf = new Map(list.body.map((item: { board_uuid: string; status: string }) => [item.board_uuid, item.status]));
    expect(statusOf.get(expiring.board_uuid)).toBe('expired');
    expect(statusOf.get(lasting.board_uuid)).toBe('active');
    expect(statusOf.has(archived.board_uuid)).toBe(false);

    const archivedList = await server.api('GET', '/boards?status=archived');
    expect(archivedList.body.map((item: { board_uuid: string }) => item.board_uuid)).toEqual([archived.board_uuid]);
  });
});

describe('board expiry without the sweeper (EXPIRY_SWEEP_INTERVAL_MS 0)', () => {
  const clock = new ManualClock(START);
  const { server } = serverForSuite({ clock, env: { EXPIRY_SWEEP_INTERVAL_MS: '0' } });

  it('answers 410 on the first read after expiry and raises board.expired once', async () => {
    const board = await createBoard(server, { title: 'Lazy board', expires_in_hours: 1 });
    clock.advance(HOUR_MS + 5_000);
    expect(expiredEvents(server, board.board_uuid)).toHaveLength(0);

    expectErrorBody(await server.api('GET', `/boards/${board.board_uuid}`), {
      statusCode: 410,
      error: 'Gone',
      path: `/api/v1/boards/${board.board_uuid}`,
    });
    const events = expiredEvents(server, board.board_uuid);
    expect(events).toEqual([
      expect.objectContaining({
        board_id: board.board_uuid,
        organization_id: server.organizationId,
        expires_at: board.expires_at,
        expired_at: clock.now().toISOString(),
      }),
    ]);

    expectErrorBody(await server.api('GET', `/boards/${board.board_uuid}`), {
      statusCode: 410,
      error: 'Gone',
      path: `/api/v1/boards/${board.board_uuid}`,
    });
    expectErrorBody(await server.api('GET', `/boards/${board.board_uuid}/access-links`), {
      statusCode: 410,
      error: 'Gone',
      path: `/api/v1/boards/${board.board_uuid}/access-links`,
    });
    const expired = await server.api('GET', '/boards?status=expired');
    expect(expired.body.map((item: { board_uuid: string }) => item.board_uuid)).toContain(board.board_uuid);
    expect(expiredEvents(server, board.board_uuid)).toHaveLength(1);
  });

  it('does not expire an archived board; restoring it after expires_at answers 200, and the next read answers 410', async () => {
    const board = await createBoard(server, { title: 'Archived past expiry', expires_in_hours: 1 });
    expect((await server.api('PATCH', `/boards/${board.board_uuid}/archive`)).body.status).toBe('archived');
    clock.advance(2 * HOUR_MS);

    const archived = await server.api('GET', `/boards/${board.board_uuid}`);
    expect(archived.status).toBe(200);
    expect(archived.body.status).toBe('archived');
    expect(expiredEvents(server, board.board_uuid)).toHaveLength(0);

    const restored = await server.api('PATCH', `/boards/${board.board_uuid}/archive`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ board_uuid: board.board_uuid, status: 'active', restored_at: clock.now().toISOString() });

    expectErrorBody(await server.api('GET', `/boards/${board.board_uuid}`), {
      statusCode: 410,
      error: 'Gone',
      path: `/api/v1/boards/${board.board_uuid}`,
    });
    expect(expiredEvents(server, board.board_uuid)).toHaveLength(1);
  });

  it('expires overdue boards when the list is read, raising board.expired once per board', async () => {
    const first = await createBoard(server, { title: 'Lazy list 1', expires_in_hours: 1 });
    const second = await createBoard(server, { title: 'Lazy list 2', expires_in_hours: 1 });
    clock.advance(HOUR_MS + 1);

    const [list, again] = await Promise.all([server.api('GET', '/boards'), server.api('GET', '/boards?status=expired')]);
    expect(list.status).toBe(200);
    expect(again.status).toBe(200);
    const listed = await server.api('GET', '/boards?status=expired');
    const ids = listed.body.map((item: { board_uuid: string }) => item.board_uuid);
    expect(ids).toEqual(expect.arrayContaining([first.board_uuid, second.board_uuid]));
    expect(expiredEvents(server, first.board_uuid)).toHaveLength(1);
    expect(expiredEvents(server, second.board_uuid)).toHaveLength(1);
  });
});
