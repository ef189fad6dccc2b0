import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/assertions.js';
import { requestWithToken, serverForSuite, tokenOf } from '../helpers/fixtures.js';
import { addObject, sessionParticipantOf } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';

/**
 * Zone privacy rests on credentials, never on what a client declares: a
 * user id sent next to the shared guest link (`X-User-Id`, `?user_id=`) is a display name and
 * owns nothing; only the personal link of the assigned user owns its zone.
 */

const { server, connect } = serverForSuite();

interface Classroom {
  boardId: string;
  hostToken: string;
  guestToken: string;
  zoneId: string;
  zoneDocument: string;
}

const asToken = (token: string, method: string, path: string, headers: Record<string, string> = {}) => requestWithToken(server, token, method, path, undefined, headers);

/** A board with student-1's hidden zone, holding one object the host drew in it. */
async function classroom(config: Record<string, unknown> = {}): Promise<Classroom> {
  const created = await server.api('POST', '/boards', { title: `Privacy ${randomUUID().slice(0, 8)}`, config });
  expect(created.status).toBe(201);
  const boardId = created.body.board_uuid as string;
  const zone = await server.api('POST', `/boards/${boardId}/frames`, { name: 'Zone of student-1', assigned_user_id: 'student-1', zone_visibility: 'hidden' });
  expect(zone.status).toBe(201);
  const room = {
    boardId,
    hostToken: tokenOf(created.body.access_links.host),
    guestToken: tokenOf(created.body.access_links.guest),
    zoneId: zone.body.id as string,
    zoneDocument: `${boardId}/zones/${zone.body.id}`,
  };
  const host = connect(room.hostToken, room.zoneDocument, { user_id: 'teacher' });
  await host.synced();
  addObject(host.doc, { id: 'secret-work', data: { text: 'student-1 only' }, x: 10, y: 10 });
  await host.saved();
  host.destroy();
  return room;
}

/** What a REST caller sees of the zone: in the frame list, by id, and its object in the board state. */
async function restView(room: Classroom, token: string, headers: Record<string, string> = {}, query = '') {
  const list = await asToken(token, 'GET', `/boards/${room.boardId}/frames${query}`, headers);
  const one = await asToken(token, 'GET', `/boards/${room.boardId}/frames/${room.zoneId}${query}`, headers);
  const board = await asToken(token, 'GET', `/boards/${room.boardId}${query}`, headers);
  expect(list.status).toBe(200);
  expect(board.status).toBe(200);
  return {
    listed: (list.body as Array<{ id: string }>).some((frame) => frame.id === room.zoneId),
    byId: one.status,
    objects: (board.body.state.objects as Array<{ id: string }>).map((object) => object.id),
  };
}

describe('a user id declared next to the shared guest link owns nothing', () => {
  it('X-User-Id of the assigned student shows neither the hidden zone nor its content', async () => {
    const room = await classroom();
    expect(await restView(room, room.guestToken, { 'x-user-id': 'student-1' })).toEqual({ listed: false, byId: 404, objects: [] });
  });

  it('?user_id= of the assigned student on REST shows neither the hidden zone nor its content', async () => {
    const room = await classroom();
    expect(await restView(room, room.guestToken, {}, '?user_id=student-1')).toEqual({ listed: false, byId: 404, objects: [] });
  });

  it('?user_id= of the assigned student on the socket is refused the zone document', async () => {
    const room = await classroom();
    const spoof = connect(room.guestToken, room.zoneDocument, { user_id: 'student-1' });
    await eventually(() => spoof.refusals.length > 0);
    expect(spoof.refusals).toEqual(['zone-forbidden']);
    expect(spoof.doc.getMap('objects').size).toBe(0);
  });

  it('X-User-Id next to another student’s personal link does not make it the assigned student', async () => {
    const room = await classroom();
    const other = await server.personalLink(room.boardId, 'student-2');
    expect(await restView(room, other.token, { 'x-user-id': 'student-1' })).toEqual({ listed: false, byId: 404, objects: [] });
    const spoof = connect(other.token, room.zoneDocument, { user_id: 'student-1' });
    await eventually(() => spoof.refusals.length > 0);
    expect(spoof.refusals).toEqual(['zone-forbidden']);
  });
});

describe('the personal link of the assigned user owns its zone', () => {
  it('sees the hidden zone and its content over REST', async () => {
    const room = await classroom();
    const own = await server.personalLink(room.boardId, 'student-1');
    expect(await restView(room, own.token)).toEqual({ listed: true, byId: 200, objects: ['secret-work'] });
  });

  it('opens the zone document read-write and its writes land', async () => {
    const room = await classroom();
    const own = await server.personalLink(room.boardId, 'student-1');
    const client = connect(own.token, room.zoneDocument);
    await client.saved();
    expect(client.provider.authorizedScope).toBe('read-write');
    expect(client.doc.getMap('objects').has('secret-work')).toBe(true);
    addObject(client.doc, { id: 'answer', x: 20, y: 20, createdBy: 'student-1' });
    await client.saved();
    const state = await server.api('GET', `/boards/${room.boardId}`);
    expect((state.body.state.objects as Array<{ id: string }>).map((object) => object.id).sort()).toEqual(['answer', 'secret-work']);
  });

  it('owns a zone assigned by participant id once it joined with its personal link; a declared id is no participant (404)', async () => {
    const room = await classroom();
    const own = await server.personalLink(room.boardId, 'student-3');
    const joined = connect(own.token, room.boardId);
    const declared = connect(room.guestToken, room.boardId, { user_id: 'student-4' });
    await Promise.all([joined.synced(), declared.synced()]);
    await eventually(async () => (await server.api('GET', `/boards/${room.boardId}`)).body.participants_count === 2);

    const frames = `/boards/${room.boardId}/frames`;
    const zone = await server.api('POST', frames, { name: 'Zone 3', bounds_x: 3000, assigned_participant_id: 'student-3', zone_visibility: 'hidden' });
    expect(zone.status).toBe(201);
    const refused = await server.api('POST', frames, { name: 'Zone 4', bounds_x: 6000, assigned_participant_id: 'student-4' });
    expectErrorBody(refused, { statusCode: 404, error: 'Not Found', path: `/api/v1${frames}` });
    const owner = connect(own.token, `${room.boardId}/zones/${zone.body.id}`);
    await owner.synced();
    expect(owner.provider.authorizedScope).toBe('read-write');
  });
});

