import { randomUUID } from 'node:crypto';
import { HocuspocusProvider } from '@hocuspocus/provider';
import { describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/assertions.js';
import { createBoard, requestWithToken, serverForSuite, tokenOf, type CreatedBoard } from '../helpers/fixtures.js';
import { addObject, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';
import { openDatabase } from '../../src/store/database.js';

/**
 * Session-based participants (docs/users-and-tokens.md): a guest of the shared link is
 * given a participant id by the service, never by the client, and a resume credential for
 * that device alone. A zone assigned to that id is owned by the credential's holder only: the
 * id itself, declared next to the shared link, owns nothing, nor does another board's credential.
 */

const { server, connect } = serverForSuite();

const asToken = (token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => requestWithToken(server, token, method, path, body, headers);

interface Joined {
  participantId: string;
  token: string;
  client: BoardClient;
}

/** A guest joins through the shared link with a real provider; the server hands it its session participant. */
async function joinAsGuest(board: CreatedBoard, params: Record<string, string> = {}): Promise<Joined> {
  const client = connect(tokenOf(board.access_links.guest), board.board_uuid, params);
  await client.synced();
  const message = (await eventually(() => client.messages.find((m) => m.type === 'session:participant')))!;
  expect(message).toMatchObject({ participant_id: expect.stringMatching(/^guest-[\w-]{16}$/), token: expect.any(String), expires_at: board.expires_at });
  return { participantId: message.participant_id, token: message.token, client };
}

async function zoneFor(board: CreatedBoard, participantId: string, zoneVisibility = 'hidden') {
  const zone = await server.api('POST', `/boards/${board.board_uuid}/frames`, {
    name: 'Zone',
    bounds_x: 0,
    bounds_y: 0,
    bounds_width: 400,
    bounds_height: 400,
    assigned_participant_id: participantId,
    zone_visibility: zoneVisibility,
  });
  expect(zone.status).toBe(201);
  return { id: zone.body.id as string, document: `${board.board_uuid}/zones/${zone.body.id}` };
}

const objectInZone = { type: 'text', data: { text: 'mine' }, position: { x: 50, y: 50 } };

describe('a guest of the shared link', () => {
  it('is listed under a participant id the service minted, and a zone can be assigned to that id', async () => {
    const board = await createBoard(server, 'Session');
    const guest = await joinAsGuest(board, { user_id: 'declared-kid', user_name: 'Kim' });
    const read = await server.api('GET', `/boards/${board.board_uuid}?includeParticipants=true&includeObjects=false`);
    const listed = (read.body.participants as Array<Record<string, unknown>>).find((p) => p.user_id === guest.participantId);
    expect(listed).toMatchObject({ user_name: 'Kim', user_type: 'anonymous', role: 'guest' });
    expect(read.body.participants.some((p: { user_id: string }) => p.user_id === 'declared-kid')).toBe(false);
    const zone = await zoneFor(board, guest.participantId);
    const assigned = await server.api('GET', `/boards/${board.board_uuid}/frames/${zone.id}`);
    expect(assigned.body.assigned_participant_id).toBe(guest.participantId);
  });

  it('owns the zone on the socket it joined with and with its resume credential, over sockets and REST', async () => {
    const board = await createBoard(server, 'Session');
    const guest = await joinAsGuest(board);
    const zone = await zoneFor(board, guest.participantId);
    // The socket that joined opens its zone's document (hidden from everyone else) on the same socket.
    const sameSocketZone = new HocuspocusProvider({ websocketProvider: guest.client.socket, name: zone.document, token: tokenOf(board.access_links.guest) });
    sameSocketZone.attach();
    await eventually(() => sameSocketZone.isSynced, 10_000);
    sameSocketZone.destroy();
    guest.client.destroy();
    // A new socket with the resume credential is the same participant.
    const resumed = connect(guest.token, zone.document);
    await resumed.synced();
    addObject(resumed.doc, { id: 'resumed-work', data: { text: 'mine' }, x: 20, y: 20 });
    await resumed.saved();
    expect(resumed.messages.some((m) => m.type === 'write-rejected')).toBe(false);
    const created = await asToken(guest.token, 'POST', `/boards/${board.board_uuid}/objects`, objectInZone);
    expect(created.status).toBe(201);
    const me = await asToken(guest.token, 'GET', `/boards/${board.board_uuid}/me`);
    expect(me.body).toMatchObject({ user_id: guest.participantId, credential: 'session', role: 'guest' });
  });

  it('a leaked participant id, declared next to the shared link, owns nothing', async () => {
    const board = await createBoard(server, 'Session');
    const guest = await joinAsGuest(board);
    const zone = await zoneFor(board, guest.participantId);
    const guestToken = tokenOf(board.access_links.guest);
    const impostor = connect(guestToken, zone.document, { user_id: guest.participantId, userId: guest.participantId });
    await eventually(() => impostor.refusals.length > 0 || impostor.closes.length > 0);
    expect(impostor.provider.isSynced).toBe(false);
    const restWrite = await asToken(guestToken, 'POST', `/boards/${board.board_uuid}/objects`, objectInZone, { 'x-user-id': guest.participantId });
    expect(restWrite.status).toBe(403);
    expectErrorBody(restWrite, { statusCode: 403, error: 'Forbidden' });
    const frames = await asToken(guestToken, 'GET', `/boards/${board.board_uuid}/frames`, undefined, { 'x-user-id': guest.participantId });
    expect(frames.body.some((frame: { id: string }) => frame.id === zone.id)).toBe(false);
  });

  it("another board's resume credential is refused on this board, over sockets and REST", async () => {
    const here = await createBoard(server, 'Session here');
    const there = await createBoard(server, 'Session there');
    const owner = await joinAsGuest(here);
    const zone = await zoneFor(here, owner.participantId);
    const stranger = await joinAsGuest(there);
    const onHere = connect(stranger.token, zone.document);
    await eventually(() => onHere.refusals.length > 0 || onHere.closes.length > 0);
    expect(onHere.provider.isSynced).toBe(false);
    const rest = await asToken(stranger.token, 'POST', `/boards/${here.board_uuid}/objects`, objectInZone);
    expect(rest.status).toBe(403);
    expectErrorBody(rest, { statusCode: 403, error: 'Forbidden' });
  });

  it('two guests of one shared link are two participants: one cannot write in the other\'s zone', async () => {
    const board = await createBoard(server, 'Session');
    const [ana, ben] = [await joinAsGuest(board), await joinAsGuest(board)];
    expect(ana.participantId).not.toBe(ben.participantId);
    const bensZone = await zoneFor(board, ben.participantId, 'visible');
    const anaOnBens = connect(ana.token, bensZone.document);
    await anaOnBens.synced();
    addObject(anaOnBens.doc, { id: 'not-hers', data: { text: 'x' }, x: 10, y: 10 });
    const bens = connect(ben.token, bensZone.document);
    await bens.synced();
    addObject(bens.doc, { id: 'his', data: { text: 'y' }, x: 20, y: 20 });
    await bens.saved();
    const host = connect(tokenOf(board.access_links.host), bensZone.document);
    await host.synced();
    await eventually(() => host.doc.getMap('objects').has('his'));
    expect(host.doc.getMap('objects').has('not-hers')).toBe(false);
  });
});

describe('POST /boards/<id>/session-participants', () => {
  it('mints for the shared guest link only', async () => {
    const board = await createBoard(server, 'Mint');
    const path = `/boards/${board.board_uuid}/session-participants`;
    const minted = await asToken(tokenOf(board.access_links.guest), 'POST', path, { user_name: 'Ann' });
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({ participant_id: expect.stringMatching(/^guest-/), user_name: 'Ann', link: expect.stringContaining(minted.body.token) });
    const personal = await server.personalLink(board.board_uuid, 'student-1');
    for (const token of [tokenOf(board.access_links.host), personal.token, minted.body.token]) {
      const refused = await asToken(token, 'POST', path, {});
      expect(refused.status).toBe(403);
      expectErrorBody(refused, { statusCode: 403, error: 'Forbidden' });
    }
    const byKey = await server.api('POST', path, {});
    expect(byKey.status).toBe(403);
    const bad = await asToken(tokenOf(board.access_links.guest), 'POST', path, { user_name: 7, extra: true });
    expect(bad.status).toBe(400);
  });

  it('is refused where the board lets no anonymous guest in, and the credential then opens nothing', async () => {
    const board = await createBoard(server, 'Closed', { config: { allow_anonymous: false } });
    const refused = await asToken(tokenOf(board.access_links.guest), 'POST', `/boards/${board.board_uuid}/session-participants`, {});
    expect(refused.status).toBe(403);
  });

  it('a personal link cannot be issued under a session participant id (409)', async () => {
    const board = await createBoard(server, 'Mint');
    const minted = await asToken(tokenOf(board.access_links.guest), 'POST', `/boards/${board.board_uuid}/session-participants`, {});
    const taken = await server.api('POST', `/boards/${board.board_uuid}/participant-links`, { user_id: minted.body.participant_id });
    expect(taken.status).toBe(409);
    expectErrorBody(taken, { statusCode: 409, error: 'Conflict' });
    const links = await server.api('GET', `/boards/${board.board_uuid}/participant-links`);
    expect(links.body).toEqual([]);
  });
});

/**
 * Fills a board with `count` links of `kind` straight in its database, created a second after
 * now and later, so the caps are reached without a thousand requests.
 */
async function seedLinks(boardId: string, kind: 'personal' | 'session', count: number): Promise<void> {
  const database = await openDatabase(server.database.url);
  const base = Date.now() + 1_000;
  try {
    await database.prisma.participantLink.createMany({
      data: Array.from({ length: count }, (_, i) => ({
        boardId,
        userId: `seeded-${kind}-${i}`,
        kind,
        tokenNonce: randomUUID(),
        tokenHash: randomUUID(),
        createdAt: new Date(base + i),
        updatedAt: new Date(base + i),
      })),
    });
  } finally {
    await database.close();
  }
}

/** The session participants a board keeps: their links, and their entries in its participant history. */
async function storedSessionParticipants(boardId: string): Promise<{ links: string[]; history: string[] }> {
  const database = await openDatabase(server.database.url);
  try {
    const links = await database.prisma.participantLink.findMany({ where: { boardId, kind: 'session' }, select: { userId: true } });
    const history = await database.prisma.boardParticipant.findMany({ where: { boardId, userId: { startsWith: 'guest-' } }, select: { userId: true } });
    return { links: links.map((row) => row.userId).sort(), history: history.map((row) => row.userId).sort() };
  } finally {
    await database.close();
  }
}

describe('caps', () => {
  it('a guest of the shared link refused by a full board leaves no participant behind', async () => {
    const board = await createBoard(server, 'Full', { config: { max_participants: 1 } });
    const seated = await joinAsGuest(board);
    const refused = connect(tokenOf(board.access_links.guest), board.board_uuid);
    await eventually(() => refused.closes.length > 0 || refused.refusals.length > 0);
    expect(refused.closes[0]?.code).toBe(4409);
    expect(refused.messages.some((m) => m.type === 'session:participant')).toBe(false);
    await eventually(async () => (await storedSessionParticipants(board.board_uuid)).links.length === 1);
    expect(await storedSessionParticipants(board.board_uuid)).toEqual({ links: [seated.participantId], history: [seated.participantId] });
  });

  it('a board keeps its 1,000 newest session participants and never forgets one that owns a zone', async () => {
    const board = await createBoard(server, 'Crowd');
    const mint = () => asToken(tokenOf(board.access_links.guest), 'POST', `/boards/${board.board_uuid}/session-participants`, {});
    const first = (await mint()).body;
    const second = (await mint()).body;
    await zoneFor(board, first.participant_id);
    await seedLinks(board.board_uuid, 'session', 998);
    const newest = await mint();
    expect(newest.status).toBe(201);
    const me = (token: string) => asToken(token, 'GET', `/boards/${board.board_uuid}/me`);
    expect((await me(first.token)).status).toBe(200);
    expect((await me(second.token)).status).toBe(401);
    expect((await me(newest.body.token)).status).toBe(200);
    // A forgotten participant's id can never come back: it leaves the board's participant history too.
    const { history } = await storedSessionParticipants(board.board_uuid);
    expect(history).toContain(first.participant_id);
    expect(history).not.toContain(second.participant_id);
  });

  it('a board has at most 1,000 personal links: the next is refused with 409, an existing one is still given', async () => {
    const board = await createBoard(server, 'Links');
    const issue = (userId: string) => server.api('POST', `/boards/${board.board_uuid}/participant-links`, { user_id: userId });
    await seedLinks(board.board_uuid, 'session', 5); // sessions are not personal links: they do not count
    await seedLinks(board.board_uuid, 'personal', 999);
    expect((await issue('s-1000')).status).toBe(201);
    const over = await issue(`s-${randomUUID()}`);
    expectErrorBody(over, { statusCode: 409, error: 'Conflict' });
    expect(over.body.message).toContain('1000');
    expect((await issue('s-1000')).status).toBe(200);
    const bulk = await server.api('POST', `/boards/${board.board_uuid}/zones/bulk-assign`, {
      issue_links: true,
      assignments: [{ frame_id: randomUUID(), user_id: 's-new' }],
    });
    expect(bulk.status).toBe(409);
  });
});
