import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ISO_TIMESTAMP } from '../helpers/assertions.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { connectBoardClient, openSessions, sessionParticipantOf, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';

/**
 * The stateless JSON messages of a board socket (`{ type, ...payload }`): host commands
 * relayed to the others, participant locations relayed to hosts, `subscribe`, and errors.
 */
const { server, clients } = serverForSuite();

interface Room {
  boardId: string;
  teacher: BoardClient;
  assistant: BoardClient;
  student: BoardClient;
  classmate: BoardClient;
}

/** A board with two host clients and two guest clients, all synced. */
async function openRoom(): Promise<Room> {
  const res = await server.api('POST', '/boards', { title: `Class ${randomUUID().slice(0, 8)}` });
  expect(res.status).toBe(201);
  const boardId = res.body.board_uuid as string;
  const { host, guest } = res.body.access_links as { host: string; guest: string };
  const join = (link: string, userId: string) => {
    const client = connectBoardClient({ url: server.socketUrl(link, { user_id: userId }), name: boardId });
    clients.push(client);
    return client;
  };
  const room = { boardId, teacher: join(host, 'teacher'), assistant: join(host, 'assistant'), student: join(guest, 'student'), classmate: join(guest, 'classmate') };
  await Promise.all([room.teacher, room.assistant, room.student, room.classmate].map((client) => client.synced()));
  return room;
}

let barriers = 0;
/**
 * Resolves once the server has handled everything `client` sent before and every message
 * it queued for `client` before that has arrived: the server answers an unknown message
 * type with an error naming it, in order with everything else on that socket.
 */
async function drained(client: BoardClient): Promise<void> {
  const type = `barrier-${++barriers}`;
  client.sendStateless({ type });
  await eventually(() => client.messages.some((m) => m.type === 'error' && String(m.message).includes(`"${type}"`)));
}

/** Messages of `client` of one type (barrier replies left out). */
const received = (client: BoardClient, type: string) =>
  client.messages.filter((m) => m.type === type && !(type === 'error' && /"barrier-\d+"/.test(String(m.message))));

const hostCommands = [
  { type: 'frame:navigate', message: { type: 'frame:navigate', frameId: 'frame-2', smooth: true } },
  { type: 'frame:lock', message: { type: 'frame:lock', frameId: 'frame-2', lockMode: 'hard' } },
] as const;

describe('host commands (frame:navigate, frame:lock)', () => {
  it.each(hostCommands)('relays $type from a host to every other client, guests and hosts, but not back to the sender', async ({ type, message }) => {
    const room = await openRoom();
    room.teacher.sendStateless(message);

    const others = [room.assistant, room.student, room.classmate];
    await eventually(() => others.every((client) => received(client, type).length === 1));
    for (const client of others) expect(received(client, type)).toEqual([{ ...message, from: 'teacher' }]);
    await drained(room.teacher);
    expect(received(room.teacher, type)).toEqual([]);
    expect(received(room.teacher, 'error')).toEqual([]);
  });

  it('relays frame:navigate with smooth false when the host leaves smooth out', async () => {
    const room = await openRoom();
    room.teacher.sendStateless({ type: 'frame:navigate', frameId: 'frame-9' });
    await eventually(() => received(room.student, 'frame:navigate').length === 1);
    expect(received(room.student, 'frame:navigate')).toEqual([{ type: 'frame:navigate', frameId: 'frame-9', smooth: false, from: 'teacher' }]);
  });

  it.each(hostCommands)('answers a guest sending $type with an error and relays it to nobody', async ({ type, message }) => {
    const room = await openRoom();
    room.student.sendStateless(message);

    await eventually(() => received(room.student, 'error').length === 1);
    expect(received(room.student, 'error')[0]).toMatchObject({ type: 'error', message: expect.any(String), for: type });
    for (const client of [room.teacher, room.assistant, room.classmate]) {
      await drained(client);
      expect(received(client, type)).toEqual([]);
    }
    expect(received(room.student, type)).toEqual([]);
  });
});

