import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { BusEvent, EventName } from '../../src/events/types.js';
import { serverForSuite, type CreatedBoard, createBoard, tokenOf } from '../helpers/fixtures.js';
import { addObject, connectBoardClient, openSessions, sessionParticipantOf, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';

const START = new Date('2031-03-01T09:00:00.000Z');
const HEX_COLOR = /^#[0-9a-f]{6}$/i;

const clock = new ManualClock(START);
const { server, clients } = serverForSuite({ clock });

const newBoard = (body: Record<string, unknown> = {}) => createBoard(server, 'Board', body);

/** A board's shared host or guest link, or a personal link (`{ link }`, see TestServer.personalLink). */
type Who = 'host' | 'guest' | { link: string };

/** Connects a provider client to the board's document; `params` declare the participant (user_id, ...). */
function connect(board: CreatedBoard, who: Who, params: Record<string, string> = {}): BoardClient {
  const link = typeof who === 'string' ? board.access_links[who] : who.link;
  const client = connectBoardClient({ url: server.socketUrl(link, params), name: board.board_uuid });
  clients.push(client);
  return client;
}

/** The personal link of a student of the board. */
const student = (board: CreatedBoard, userId: string, fields?: Record<string, string>) => server.personalLink(board.board_uuid, userId, fields);

interface Participant {
  user_id: string;
  user_name: string;
  user_type: string;
  role: string;
  joined_at: string;
  color: string;
}

async function readBoard(board: CreatedBoard, query = '?includeParticipants=true') {
  const read = await server.api('GET', `/boards/${board.board_uuid}${query}`);
  expect(read.status).toBe(200);
  return read.body as { participants_count: number; participants?: Participant[] };
}

/** Waits until the board has exactly `count` participants and returns them. */
async function participantsOnceThere(board: CreatedBoard, count: number): Promise<Participant[]> {
  return (await eventually(async () => {
    const body = await readBoard(board);
    return body.participants!.length === count && body.participants_count === count ? body.participants : undefined;
  }))!;
}

/** Connects a client, waits until it is synced and counted as the board's `count`th participant. */
async function joinAs(board: CreatedBoard, who: Who, params: Record<string, string>, count: number): Promise<BoardClient> {
  const client = connect(board, who, params);
  await client.synced();
  await participantsOnceThere(board, count);
  return client;
}

/** Events of one name published for one board, oldest first. */
function eventsOf<N extends EventName>(name: N, board: CreatedBoard): Array<Extract<BusEvent, { name: N }>['payload']> {
  return server.events.flatMap((event) => (event.name === name && event.payload.board_id === board.board_uuid ? [event.payload as never] : []));
}

/** Waits until `count` events of one name were published for the board (they follow the join) and returns them. */
async function eventsOnceThere<N extends EventName>(name: N, board: CreatedBoard, count: number) {
  await eventually(() => eventsOf(name, board).length >= count);
  const events = eventsOf(name, board);
  expect(events).toHaveLength(count);
  return events;
}

const firstClose = async (client: BoardClient) => (await eventually(() => client.closes[0], 10_000))!;
const listedCount = async (board: CreatedBoard) =>
  ((await server.api('GET', '/boards')).body as Array<{ board_uuid: string; participants_count: number }>).find(
    (item) => item.board_uuid === board.board_uuid,
  )?.participants_count;

describe('participants of a board', () => {
  it('lists connected participants with user_id, user_name, user_type, role, joined_at and a hex color', async () => {
    const board = await newBoard();
    const joinedAt = clock.now().toISOString();
    await joinAs(board, 'host', { user_id: 'teacher-1' }, 1);
    await joinAs(board, await student(board, 'student-1'), {}, 2);
    const visitor = await sessionParticipantOf(await joinAs(board, 'guest', { user_id: 'visitor' }, 3));

    const participants = await participantsOnceThere(board, 3);
    expect(participants).toEqual([
      { user_id: 'teacher-1', user_name: 'teacher-1', user_type: 'authenticated', role: 'host', joined_at: joinedAt, color: expect.stringMatching(HEX_COLOR) },
      { user_id: 'student-1', user_name: 'student-1', user_type: 'authenticated', role: 'guest', joined_at: joinedAt, color: expect.stringMatching(HEX_COLOR) },
      { user_id: visitor, user_name: 'visitor', user_type: 'anonymous', role: 'guest', joined_at: joinedAt, color: expect.stringMatching(HEX_COLOR) },
    ]);

    const withoutFlag = await readBoard(board, '');
    expect(withoutFlag.participants_count).toBe(3);
    expect(withoutFlag).not.toHaveProperty('participants');
  });

  it('reports participants_count in GET /boards/:id and GET /boards and drops it when they disconnect', async () => {
    const board = await newBoard();
    expect(await listedCount(board)).toBe(0);
    const host = await joinAs(board, 'host', { user_id: 'teacher-2' }, 1);
    const guest = await joinAs(board, 'guest', {}, 2);
    expect(await listedCount(board)).toBe(2);

    guest.destroy();
    const left = await participantsOnceThere(board, 1);
    expect(left.map((p) => p.user_id)).toEqual(['teacher-2']);
    expect(await listedCount(board)).toBe(1);

    host.destroy();
    expect(await participantsOnceThere(board, 0)).toEqual([]);
    expect(await listedCount(board)).toBe(0);
  });

  it('counts each anonymous socket as a participant of its own', async () => {
    const board = await newBoard();
    await joinAs(board, 'guest', {}, 1);
    await joinAs(board, 'guest', {}, 2);
    const participants = await participantsOnceThere(board, 2);
    expect(new Set(participants.map((p) => p.user_id)).size).toBe(2);
  });

  it('counts each shared-link socket as a participant of its own, whatever id it declares', async () => {
    const board = await newBoard();
    const first = await sessionParticipantOf(await joinAs(board, 'guest', { user_id: 'same' }, 1));
    const second = await sessionParticipantOf(await joinAs(board, 'guest', { user_id: 'same' }, 2));
    expect(first).not.toBe(second);
    // The declared id is only a display name: the service minted each participant's id.
    expect((await participantsOnceThere(board, 2)).map((p) => [p.user_id, p.user_name, p.user_type])).toEqual([
      [first, 'same', 'anonymous'],
      [second, 'same', 'anonymous'],
    ]);
    expect([first, second]).not.toContain('same');
  });

  it('counts two sockets of the same personal link as one participant until the last of them closes', async () => {
    const board = await newBoard();
    const twin = await student(board, 'twin');
    const first = await joinAs(board, twin, {}, 1);
    const second = connect(board, twin);
    await second.synced();
    const observer = await joinAs(board, 'host', { user_id: 'observer' }, 2);
    expect((await participantsOnceThere(board, 2)).map((p) => p.user_id)).toEqual(['twin', 'observer']);
    expect((await eventsOnceThere('participant.joined', board, 2)).map((e) => e.user.user_id)).toEqual(['twin', 'observer']);
    expect(observer.messages.filter((m) => m.type === 'participant:joined')).toEqual([]);

    // Drop the first socket the way a closed tab does. The server removes its awareness state
    // while handling the close, so once the observer sees that removal, the close was handled.
    first.provider.setAwarenessField('tab', 'first');
    await eventually(() => observer.provider.awareness!.getStates().get(first.doc.clientID)?.tab === 'first');
    first.socket.disconnect();
    await eventually(() => !observer.provider.awareness!.getStates().has(first.doc.clientID));
    expect((await participantsOnceThere(board, 2)).map((p) => p.user_id)).toEqual(['twin', 'observer']);
    expect(eventsOf('participant.left', board)).toEqual([]);

    second.destroy();
    const left = await eventually(() => observer.messages.find((m) => m.type === 'participant:left'));
    expect(left).toEqual({ type: 'participant:left', user_id: 'twin', participant_count: 1 });
    expect((await participantsOnceThere(board, 1)).map((p) => p.user_id)).toEqual(['observer']);
    expect((await eventsOnceThere('participant.left', board, 1)).map((e) => e.user.user_id)).toEqual(['twin']);
  });
});

describe('board config rules for joining', () => {
  it('counts a socket that opens the board twice (two sessions) as one participant, and lets it go when the socket closes', async () => {
    const board = await newBoard();
    const link = board.access_links.guest;
    const sessions = await openSessions(server.socketUrl(link), board.board_uuid, tokenOf(link), ['first', 'second']);
    await participantsOnceThere(board, 1);
    await sessions.close();
    await participantsOnceThere(board, 0);
  });

  it('closes a third distinct guest with 4409 board-full when max_participants is 2, but lets a host in', async () => {
    const board = await newBoard({ config: { max_participants: 2 } });
    const g1 = await sessionParticipantOf(await joinAs(board, 'guest', { user_id: 'g1' }, 1));
    const g2 = await sessionParticipantOf(await joinAs(board, 'guest', { user_id: 'g2' }, 2));

    const third = connect(board, 'guest', { user_id: 'g3' });
    expect(await firstClose(third)).toEqual({ code: 4409, reason: 'board-full' });
    const anonymous = connect(board, 'guest');
    expect(await firstClose(anonymous)).toEqual({ code: 4409, reason: 'board-full' });

    const host = await joinAs(board, 'host', { user_id: 'teacher' }, 3);
    expect(host.closes).toEqual([]);
    expect((await participantsOnceThere(board, 3)).map((p) => p.user_id)).toEqual([g1, g2, 'teacher']);
    expect((await eventsOnceThere('participant.joined', board, 3)).map((e) => e.user.user_id)).toEqual([g1, g2, 'teacher']);
  });

  it('gives the last seat to exactly one of several guests connecting at the same time', async () => {
    const board = await newBoard({ config: { max_participants: 2 } });
    const seatedId = await sessionParticipantOf(await joinAs(board, 'guest', { user_id: 'seated' }, 1));
    const racers = ['r1', 'r2', 'r3', 'r4'].map((id) => connect(board, 'guest', { user_id: id }));

    await eventually(() => racers.filter((racer) => racer.closes.length > 0).length === 3, 10_000);
    const [winner] = racers.filter((racer) => racer.closes.length === 0);
    for (const racer of racers.filter((r) => r !== winner)) expect(racer.closes).toEqual([{ code: 4409, reason: 'board-full' }]);
    await winner!.synced();
    const seated = await participantsOnceThere(board, 2);
    expect(seated[0]!.user_id).toBe(seatedId);
    expect(seated[1]).toMatchObject({ user_id: await sessionParticipantOf(winner!), user_name: `r${racers.indexOf(winner!) + 1}` });
  });

  it('lets a guest already in a full board open another socket', async () => {
    const board = await newBoard({ config: { max_participants: 1 } });
    const solo = await student(board, 'solo');
    await joinAs(board, solo, {}, 1);
    const again = connect(board, solo);
    await again.synced();
    addObject(again.doc, { id: randomUUID() });
    await again.saved();
    expect(again.closes).toEqual([]);
    expect(await participantsOnceThere(board, 1)).toHaveLength(1);
  });

  it('never lets a guest refused as board-full write into the board', async () => {
    const board = await newBoard({ config: { max_participants: 1 } });
    const member = await joinAs(board, 'guest', { user_id: 'member' }, 1);
    const refused = connect(board, 'guest', { user_id: 'intruder' });
    addObject(refused.doc, { id: 'intruder-object' });
    expect((await firstClose(refused)).code).toBe(4409);

    const id = randomUUID();
    addObject(member.doc, { id });
    await member.saved();
    const objects = (await server.api('GET', `/boards/${board.board_uuid}`)).body.state.objects as Array<{ id: string }>;
    expect(objects.map((o) => o.id)).toEqual([id]);
    expect(member.doc.getMap('objects').has('intruder-object')).toBe(false);
  });

  it('closes a shared-link guest with 4403 when allow_anonymous is false, and admits a personal-link guest and a host', async () => {
    const board = await newBoard({ config: { allow_anonymous: false } });
    const anonymous = connect(board, 'guest');
    expect(await firstClose(anonymous)).toEqual({ code: 4403, reason: 'forbidden' });
    const declared = connect(board, 'guest', { user_id: 'student-9' });
    expect(await firstClose(declared)).toEqual({ code: 4403, reason: 'forbidden' });
    expect(await participantsOnceThere(board, 0)).toEqual([]);

    const named = await joinAs(board, await student(board, 'student-9'), {}, 1);
    expect(named.closes).toEqual([]);
    await joinAs(board, 'host', {}, 2);
    expect((await eventsOnceThere('participant.joined', board, 2)).map((e) => e.user.user_type)).toEqual(['authenticated', 'anonymous']);
  });
});

describe('participant and session events', () => {
  it('publishes session.started when the first participant joins, once per session', async () => {
    const board = await newBoard();
    const startedAt = clock.now().toISOString();
    await joinAs(board, 'host', { user_id: 'h' }, 1);
    await joinAs(board, 'guest', { user_id: 'g' }, 2);
    await eventsOnceThere('participant.joined', board, 2);
    const started = eventsOf('session.started', board);
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({ board_id: board.board_uuid, organization_id: server.organizationId, started_at: startedAt });
    const names = server.events.filter((e) => e.payload.board_id === board.board_uuid).map((e) => e.name);
    expect(names.indexOf('session.started')).toBeLessThan(names.indexOf('participant.joined'));
  });

  // The webhook delivery adds the board's external_data to this `board` block (checked in test/webhooks/delivery.test.ts).
  it('publishes participant.joined with exactly its documented payload, less the external_data its delivery adds', async () => {
    const board = await newBoard({ title: 'Physics 101', external_id: 'course-42', external_data: { course: 'physics', term: 3 } });
    const joinedAt = clock.now().toISOString();
    await joinAs(board, await student(board, 'stu-7', { user_name: 'Ada', external_user_id: 'lms-77', external_source: 'moodle' }), {}, 1);

    expect(await eventsOnceThere('participant.joined', board, 1)).toEqual([
      {
        board_id: board.board_uuid,
        organization_id: server.organizationId,
        board: { title: 'Physics 101', external_id: 'course-42', created_at: board.created_at },
        user: {
          user_id: 'stu-7',
          user_name: 'Ada',
          user_role: 'guest',
          user_type: 'verified-student',
          external_user_id: 'lms-77',
          external_source: 'moodle',
        },
        participant_count: 1,
        joined_at: joinedAt,
      },
    ]);
  });

  // A verified student carries external ids; authenticated and anonymous participants do not.
  it.each([
    ['authenticated for a user_id alone', 'host', { user_id: 'teacher-5' }, { user_id: 'teacher-5', user_role: 'host', user_type: 'authenticated' }],
    [
      'authenticated, with no external ids, for a user_id and an external_source',
      'host',
      { user_id: 'teacher-6', external_source: 'moodle' },
      { user_id: 'teacher-6', user_role: 'host', user_type: 'authenticated' },
    ],
    // A shared-link guest is reported under the id the service minted for it (checked below), never the one it declares.
    ['anonymous, its declared id a display name, for a shared-link guest', 'guest', { user_id: 'student-5' }, { user_name: 'student-5', user_role: 'guest', user_type: 'anonymous' }],
    [
      'anonymous, its declared name shown and no external ids, for a shared-link guest',
      'guest',
      { user_id: 'student-5', user_name: 'Ada', external_user_id: 'lms-5', external_source: 'moodle' },
      { user_name: 'Ada', user_role: 'guest', user_type: 'anonymous' },
    ],
    ['anonymous without any id', 'guest', {}, { user_role: 'guest', user_type: 'anonymous' }],
    ['anonymous, with no external ids, for an external_source alone', 'guest', { external_source: 'moodle' }, { user_role: 'guest', user_type: 'anonymous' }],
  ] as const)('reports user_type %s in participant.joined', async (_case, role, params, expected) => {
    const board = await newBoard();
    const client = await joinAs(board, role, params, 1);
    const [joined] = await eventsOnceThere('participant.joined', board, 1);
    const minted = role === 'guest' ? { user_id: await sessionParticipantOf(client) } : {};
    expect(joined!.user).toEqual({ user_name: null, external_user_id: null, external_source: null, ...minted, ...expected });
    expect(joined!.user.user_id).toMatch(role === 'guest' ? /^guest-[\w-]{16}$/ : /^teacher-\d$/);
    expect(joined!.participant_count).toBe(1);
  });

  it('publishes participant.left and then session.ended with the session duration from the clock', async () => {
    const board = await newBoard();
    const host = await joinAs(board, 'host', { user_id: 'h' }, 1);
    const guest = await joinAs(board, 'guest', { user_id: 'g' }, 2);
    const g = await sessionParticipantOf(guest);
    const startedAt = clock.now().toISOString();
    clock.advance(90_000);
    const endedAt = clock.now().toISOString();

    guest.destroy();
    await eventually(() => eventsOf('participant.left', board).length === 1);
    expect(eventsOf('participant.left', board)[0]).toMatchObject({
      board_id: board.board_uuid,
      organization_id: server.organizationId,
      user: { user_id: g, user_name: 'g', user_role: 'guest' },
      participant_count: 1,
    });
    expect(eventsOf('session.ended', board)).toEqual([]);

    host.destroy();
    await eventually(() => eventsOf('session.ended', board).length === 1);
    const [ended] = eventsOf('session.ended', board);
    expect(ended).toMatchObject({
      board_id: board.board_uuid,
      organization_id: server.organizationId,
      session_id: eventsOf('session.started', board)[0]!.session_id,
      started_at: startedAt,
      ended_at: endedAt,
      session_duration_seconds: 90,
    });
    expect(eventsOf('participant.left', board).map((e) => e.user.user_id)).toEqual([g, 'h']);
  });

  it('ends the session when the host ends it over REST, and the next join starts a new one', async () => {
    const board = await newBoard();
    await joinAs(board, 'host', { user_id: 'h' }, 1);
    const g = await sessionParticipantOf(await joinAs(board, 'guest', { user_id: 'g' }, 2));
    expect((await server.api('POST', `/boards/${board.board_uuid}/end-session`)).status).toBe(200);

    expect(await participantsOnceThere(board, 0)).toEqual([]);
    expect((await eventsOnceThere('participant.left', board, 2)).map((e) => e.user.user_id).sort()).toEqual([g, 'h'].sort());
    const [ended] = await eventsOnceThere('session.ended', board, 1);
    await joinAs(board, 'guest', { user_id: 'g' }, 1);
    const [, second] = await eventsOnceThere('session.started', board, 2);
    expect(second!.session_id).not.toBe(ended!.session_id);
  });

  it('starts a new session when someone joins after the last participant left', async () => {
    const board = await newBoard();
    const first = await joinAs(board, 'guest', { user_id: 'early' }, 1);
    first.destroy();
    await eventually(() => eventsOf('session.ended', board).length === 1);
    await joinAs(board, 'guest', { user_id: 'late' }, 1);
    const sessions = (await eventsOnceThere('session.started', board, 2)).map((e) => e.session_id);
    expect(sessions[0]).not.toBe(sessions[1]);
  });
});

describe('presence messages on the socket', () => {
  it('sends participant:joined and participant:left to the other clients but not to the one joining', async () => {
    const board = await newBoard();
    const host = await joinAs(board, 'host', { user_id: 'teacher' }, 1);
    const guest = await joinAs(board, 'guest', { user_id: 'pupil' }, 2);
    const pupilId = await sessionParticipantOf(guest);

    const joined = await eventually(() => host.messages.find((m) => m.type === 'participant:joined'));
    const [pupil] = (await participantsOnceThere(board, 2)).filter((p) => p.user_id === pupilId);
    expect(pupil).toMatchObject({ user_name: 'pupil', role: 'guest' });
    expect(joined).toEqual({ type: 'participant:joined', participant: pupil, participant_count: 2 });
    expect(guest.messages.filter((m) => m.type === 'participant:joined')).toEqual([]);

    guest.destroy();
    const left = await eventually(() => host.messages.find((m) => m.type === 'participant:left'));
    expect(left).toEqual({ type: 'participant:left', user_id: pupilId, participant_count: 1 });
  });

  it("relays one client's awareness fields to another client", async () => {
    const board = await newBoard();
    const writer = await joinAs(board, 'guest', { user_id: 'cursor-owner' }, 1);
    const reader = await joinAs(board, 'host', { user_id: 'watcher' }, 2);

    writer.provider.setAwarenessField('cursor', { x: 12, y: 34 });
    writer.provider.setAwarenessField('user', { name: 'Ada' });
    const state = await eventually(() => {
      const remote = reader.provider.awareness!.getStates().get(writer.doc.clientID);
      return remote?.cursor && remote?.user && remote;
    });
    expect(state).toMatchObject({ cursor: { x: 12, y: 34 }, user: { name: 'Ada' } });
  });
});
