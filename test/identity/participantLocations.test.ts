import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { serverForSuite, tokenOf } from '../helpers/fixtures.js';
import { type BoardClient } from '../helpers/realtimeClient.js';
import { eventually, request } from '../helpers/testServer.js';

/**
 * A participant's location names the frame it looks at; shown to a viewer who may not see
 * that zone, it would reveal the zone. Participant views are filtered per
 * viewer like frames: over REST (`includeParticipants=true`) and on the socket relay.
 */

const { server, connect } = serverForSuite();

const viewport = { x: 0, y: 0, width: 800, height: 600 };

let barriers = 0;
/** Resolves once the server handled everything `client` sent and delivered what it queued for it before. */
async function drained(client: BoardClient): Promise<void> {
  const type = `barrier-${++barriers}`;
  client.sendStateless({ type });
  await eventually(() => client.messages.some((m) => m.type === 'error' && String(m.message).includes(`"${type}"`)));
}

const locationsOf = (client: BoardClient) => client.messages.filter((message) => message.type === 'participant:location');

/**
 * student-1 looks at its hidden zone, student-3 at its visible zone; student-2 (personal link),
 * a shared-link guest and the host are connected too.
 */
async function lookingAround() {
  const created = await server.api('POST', '/boards', { title: `Locations ${randomUUID().slice(0, 8)}` });
  const boardId = created.body.board_uuid as string;
  const frames = `/boards/${boardId}/frames`;
  const hidden = await server.api('POST', frames, { name: 'Hidden', assigned_user_id: 'student-1', zone_visibility: 'hidden' });
  const visible = await server.api('POST', frames, { name: 'Visible', bounds_x: 2000, assigned_user_id: 'student-3', zone_visibility: 'visible' });
  expect([hidden.status, visible.status]).toEqual([201, 201]);
  const [student1, student2, student3] = await Promise.all(['student-1', 'student-2', 'student-3'].map((id) => server.personalLink(boardId, id)));
  const guestToken = tokenOf(created.body.access_links.guest);
  const room = {
    boardId,
    hiddenZone: hidden.body.id as string,
    visibleZone: visible.body.id as string,
    tokens: { student1: student1!.token, student2: student2!.token, guest: guestToken },
    host: connect(tokenOf(created.body.access_links.host), boardId, { user_id: 'teacher' }),
    student1: connect(student1!.token, boardId),
    student2: connect(student2!.token, boardId),
    student3: connect(student3!.token, boardId),
    guest: connect(guestToken, boardId, { user_id: 'student-1' }),
  };
  await Promise.all([room.host, room.student1, room.student2, room.student3, room.guest].map((client) => client.synced()));
  room.student1.sendStateless({ type: 'participant:location', frameId: room.hiddenZone, viewportBounds: viewport });
  room.student3.sendStateless({ type: 'participant:location', frameId: room.visibleZone, viewportBounds: viewport });
  await eventually(() => locationsOf(room.host).length === 2);
  return room;
}

/** Each participant's `location.frameId` (null when shown without a frame, undefined when not shown), as `token` reads it. */
async function frameIdsSeenBy(boardId: string, token: string | null): Promise<Record<string, string | null | undefined>> {
  const path = `/api/v1/boards/${boardId}?includeParticipants=true`;
  const res = token ? await request(server.url, 'GET', path, undefined, { authorization: `Bearer ${token}` }) : await server.api('GET', path.slice('/api/v1'.length));
  expect(res.status).toBe(200);
  const participants = res.body.participants as Array<{ user_id: string; user_type: string; location?: { frameId: string | null } }>;
  return Object.fromEntries(participants.filter((p) => p.user_type !== 'anonymous' && p.user_id !== 'teacher').map((p) => [p.user_id, p.location?.frameId]));
}

describe('GET /boards/:id?includeParticipants=true', () => {
  it('does not show a guest the location another guest reported inside a hidden zone (the issue’s report)', async () => {
    const created = await server.api('POST', '/boards', { title: `Report ${randomUUID().slice(0, 8)}` });
    const boardId = created.body.board_uuid as string;
    const zone = await server.api('POST', `/boards/${boardId}/frames`, { name: 'Hidden', assigned_user_id: 'student-1', zone_visibility: 'hidden' });
    const guestToken = tokenOf(created.body.access_links.guest);
    const reporter = connect(guestToken, boardId, { user_id: 'student-1' });
    const host = connect(tokenOf(created.body.access_links.host), boardId);
    await Promise.all([reporter.synced(), host.synced()]);
    reporter.sendStateless({ type: 'participant:location', frameId: zone.body.id, viewportBounds: viewport });
    await eventually(() => locationsOf(host).length === 1);
    const res = await request(server.url, 'GET', `/api/v1/boards/${boardId}?includeParticipants=true`, undefined, {
      authorization: `Bearer ${guestToken}`,
      'x-user-id': 'student-2',
    });
    expect(res.status).toBe(200);
    expect(res.body.participants).toHaveLength(2);
    expect(JSON.stringify(res.body)).not.toContain(zone.body.id);
  });

  it('does not show another student a location inside a hidden zone it may not see', async () => {
    const room = await lookingAround();
    expect(await frameIdsSeenBy(room.boardId, room.tokens.student2)).toEqual({ 'student-1': undefined, 'student-2': undefined, 'student-3': room.visibleZone });
  });

  it('does not show a shared-link guest declaring the owner’s id the location either', async () => {
    const room = await lookingAround();
    const res = await request(server.url, 'GET', `/api/v1/boards/${room.boardId}?includeParticipants=true`, undefined, {
      authorization: `Bearer ${room.tokens.guest}`,
      'x-user-id': 'student-1',
    });
    const participants = res.body.participants as Array<{ user_id: string; location?: { frameId: string } }>;
    expect(participants.map((p) => p.location?.frameId)).not.toContain(room.hiddenZone);
    expect(JSON.stringify(res.body)).not.toContain(room.hiddenZone);
  });

  it('shows the owner and the host the location in the hidden zone', async () => {
    const room = await lookingAround();
    expect((await frameIdsSeenBy(room.boardId, room.tokens.student1))['student-1']).toBe(room.hiddenZone);
    expect((await frameIdsSeenBy(room.boardId, null))['student-1']).toBe(room.hiddenZone);
  });
});

describe('the participant:location relay', () => {
  it('reaches the host, and no student or shared-link guest, for a location inside a hidden zone', async () => {
    const room = await lookingAround();
    expect(locationsOf(room.host).map((message) => message.frameId).sort()).toEqual([room.hiddenZone, room.visibleZone].sort());
    for (const client of [room.student2, room.guest]) {
      await drained(client);
      expect(JSON.stringify(client.messages)).not.toContain(room.hiddenZone);
    }
  });
});