describe('invalid messages', () => {
  const cases: Array<[string, string]> = [
    ['a message that is not JSON', '{"type": "frame:navigate",'],
    ['a JSON value that is not an object', '["frame:navigate"]'],
    ['a message without a type', JSON.stringify({ frameId: 'frame-1' })],
    ['an unknown message type', JSON.stringify({ type: 'frame:teleport', frameId: 'frame-1' })],
    ['frame:lock with lockMode "bogus"', JSON.stringify({ type: 'frame:lock', frameId: 'frame-1', lockMode: 'bogus' })],
    ['frame:navigate without a frameId', JSON.stringify({ type: 'frame:navigate', smooth: true })],
    ['frame:navigate with a smooth that is not a boolean', JSON.stringify({ type: 'frame:navigate', frameId: 'frame-1', smooth: 'yes' })],
    ['participant:location without viewportBounds', JSON.stringify({ type: 'participant:location', frameId: 'frame-1' })],
    ['subscribe without an events array', JSON.stringify({ type: 'subscribe', events: 'frame:lock' })],
  ];

  it.each(cases)('answers %s with an error and relays nothing', async (_name, payload) => {
    const room = await openRoom();
    room.teacher.provider.sendStateless(payload);

    await eventually(() => received(room.teacher, 'error').length === 1);
    expect(received(room.teacher, 'error')[0]).toMatchObject({ type: 'error', message: expect.any(String) });
    for (const client of [room.assistant, room.student]) {
      await drained(client);
      expect(client.messages.filter((m) => /^frame:|^participant:location$|^subscribed$/.test(m.type))).toEqual([]);
    }
  });
});

describe('subscribe', () => {
  it('answers subscribed and then delivers only the subscribed events', async () => {
    const room = await openRoom();
    room.student.sendStateless({ type: 'subscribe', events: ['frame:lock'] });
    await eventually(() => received(room.student, 'subscribed').length === 1);
    expect(received(room.student, 'subscribed')).toEqual([{ type: 'subscribed', events: ['frame:lock'] }]);

    room.teacher.sendStateless({ type: 'frame:navigate', frameId: 'frame-1', smooth: false });
    room.teacher.sendStateless({ type: 'frame:lock', frameId: 'frame-1', lockMode: 'soft' });
    // Both are relayed in order: once the lock is in, a navigate would be too.
    await eventually(() => received(room.student, 'frame:lock').length === 1);
    expect(received(room.student, 'frame:lock')).toEqual([{ type: 'frame:lock', frameId: 'frame-1', lockMode: 'soft', from: 'teacher' }]);
    expect(received(room.student, 'frame:navigate')).toEqual([]);
    // A client that did not subscribe still gets everything.
    await eventually(() => received(room.classmate, 'frame:lock').length === 1);
    expect(received(room.classmate, 'frame:navigate')).toHaveLength(1);
  });

  it('delivers every event again after subscribing to "*"', async () => {
    const room = await openRoom();
    room.student.sendStateless({ type: 'subscribe', events: ['frame:lock'] });
    room.student.sendStateless({ type: 'subscribe', events: ['*'] });
    await eventually(() => received(room.student, 'subscribed').length === 2);
    expect(received(room.student, 'subscribed')[1]).toEqual({ type: 'subscribed', events: ['*'] });

    room.teacher.sendStateless({ type: 'frame:navigate', frameId: 'frame-3', smooth: true });
    room.teacher.sendStateless({ type: 'frame:lock', frameId: 'frame-3', lockMode: 'none' });
    await eventually(() => received(room.student, 'frame:lock').length === 1);
    expect(received(room.student, 'frame:navigate')).toEqual([{ type: 'frame:navigate', frameId: 'frame-3', smooth: true, from: 'teacher' }]);
  });

  it('refuses an unknown event name with an error and keeps the previous subscription', async () => {
    const room = await openRoom();
    room.student.sendStateless({ type: 'subscribe', events: ['frame:lock', 'frame:explode'] });
    await eventually(() => received(room.student, 'error').length === 1);
    expect(received(room.student, 'error')[0]).toMatchObject({ type: 'error', message: expect.any(String) });
    await drained(room.student);
    expect(received(room.student, 'subscribed')).toEqual([]);

    room.teacher.sendStateless({ type: 'frame:navigate', frameId: 'frame-4', smooth: false });
    room.teacher.sendStateless({ type: 'frame:lock', frameId: 'frame-4', lockMode: 'hard' });
    await eventually(() => received(room.student, 'frame:lock').length === 1);
    expect(received(room.student, 'frame:navigate')).toHaveLength(1);
  });
});

