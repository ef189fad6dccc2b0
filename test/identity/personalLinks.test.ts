import { randomUUID } from 'node:crypto';
import { HocuspocusProvider } from '@hocuspocus/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { openDatabase } from '../../src/store/database.js';
import { ISO_TIMESTAMP, expectErrorBody } from '../helpers/assertions.js';
import { serverForSuite, type CreatedBoard, tokenOf, createBoard } from '../helpers/fixtures.js';
import { addObject, connectBoardClient, sessionParticipantOf, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually, request, type PersonalLink } from '../helpers/testServer.js';

/**
 * Personal links (docs/users-and-tokens.md): `POST /boards/<id>/participant-links` binds a board
 * token to one user; the link is listed, revocable (its sockets close at once), and lives
 * and expires with its board.
 */

const HOUR_MS = 3_600_000;
const clock = new ManualClock(new Date('2031-03-01T09:00:00.000Z'));
const { server, clients, connect } = serverForSuite({ clock });
const providers: HocuspocusProvider[] = [];

afterEach(() => {
  providers.splice(0).forEach((provider) => provider.destroy());
});

const linksPath = (board: CreatedBoard, userId = '') => `/boards/${board.board_uuid}/participant-links${userId ? `/${encodeURIComponent(userId)}` : ''}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** Calls the API with a board token instead of the API key. */
const withToken = (token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  request(server.url, method, `/api/v1${path}`, body, { ...bearer(token), ...headers });

const newBoard = (body: Record<string, unknown> = {}) => createBoard(server, 'Links', body);

const firstClose = async (client: BoardClient) => (await eventually(() => client.closes[0], 10_000))!;

describe('POST /boards/:id/participant-links', () => {
  it('issues a verified-student link bound to the user, expiring with the board (201)', async () => {
    const board = await newBoard();
    const res = await server.api('POST', linksPath(board), { user_id: 'student-1', user_name: 'Ada', external_user_id: 'lms-1', external_source: 'moodle' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      user_id: 'student-1',
      user_name: 'Ada',
      user_type: 'verified-student',
      external_user_id: 'lms-1',
      external_source: 'moodle',
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      link: `${new URL(board.access_links.guest).origin}/boards/${board.board_uuid}?token=${res.body.token}`,
      expires_at: board.expires_at,
      created_at: expect.stringMatching(ISO_TIMESTAMP),
    });
    expect(res.body.token).not.toBe(tokenOf(board.access_links.guest));
    expect(res.body.token).not.toBe(tokenOf(board.access_links.host));
  });

  it('issues an authenticated link without external ids, and distinct tokens per user', async () => {
    const board = await newBoard();
    const first = await server.api('POST', linksPath(board), { user_id: 'student-1' });
    const second = await server.api('POST', linksPath(board), { user_id: 'student-2' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ user_id: 'student-1', user_name: null, user_type: 'authenticated', external_user_id: null, external_source: null });
    expect(second.body.token).not.toBe(first.body.token);
  });

  it('answers 200 with the same token for a user that already has a link, with its names updated', async () => {
    const board = await newBoard();
    const first = await server.api('POST', linksPath(board), { user_id: 'student-1', user_name: 'Ada' });
    const again = await server.api('POST', linksPath(board), { user_id: 'student-1', user_name: 'Ada L.', external_user_id: 'lms-1' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, user_name: 'Ada L.', user_type: 'verified-student', external_user_id: 'lms-1' });
    const listed = await server.api('GET', linksPath(board));
    expect(listed.body).toEqual([again.body]);
  });

  it('accepts the host token and refuses the shared guest link and a personal link (403)', async () => {
    const board = await newBoard();
    const byHost = await withToken(tokenOf(board.access_links.host), 'POST', linksPath(board), { user_id: 'student-1' });
    expect(byHost.status).toBe(201);
    for (const token of [tokenOf(board.access_links.guest), byHost.body.token as string]) {
      const path = `/api/v1${linksPath(board)}`;
      expectErrorBody(await withToken(token, 'POST', linksPath(board), { user_id: 'student-9' }), { statusCode: 403, error: 'Forbidden', path });
      expectErrorBody(await withToken(token, 'GET', linksPath(board)), { statusCode: 403, error: 'Forbidden', path });
      const one = `/api/v1${linksPath(board, 'student-1')}`;
      expectErrorBody(await withToken(token, 'DELETE', linksPath(board, 'student-1')), { statusCode: 403, error: 'Forbidden', path: one });
    }
  });

  const INVALID: Array<[string, unknown, string]> = [
    ['a missing user_id', {}, 'user_id'],
    ['an empty user_id', { user_id: '' }, 'user_id'],
    ['a user_id of 256 characters', { user_id: 'x'.repeat(256) }, 'user_id'],
    ['a user_id that is not a string', { user_id: 7 }, 'user_id'],
    ['a user_name of 256 characters', { user_id: 'a', user_name: 'x'.repeat(256) }, 'user_name'],
    ['an external_source without external_user_id', { user_id: 'a', external_source: 'moodle' }, 'external_user_id'],
    ['an unknown field', { user_id: 'a', role: 'host' }, 'role'],
  ];
  for (const [what, body, field] of INVALID) {
    it(`refuses ${what} (400 naming ${field})`, async () => {
      const board = await newBoard();
      expectErrorBody(await server.api('POST', linksPath(board), body), { statusCode: 400, error: 'Bad Request', field, path: `/api/v1${linksPath(board)}` });
    });
  }

  it('accepts a user_id of 255 characters', async () => {
    const board = await newBoard();
    expect((await server.api('POST', linksPath(board), { user_id: 'x'.repeat(255) })).status).toBe(201);
  });

  it('answers 404 for an unknown board and 403 for a board of another organization', async () => {
    const missing = `/boards/${randomUUID()}/participant-links`;
    expectErrorBody(await server.api('POST', missing, { user_id: 'a' }), { statusCode: 404, error: 'Not Found', path: `/api/v1${missing}` });
    const board = await newBoard();
    const other = await server.newOrganization();
    const foreign = await request(server.url, 'POST', `/api/v1${linksPath(board)}`, { user_id: 'a' }, { 'x-api-key': other.apiKey });
    expectErrorBody(foreign, { statusCode: 403, error: 'Forbidden', path: `/api/v1${linksPath(board)}` });
  });
});

describe('GET and DELETE /boards/:id/participant-links', () => {
  it('lists every link of the board with its token, oldest first', async () => {
    const board = await newBoard();
    const a = await server.personalLink(board.board_uuid, 'student-a');
    clock.advance(1_000);
    const b = await server.personalLink(board.board_uuid, 'student-b', { user_name: 'Bea' });
    const listed = await withToken(tokenOf(board.access_links.host), 'GET', linksPath(board));
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([a, b]);
  });

  it('revokes a link (204): its token is refused over REST and sockets, a new POST issues a new token', async () => {
    const board = await newBoard();
    const link = await server.personalLink(board.board_uuid, 'student-1');
    expect((await withToken(link.token, 'GET', `/boards/${board.board_uuid}`)).status).toBe(200);

    const revoked = await server.api('DELETE', linksPath(board, 'student-1'));
    expect(revoked.status).toBe(204);
    expect(await server.api('GET', linksPath(board))).toMatchObject({ status: 200, body: [] });
    expectErrorBody(await withToken(link.token, 'GET', `/boards/${board.board_uuid}`), { statusCode: 401, error: 'Unauthorized' });
    const refused = connect(link.token, board.board_uuid);
    expect(await firstClose(refused)).toEqual({ code: 1008, reason: 'invalid-token' });

    const again = await server.personalLink(board.board_uuid, 'student-1');
    expect(again.token).not.toBe(link.token);
    expect((await withToken(again.token, 'GET', `/boards/${board.board_uuid}`)).status).toBe(200);
    expect((await withToken(link.token, 'GET', `/boards/${board.board_uuid}`)).status).toBe(401);
  });

  it('answers 404 for a user without a link', async () => {
    const board = await newBoard();
    const path = linksPath(board, 'nobody');
    expectErrorBody(await server.api('DELETE', path), { statusCode: 404, error: 'Not Found', path: `/api/v1${path}` });
  });

  it('closes the revoked user’s sockets on every document of the board at once, and nobody else’s', async () => {
    const board = await newBoard();
    const zone = await server.api('POST', `/boards/${board.board_uuid}/frames`, { name: 'Zone', assigned_user_id: 'student-1', zone_visibility: 'hidden' });
    expect(zone.status).toBe(201);
    const student1 = await server.personalLink(board.board_uuid, 'student-1');
    const student2 = await server.personalLink(board.board_uuid, 'student-2');
    const revokedClient = connect(student1.token, board.board_uuid);
    const zoneProvider = new HocuspocusProvider({ websocketProvider: revokedClient.socket, name: `${board.board_uuid}/zones/${zone.body.id}`, token: student1.token });
    providers.push(zoneProvider);
    zoneProvider.attach();
    // A second socket of the same user, holding only the zone document.
    const zoneOnly = connect(student1.token, `${board.board_uuid}/zones/${zone.body.id}`);
    const bystander = connect(student2.token, board.board_uuid);
    await Promise.all([revokedClient.synced(), zoneOnly.synced(), bystander.synced(), eventually(() => zoneProvider.isSynced)]);

    expect((await server.api('DELETE', linksPath(board, 'student-1'))).status).toBe(204);
    expect(await firstClose(revokedClient)).toEqual({ code: 1008, reason: 'invalid-token' });
    expect(await firstClose(zoneOnly)).toEqual({ code: 1008, reason: 'invalid-token' });
    // The bystander stays connected and its writes still land.
    addObject(bystander.doc, { id: 'still-here', x: 5000, y: 5000 });
    await bystander.saved();
    expect(bystander.closes).toEqual([]);
  });
});

describe('a personal link’s lifetime is its board’s', () => {
  it('dies with the board: deleting the board removes its links', async () => {
    const board = await newBoard();
    const link = await server.personalLink(board.board_uuid, 'student-1');
    expect((await server.api('DELETE', `/boards/${board.board_uuid}`)).status).toBe(204);
    expectErrorBody(await withToken(link.token, 'GET', `/boards/${board.board_uuid}`), { statusCode: 401, error: 'Unauthorized' });
    const database = await openDatabase(server.database.url);
    try {
      expect(await database.prisma.participantLink.count({ where: { boardId: board.board_uuid } })).toBe(0);
    } finally {
      await database.close();
    }
  });

  it('expires with the board, and follows a new expiry set with PATCH', async () => {
    const board = await newBoard({ expires_in_hours: 2 });
    const link = await server.personalLink(board.board_uuid, 'student-1');
    expect(link.expires_at).toBe(board.expires_at);
    const patched = await server.api('PATCH', `/boards/${board.board_uuid}`, { expires_in_hours: 1 });
    expect(patched.status).toBe(200);
    expect((await server.api('GET', linksPath(board))).body).toEqual([{ ...link, expires_at: patched.body.expires_at }]);

    const client = connect(link.token, board.board_uuid);
    await client.synced();
    clock.advance(HOUR_MS + 1_000);
    expectErrorBody(await withToken(link.token, 'GET', `/boards/${board.board_uuid}`), { statusCode: 410, error: 'Gone' });
    const late = connect(link.token, board.board_uuid);
    expect(await firstClose(late)).toEqual({ code: 1008, reason: 'invalid-token' });
  });
});

describe('a personal link acts as the guest it names', () => {
  it('works with Authorization: Bearer, ?token=, the socket URL and the provider token, as a guest', async () => {
    const board = await newBoard();
    const link: PersonalLink = await server.personalLink(board.board_uuid, 'student-1');
    expect((await withToken(link.token, 'GET', `/boards/${board.board_uuid}`)).status).toBe(200);
    const byQuery = await request(server.url, 'GET', `/api/v1/boards/${board.board_uuid}?token=${link.token}`);
    expect(byQuery.status).toBe(200);
    expect(byQuery.body.access_links).toEqual({ guest: board.access_links.guest });
    expectErrorBody(await withToken(link.token, 'PATCH', `/boards/${board.board_uuid}`, { title: 'Mine now' }), { statusCode: 403, error: 'Forbidden' });
    expectErrorBody(await withToken(link.token, 'GET', `/boards/${board.board_uuid}/access-links`), { statusCode: 403, error: 'Forbidden' });

    const byUrl = connect(link.token, board.board_uuid);
    await byUrl.synced();
    const byProvider = connectBoardClient({ url: `${server.url.replace(/^http/, 'ws')}/api/v1/realtime`, name: board.board_uuid, token: link.token });
    clients.push(byProvider);
    await byProvider.synced();
  });

  it('reports the link’s identity in participant.joined, whatever the socket URL declares', async () => {
    const board = await newBoard();
    const link = await server.personalLink(board.board_uuid, 'student-7', { user_name: 'Ada', external_user_id: 'lms-77', external_source: 'moodle' });
    const client = connect(link.token, board.board_uuid, { user_id: 'teacher', user_name: 'Mallory', external_user_id: 'forged' });
    await client.synced();
    const joined = await eventually(() =>
      server.events.find((event) => event.name === 'participant.joined' && event.payload.board_id === board.board_uuid),
    );
    expect(joined!.payload).toMatchObject({
      user: { user_id: 'student-7', user_name: 'Ada', user_role: 'guest', user_type: 'verified-student', external_user_id: 'lms-77', external_source: 'moodle' },
    });
  });

  it('reports a shared-link guest as an anonymous session participant, its declared name as display name and no external ids', async () => {
    const board = await newBoard();
    const client = connect(tokenOf(board.access_links.guest), board.board_uuid, { user_id: 'student-7', user_name: 'Ada', external_user_id: 'lms-77', external_source: 'moodle' });
    await client.synced();
    const joined = await eventually(() =>
      server.events.find((event) => event.name === 'participant.joined' && event.payload.board_id === board.board_uuid),
    );
    expect(joined!.payload).toMatchObject({
      user: { user_id: await sessionParticipantOf(client), user_name: 'Ada', user_role: 'guest', user_type: 'anonymous', external_user_id: null, external_source: null },
    });
  });
});
