import { HocuspocusProvider } from '@hocuspocus/provider';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import type { AgentNotification, AgentPresence } from '../../src/agents/ports.js';
import { ManualClock } from '../../src/clock.js';
import { createBoard, postFrame, serverForSuite, tokenOf, type CreatedBoard } from '../helpers/fixtures.js';
import { addObject, sessionParticipantOf, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';

/**
 * The sockets of boards as agents reach them (realtime/agentSockets.ts): when participants
 * were last active, `participant.moved`, notifications and navigation to the participants an
 * agent names, and visible agents shown as participants (listed, counted, in awareness).
 */
const clock = new ManualClock(new Date('2032-05-10T08:00:00.000Z'));
const { server, connect } = serverForSuite({ clock });

const sockets = () => server.app.agentSockets;

/** Connects to the board document with a board link (`host`, `guest`) or a personal link's token, declaring `params`. */
function join(board: CreatedBoard, who: 'host' | 'guest' | { token: string }, params: Record<string, string> = {}): BoardClient {
  const token = typeof who === 'string' ? tokenOf(board.access_links[who]) : who.token;
  return connect(token, board.board_uuid, params);
}

/** Joins and waits until the client is synced and listed by the agents' port. */
async function joined(board: CreatedBoard, who: 'host' | 'guest' | { token: string }, params: Record<string, string> = {}): Promise<BoardClient> {
  const before = sockets().participants(board.board_uuid).length;
  const client = join(board, who, params);
  await client.synced();
  await eventually(() => sockets().participants(board.board_uuid).length > before);
  return client;
}

let barriers = 0;
/** Resolves once the server handled everything `client` sent before (it answers an unknown type with an error, in order). */
async function drained(client: BoardClient): Promise<void> {
  const type = `barrier-${++barriers}`;
  client.sendStateless({ type });
  await eventually(() => client.messages.some((m) => m.type === 'error' && String(m.message).includes(`"${type}"`)));
}

const received = (client: BoardClient, type: string) => client.messages.filter((m) => m.type === type);
const lastActiveOf = (board: CreatedBoard, userId: string) => sockets().participants(board.board_uuid).find((p) => p.user_id === userId)?.lastActiveAt;
const location = (frameId: string | null) => ({ type: 'participant:location', frameId, viewportBounds: { x: 0, y: 0, width: 800, height: 600 } });

/** Advances the clock and answers the new time. */
function later(ms = 60_000): Date {
  clock.advance(ms);
  return clock.now();
}

describe('activity of participants', () => {
  it('marks a participant active when it joins and when it edits the board', async () => {
    const board = await createBoard(server, 'Activity');
    const joinedAt = clock.now();
    const student = await joined(board, 'guest', { user_id: 'ada' });
    const ada = await sessionParticipantOf(student);
    expect(lastActiveOf(board, ada)).toEqual(joinedAt);

    const editedAt = later();
    addObject(student.doc, { id: randomUUID() });
    await student.saved();
    await eventually(() => lastActiveOf(board, ada)?.getTime() === editedAt.getTime());
  });

  it('counts an edit in a zone document, opened on the same socket, as activity', async () => {
    const board = await createBoard(server, 'Zone activity');
    const zone = await postFrame(server, board.board_uuid, { assigned_user_id: 'ada', zone_visibility: 'hidden' });
    const link = await server.personalLink(board.board_uuid, 'ada');
    const student = await joined(board, { token: link.token });
    const zoneDoc = new Y.Doc();
    const zoneProvider = new HocuspocusProvider({ websocketProvider: student.socket, name: `${board.board_uuid}/zones/${zone.id}`, document: zoneDoc, token: link.token });
    zoneProvider.attach();
    try {
      await eventually(() => zoneProvider.isSynced);
      const editedAt = later();
      addObject(zoneDoc, { id: randomUUID(), x: 10, y: 10 });
      await eventually(() => lastActiveOf(board, 'ada')?.getTime() === editedAt.getTime());
    } finally {
      zoneProvider.destroy();
    }
  });

  it('counts a changed awareness state as activity, not the renewal of an unchanged one', async () => {
    const board = await createBoard(server, 'Awareness activity');
    const student = await joined(board, 'guest', { user_id: 'ada' });
    const ada = await sessionParticipantOf(student);
    const awareness = student.provider.awareness!;

    const movedAt = later();
    awareness.setLocalStateField('cursor', { x: 10, y: 20 });
    await eventually(() => lastActiveOf(board, ada)?.getTime() === movedAt.getTime());

    later();
    // What y-protocols sends every 15 s to stay listed: the same state with a newer clock.
    awareness.setLocalState(awareness.getLocalState());
    await drained(student);
    expect(lastActiveOf(board, ada)).toEqual(movedAt);

    const movedAgainAt = later();
    awareness.setLocalStateField('cursor', { x: 11, y: 20 });
    await eventually(() => lastActiveOf(board, ada)?.getTime() === movedAgainAt.getTime());
  });

  it('counts a reported location as activity', async () => {
    const board = await createBoard(server, 'Location activity');
    const student = await joined(board, 'guest', { user_id: 'ada' });
    const ada = await sessionParticipantOf(student);
    const reportedAt = later();
    student.sendStateless(location(null));
    await drained(student);
    expect(lastActiveOf(board, ada)).toEqual(reportedAt);
  });

  it('lists people only, with their locations, and when the session started', async () => {
    const board = await createBoard(server, 'People');
    expect(sockets().sessionStartedAt(board.board_uuid)).toBeNull();
    const startedAt = clock.now();
    await joined(board, 'host', { user_id: 'teacher' });
    later();
    const student = await joined(board, 'guest', { user_id: 'ada' });
    const ada = await sessionParticipantOf(student);
    student.sendStateless(location(null));
    await drained(student);
    sockets().showAgent(board.board_uuid, 'helper', presence('helper'));

    const people = sockets().participants(board.board_uuid);
    expect(people.map((p) => p.user_id)).toEqual(['teacher', ada]);
    expect(people[1]).toMatchObject({ user_type: 'anonymous', role: 'guest', location: { frameId: null } });
    expect(sockets().sessionStartedAt(board.board_uuid)).toEqual(startedAt);
    sockets().showAgent(board.board_uuid, 'helper', null);
  });
});

describe('participant.moved', () => {
  it('is published when a reported frame changes (the first report moves from null), not when it stays', async () => {
    const board = await createBoard(server, 'Moves');
    const frame = await postFrame(server, board.board_uuid);
    const student = await joined(board, 'guest', { user_id: 'ada' });
    const ada = await sessionParticipantOf(student);
    const moves = () => server.events.flatMap((e) => (e.name === 'participant.moved' && e.payload.board_id === board.board_uuid ? [e.payload] : []));

    student.sendStateless(location(null));
    student.sendStateless(location(frame.id as string));
    student.sendStateless(location(frame.id as string));
    student.sendStateless(location(null));
    await drained(student);

    const scope = { board_id: board.board_uuid, organization_id: server.organizationId, user_id: ada, user_role: 'guest' };
    expect(moves()).toEqual([
      { ...scope, from_frame_id: null, to_frame_id: frame.id },
      { ...scope, from_frame_id: frame.id, to_frame_id: null },
    ]);
  });
});

const NOTIFICATION: AgentNotification = {
  agent: { id: 'agent-1', name: 'Helper' },
  level: 'info',
  title: 'Heads up',
  message: 'Five minutes left',
  objectId: null,
};

/** A board with a host, a student on two sockets (personal link) and an anonymous visitor, all listed. */
async function classroom() {
  const board = await createBoard(server, 'Class');
  const link = await server.personalLink(board.board_uuid, 'student-1');
  const teacher = await joined(board, 'host', { user_id: 'teacher' });
  const student = await joined(board, { token: link.token });
  const studentTab = join(board, { token: link.token });
  await studentTab.synced();
  const visitor = await joined(board, 'guest', { user_id: 'visitor' });
  const visitorId = await sessionParticipantOf(visitor);
  return { board, teacher, student, studentTab, visitor, visitorId, everyone: [teacher, student, studentTab, visitor] };
}

describe('notify', () => {
  it('reaches every participant with `all`, counting a participant on two sockets once', async () => {
    const room = await classroom();
    expect(sockets().notify(room.board.board_uuid, NOTIFICATION, { kind: 'all' })).toBe(3);
    await eventually(() => room.everyone.every((client) => received(client, 'agent:notification').length === 1));
    expect(received(room.visitor, 'agent:notification')).toEqual([{ type: 'agent:notification', ...NOTIFICATION }]);
  });

  it('reaches hosts only with `hosts`', async () => {
    const room = await classroom();
    expect(sockets().notify(room.board.board_uuid, NOTIFICATION, { kind: 'hosts' })).toBe(1);
    await eventually(() => received(room.teacher, 'agent:notification').length === 1);
    for (const client of [room.student, room.studentTab, room.visitor]) await drained(client);
    expect([room.student, room.studentTab, room.visitor].map((client) => received(client, 'agent:notification').length)).toEqual([0, 0, 0]);
  });

  it('reaches the named users with `users`, by personal link or shown id', async () => {
    const room = await classroom();
    const reached = sockets().notify(room.board.board_uuid, NOTIFICATION, { kind: 'users', userIds: ['student-1', room.visitorId, 'visitor', 'absent'] });
    expect(reached).toBe(2);
    await eventually(() => [room.student, room.studentTab, room.visitor].every((client) => received(client, 'agent:notification').length === 1));
    await drained(room.teacher);
    expect(received(room.teacher, 'agent:notification')).toEqual([]);
  });

  it('skips a socket that did not subscribe to agent:notification', async () => {
    const room = await classroom();
    room.visitor.sendStateless({ type: 'subscribe', events: ['frame:navigate'] });
    await eventually(() => received(room.visitor, 'subscribed').length === 1);
    expect(sockets().notify(room.board.board_uuid, NOTIFICATION, { kind: 'all' })).toBe(2);
  });
});

describe('navigate', () => {
  it('moves everyone but the hosts with `all`, and exactly the named users with `users`', async () => {
    const room = await classroom();
    const boardId = room.board.board_uuid;
    expect(sockets().navigate(boardId, 'frame-2', true, 'agent:agent-1', { kind: 'all' })).toBe(2);
    const navigation = { type: 'frame:navigate', frameId: 'frame-2', smooth: true, from: 'agent:agent-1' };
    await eventually(() => [room.student, room.studentTab, room.visitor].every((client) => received(client, 'frame:navigate').length === 1));
    expect(received(room.visitor, 'frame:navigate')).toEqual([navigation]);
    await drained(room.teacher);
    expect(received(room.teacher, 'frame:navigate')).toEqual([]);

    expect(sockets().navigate(boardId, 'frame-3', false, 'agent:agent-1', { kind: 'users', userIds: [room.visitorId] })).toBe(1);
    await eventually(() => received(room.visitor, 'frame:navigate').length === 2);
    await drained(room.student);
    expect(received(room.student, 'frame:navigate')).toHaveLength(1);
  });
});

function presence(name: string, isThinking = false): AgentPresence {
  return { id: name, name: `${name} bot`, persona: 'a patient tutor', isThinking };
}

/** The awareness entry of an agent a provider sees, if any. */
const agentEntry = (client: BoardClient, agentId: string) =>
  [...client.provider.awareness!.getStates().values()].find((state) => state.user?.id === `agent:${agentId}`)?.user as Record<string, unknown> | undefined;

async function readBoard(board: CreatedBoard) {
  const read = await server.api('GET', `/boards/${board.board_uuid}?includeParticipants=true`);
  expect(read.status).toBe(200);
  return read.body as { participants_count: number; participants: Array<Record<string, unknown>> };
}

describe('visible agents', () => {
  it('are listed and counted as participants over REST and announced to sockets, until withdrawn', async () => {
    const board = await createBoard(server, 'Shown');
    const student = await joined(board, 'guest', { user_id: 'ada' });
    const ada = await sessionParticipantOf(student);
    const shownAt = clock.now().toISOString();
    sockets().showAgent(board.board_uuid, 'helper', presence('helper'));

    const view = { user_id: 'agent:helper', user_name: 'helper bot', user_type: 'agent', role: 'guest', joined_at: shownAt, color: expect.stringMatching(/^#[0-9a-f]{6}$/i) };
    const read = await readBoard(board);
    expect(read.participants_count).toBe(2);
    expect(read.participants).toEqual([expect.objectContaining({ user_id: ada, user_name: 'ada' }), view]);
    await eventually(() => received(student, 'participant:joined').length === 1);
    expect(received(student, 'participant:joined')).toEqual([{ type: 'participant:joined', participant: view, participant_count: 2 }]);

    sockets().showAgent(board.board_uuid, 'helper', presence('helper', true));
    sockets().showAgent(board.board_uuid, 'helper', null);
    await eventually(() => received(student, 'participant:left').length === 1);
    expect(received(student, 'participant:joined')).toHaveLength(1);
    expect(received(student, 'participant:left')).toEqual([{ type: 'participant:left', user_id: 'agent:helper', participant_count: 1 }]);
    expect((await readBoard(board)).participants.map((p) => p.user_id)).toEqual([ada]);
  });

  it('take no seat and start no session: a board for one person still admits one', async () => {
    const board = await createBoard(server, 'Small', { config: { max_participants: 1 } });
    sockets().showAgent(board.board_uuid, 'helper', presence('helper'));
    expect(sockets().sessionStartedAt(board.board_uuid)).toBeNull();
    expect(server.events.some((e) => e.name === 'session.started' && e.payload.board_id === board.board_uuid)).toBe(false);

    const student = await joined(board, 'guest', { user_id: 'ada' });
    await drained(student);
    expect(student.closes).toEqual([]);
    expect((await readBoard(board)).participants_count).toBe(2);
    sockets().showAgent(board.board_uuid, 'helper', null);
  });

  it('appear in awareness with their name and isThinking, updated at once, and leave it when withdrawn', async () => {
    const board = await createBoard(server, 'Awareness');
    // Shown before anyone connected: applied when the document loads.
    sockets().showAgent(board.board_uuid, 'helper', presence('helper'));
    const student = await joined(board, 'guest', { user_id: 'ada' });
    await eventually(() => agentEntry(student, 'helper'));
    expect(agentEntry(student, 'helper')).toEqual({
      id: 'agent:helper',
      name: 'helper bot',
      color: expect.stringMatching(/^#[0-9a-f]{6}$/i),
      agent: true,
      persona: 'a patient tutor',
      isThinking: false,
    });

    sockets().showAgent(board.board_uuid, 'helper', presence('helper', true));
    await eventually(() => agentEntry(student, 'helper')?.isThinking === true);

    sockets().showAgent(board.board_uuid, 'helper', null);
    await eventually(() => agentEntry(student, 'helper') === undefined);

    // Shown again on the same document: its clock continues past the withdrawal.
    sockets().showAgent(board.board_uuid, 'helper', presence('helper'));
    await eventually(() => agentEntry(student, 'helper')?.isThinking === false);
    sockets().showAgent(board.board_uuid, 'helper', null);
  });

  it('are sent to a provider that connects while the agent is shown', async () => {
    const board = await createBoard(server, 'Late');
    await joined(board, 'host', { user_id: 'teacher' });
    sockets().showAgent(board.board_uuid, 'helper', presence('helper'));
    const late = await joined(board, 'guest', { user_id: 'ada' });
    await eventually(() => agentEntry(late, 'helper'));
    sockets().showAgent(board.board_uuid, 'helper', null);
  });
});