describe('participant:location', () => {
  const location = { frameId: 'frame-7', viewportBounds: { x: 10, y: -20, width: 1280, height: 720.5 } };

  it('relays a guest location with its user_id to the hosts but not to other guests', async () => {
    const room = await openRoom();
    const student = await sessionParticipantOf(room.student);
    room.student.sendStateless({ type: 'participant:location', ...location });

    await eventually(() => [room.teacher, room.assistant].every((host) => received(host, 'participant:location').length === 1));
    for (const host of [room.teacher, room.assistant]) {
      expect(received(host, 'participant:location')).toEqual([
        { type: 'participant:location', user_id: student, ...location, at: expect.stringMatching(ISO_TIMESTAMP) },
      ]);
    }
    for (const client of [room.classmate, room.student]) {
      await drained(client);
      expect(received(client, 'participant:location')).toEqual([]);
    }
    expect(received(room.student, 'error')).toEqual([]);
  });

  it('shows the last reported location of a participant in GET /boards/:id?includeParticipants=true', async () => {
    const room = await openRoom();
    const [student, classmate] = [await sessionParticipantOf(room.student), await sessionParticipantOf(room.classmate)];
    room.student.sendStateless({ type: 'participant:location', frameId: 'frame-1', viewportBounds: { x: 0, y: 0, width: 800, height: 600 } });
    room.student.sendStateless({ type: 'participant:location', ...location });
    room.classmate.sendStateless({ type: 'participant:location', frameId: null, viewportBounds: { x: 5, y: 5, width: 100, height: 100 } });
    await eventually(() => received(room.teacher, 'participant:location').length === 3);

    const res = await server.api('GET', `/boards/${room.boardId}?includeParticipants=true`);
    expect(res.status).toBe(200);
    const byUser = Object.fromEntries((res.body.participants as Array<Record<string, any>>).map((p) => [p.user_id, p]));
    expect(Object.keys(byUser).sort()).toEqual(['assistant', classmate, student, 'teacher'].sort());
    expect(byUser[student]).toEqual({
      user_id: student,
      user_name: 'student',
      user_type: 'anonymous',
      role: 'guest',
      joined_at: expect.stringMatching(ISO_TIMESTAMP),
      color: expect.stringMatching(/^#[0-9a-f]{6}$/i),
      location: { ...location, at: expect.stringMatching(ISO_TIMESTAMP) },
    });
    expect(byUser[classmate].location).toMatchObject({ frameId: null, viewportBounds: { x: 5, y: 5, width: 100, height: 100 } });
    expect(byUser.teacher).not.toHaveProperty('location');
  });

  it('goes on relaying the locations of a socket that opened the board twice once one of its sessions closed', async () => {
    const room = await openRoom();
    const guestLink = (await server.api('GET', `/boards/${room.boardId}`)).body.access_links.guest as string;
    const token = new URL(guestLink).searchParams.get('token')!;
    const socket = await openSessions(server.socketUrl(guestLink, { user_id: 'pupil' }), room.boardId, token, ['first', 'second']);
    try {
      // The raw socket reads no stateless messages: its minted id is the one listed under its declared name.
      const joined = await eventually(() => received(room.teacher, 'participant:joined').find((message) => message.participant.user_name === 'pupil'));
      const pupil = String(joined!.participant.user_id);
      expect(pupil).toMatch(/^guest-/);
      await socket.closeSession('first');
      socket.sendStateless('second', { type: 'participant:location', ...location });
      await eventually(() => received(room.teacher, 'participant:location').length === 1);
      expect(received(room.teacher, 'participant:location')[0]).toMatchObject({ user_id: pupil, ...location });
      const read = await server.api('GET', `/boards/${room.boardId}?includeParticipants=true`);
      expect((read.body.participants as Array<Record<string, any>>).find((p) => p.user_id === pupil)?.location).toMatchObject(location);
      expect(received(room.teacher, 'participant:left').filter((message) => message.user_id === pupil)).toEqual([]);
    } finally {
      await socket.close();
    }
  });
});