describe('allow_anonymous: false admits only personal links and hosts', () => {
  it('closes a shared-link guest with 4403 even with a declared user id, and refuses it over REST (403)', async () => {
    const room = await classroom({ allow_anonymous: false });
    const shared = connect(room.guestToken, room.boardId, { user_id: 'student-1' });
    expect(await eventually(() => shared.closes[0])).toEqual({ code: 4403, reason: 'forbidden' });
    expectErrorBody(await asToken(room.guestToken, 'GET', `/boards/${room.boardId}`, { 'x-user-id': 'student-1' }), { statusCode: 403, error: 'Forbidden' });

    const own = await server.personalLink(room.boardId, 'student-1');
    const personal = connect(own.token, room.boardId);
    const host = connect(room.hostToken, room.boardId);
    await Promise.all([personal.synced(), host.synced()]);
    expect((await asToken(own.token, 'GET', `/boards/${room.boardId}`)).status).toBe(200);
  });
});

describe('presence', () => {
  it('a shared-link guest declaring a verified user’s id gets its own participant entry and cannot end the other’s', async () => {
    const room = await classroom();
    const own = await server.personalLink(room.boardId, 'student-1');
    const verified = connect(own.token, room.boardId);
    await verified.synced();
    const impostor = connect(room.guestToken, room.boardId, { user_id: 'student-1' });
    await impostor.synced();
    const participants = async () => (await server.api('GET', `/boards/${room.boardId}?includeParticipants=true`)).body.participants as Array<Record<string, unknown>>;
    const both = await eventually(async () => ((await participants()).length === 2 ? participants() : undefined));
    expect(both!.map((p) => [p.user_id, p.user_type]).sort()).toEqual([
      [await sessionParticipantOf(impostor), 'anonymous'],
      ['student-1', 'authenticated'],
    ]);

    impostor.destroy();
    const left = await eventually(async () => ((await participants()).length === 1 ? participants() : undefined));
    expect(left!).toMatchObject([{ user_id: 'student-1', user_type: 'authenticated' }]);
    expect(verified.closes).toEqual([]);
  });
});

describe('POST /boards/:id/zones/bulk-assign with issue_links', () => {
  it('returns each assigned user’s personal link, creating it if missing, and the link opens the zone', async () => {
    const room = await classroom();
    const existing = await server.personalLink(room.boardId, 'student-1');
    const frames = `/boards/${room.boardId}/frames`;
    const second = await server.api('POST', frames, { name: 'Zone 2', bounds_x: 2000 });
    const third = await server.api('POST', frames, { name: 'Zone 3', bounds_x: 4000 });
    const bulk = await server.api('POST', `/boards/${room.boardId}/zones/bulk-assign`, {
      issue_links: true,
      assignments: [
        { frame_id: room.zoneId, user_id: 'student-1' },
        { frame_id: second.body.id, user_id: 'student-2' },
        { frame_id: randomUUID(), user_id: 'student-x' },
        { frame_id: third.body.id, participant_id: 'nobody' },
      ],
    });
    expect(bulk.status).toBe(200);
    expect(bulk.body).toMatchObject({ assigned: 2, failed: 2 });
    const [first, made, unknown, participant] = bulk.body.results as Array<Record<string, any>>;
    expect(first!.participant_link).toEqual({ user_id: 'student-1', token: existing.token, link: existing.link, expires_at: existing.expires_at });
    expect(made!.participant_link).toMatchObject({ user_id: 'student-2', token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expires_at: existing.expires_at });
    expect(made!.participant_link.link).toBe(`${new URL(existing.link).origin}/boards/${room.boardId}?token=${made!.participant_link.token}`);
    expect(unknown).not.toHaveProperty('participant_link');
    expect(participant).not.toHaveProperty('participant_link');
    const listed = (await server.api('GET', `/boards/${room.boardId}/participant-links`)).body as Array<{ user_id: string }>;
    expect(listed.map((link) => link.user_id)).toEqual(['student-1', 'student-2']);

    const student2 = connect(made!.participant_link.token, `${room.boardId}/zones/${second.body.id}`);
    await student2.synced();
    expect(student2.provider.authorizedScope).toBe('read-write');
  });

  it('returns no links without issue_links', async () => {
    const room = await classroom();
    const bulk = await server.api('POST', `/boards/${room.boardId}/zones/bulk-assign`, { assignments: [{ frame_id: room.zoneId, user_id: 'student-2' }] });
    expect(bulk.status).toBe(200);
    expect(bulk.body.results).toEqual([{ frame_id: room.zoneId, success: true, zone_version: 2 }]);
    expect((await server.api('GET', `/boards/${room.boardId}/participant-links`)).body).toEqual([]);
  });
});
