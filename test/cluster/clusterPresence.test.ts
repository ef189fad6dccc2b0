import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { BusEvent } from '../../src/events/types.js';
import { createBoard, instancesForSuite, tokenOf } from '../helpers/fixtures.js';
import { connectBoardClient, openSessions, sessionParticipantOf, type BoardClient } from '../helpers/realtimeClient.js';
import { killRunningServices, startServiceProcess } from '../helpers/serviceProcess.js';
import { postgresServerUrl } from '../helpers/testDatabase.js';
import { eventually, type TestServer } from '../helpers/testServer.js';

/**
 * Presence across instances (docs/architecture.md): a board's participants, its
 * `max_participants`, its session and the events of both are the deployment's, whichever
 * instance each socket is connected to; a killed instance's participants are let go by a
 * survivor, once.
 */
const REDIS_URL = process.env.REDIS_URL;
const runs = Boolean(REDIS_URL && postgresServerUrl());

describe.skipIf(!runs)('presence across two instances (needs DATABASE_URL=postgresql://… and REDIS_URL)', () => {
  const clock = new ManualClock();
  let keyPrefix = '';
  const { first, second, database, clients, connect } = instancesForSuite((prefix) => {
    keyPrefix = prefix;
    return {};
  }, clock);
  // A test that fails before it kills its service process must not leave it running.
  afterEach(killRunningServices);

  const participantIds = async (server: TestServer, boardId: string) => {
    // The boards are the first instance's organization's: its key, on either instance.
    const answer = await server.api('GET', `/boards/${boardId}?includeParticipants=true`, undefined, { 'x-api-key': first.apiKey });
    expect(answer.status).toBe(200);
    return (answer.body.participants as Array<{ user_id: string }>).map((participant) => participant.user_id).sort();
  };
  /** The payloads of the events named `name` either instance raised for a board. */
  const eventsOf = (name: string, boardId: string) =>
    [...first.events, ...second.events]
      .filter((event: BusEvent) => event.name === name && event.payload.board_id === boardId)
      .map((event) => event.payload as unknown as Record<string, unknown>);
  const joinedMessage = (client: BoardClient, userId: string) =>
    client.messages.find((message) => message.type === 'participant:joined' && message.participant?.user_id === userId);

  it('counts and lists the participants of both instances, on either', async () => {
    const board = await createBoard(first, 'Presence');
    const teacher = connect(first, board.access_links.host, board.board_uuid, { user_id: 'teacher' });
    await teacher.saved();
    const student = connect(second, board.access_links.guest, board.board_uuid, { user_id: 'student' });
    await student.saved();
    const studentId = await sessionParticipantOf(student);

    const joined = await eventually(() => joinedMessage(teacher, studentId));
    expect(joined!.participant).toMatchObject({ user_name: 'student' });
    expect(joined!.participant_count).toBe(2);
    expect(await participantIds(first, board.board_uuid)).toEqual([studentId, 'teacher'].sort());
    expect(await participantIds(second, board.board_uuid)).toEqual([studentId, 'teacher'].sort());
    const listed = await second.api('GET', '/boards', undefined, { 'x-api-key': first.apiKey });
    expect(listed.body.find((item: { board_uuid: string }) => item.board_uuid === board.board_uuid)?.participants_count).toBe(2);

    student.destroy();
    const left = await eventually(() => teacher.messages.find((message) => message.type === 'participant:left' && message.user_id === studentId));
    expect(left!.participant_count).toBe(1);
    await eventually(async () => (await participantIds(first, board.board_uuid)).join() === 'teacher');
  });

  it('lets a socket that opened the board twice (two sessions) go when it closes, on both instances', async () => {
    const board = await createBoard(first, 'Presence');
    const link = board.access_links.guest;
    const sessions = await openSessions(first.socketUrl(link), board.board_uuid, tokenOf(link), ['first', 'second']);
    await eventually(async () => (await participantIds(second, board.board_uuid)).length === 1);
    await sessions.close();
    // Before, the ledger counted the socket twice and its one id once: the seat was never freed.
    await eventually(async () => (await participantIds(first, board.board_uuid)).length === 0);
    expect(await participantIds(second, board.board_uuid)).toEqual([]);
  });

  it('keeps max_participants for the board, not per instance', async () => {
    const board = await createBoard(first, 'Full', { config: { max_participants: 2 } });
    const one = connect(first, board.access_links.guest, board.board_uuid, { user_id: 'one' });
    const two = connect(second, board.access_links.guest, board.board_uuid, { user_id: 'two' });
    await Promise.all([one.saved(), two.saved()]);

    const third = connect(first, board.access_links.guest, board.board_uuid, { user_id: 'three' });
    const fourth = connect(second, board.access_links.guest, board.board_uuid, { user_id: 'four' });
    await eventually(() => third.closes.some((close) => close.code === 4409) && fourth.closes.some((close) => close.code === 4409));
    // A host is always let in, on either instance.
    const host = connect(second, board.access_links.host, board.board_uuid, { user_id: 'host' });
    await host.saved();
    expect(await participantIds(first, board.board_uuid)).toEqual(['host', await sessionParticipantOf(one), await sessionParticipantOf(two)].sort());
  });

  it('raises session.started and session.ended once for the board, and each participant event once', async () => {
    const board = await createBoard(first, 'Session');
    const onFirst = connect(first, board.access_links.guest, board.board_uuid, { user_id: 'a' });
    await onFirst.saved();
    const onSecond = connect(second, board.access_links.guest, board.board_uuid, { user_id: 'b' });
    await onSecond.saved();
    await eventually(() => eventsOf('participant.joined', board.board_uuid).length === 2);

    onFirst.destroy();
    onSecond.destroy();
    await eventually(() => eventsOf('session.ended', board.board_uuid).length === 1);
    // Everything either instance raises for the board is raised by now: the session ended last.
    const started = eventsOf('session.started', board.board_uuid);
    const ended = eventsOf('session.ended', board.board_uuid);
    expect(started).toHaveLength(1);
    expect(ended[0]!.session_id).toBe(started[0]!.session_id);
    expect(eventsOf('participant.left', board.board_uuid).map((event) => event.participant_count).sort()).toEqual([0, 1]);
  });

  it('lets a killed instance’s participants go on a survivor, once', async () => {
    const board = await createBoard(first, 'Killed');
    const killed = await startServiceProcess({
      DATABASE_URL: database.url,
      REDIS_URL: REDIS_URL!,
      CLUSTER_KEY_PREFIX: keyPrefix,
      BOOTSTRAP_API_KEY: `wb_test_${keyPrefix.replace(/\W/g, '')}`,
      LOG_LEVEL: 'silent',
      PORT: '0',
    });
    const teacher = connect(first, board.access_links.host, board.board_uuid, { user_id: 'teacher' });
    await teacher.saved();
    const stranded = connectBoardClient({ url: `${killed.url.replace(/^http/, 'ws')}/api/v1/realtime?token=${tokenOf(board.access_links.guest)}&user_id=stranded`, name: board.board_uuid });
    clients.push(stranded);
    await stranded.saved();
    const strandedId = await sessionParticipantOf(stranded);
    await eventually(() => joinedMessage(teacher, strandedId));

    await killed.stop('SIGKILL');
    stranded.destroy();
    // Nobody has let go of the seat: it is still counted until the killed instance's heartbeat runs out.
    expect(await participantIds(first, board.board_uuid)).toEqual([strandedId, 'teacher'].sort());

    clock.set(new Date(Date.now() + 60_000));
    await Promise.all([first.app.seats.sweepOrphans(), second.app.seats.sweepOrphans()]);
    const left = await eventually(() => teacher.messages.find((message) => message.type === 'participant:left' && message.user_id === strandedId));
    expect(left!.participant_count).toBe(1);
    expect(await participantIds(second, board.board_uuid)).toEqual(['teacher']);
    await eventually(() => eventsOf('participant.left', board.board_uuid).length === 1);
    await Promise.all([first.app.seats.sweepOrphans(), second.app.seats.sweepOrphans()]);
    expect(eventsOf('participant.left', board.board_uuid)).toHaveLength(1);
    expect(eventsOf('session.ended', board.board_uuid)).toHaveLength(0);
  });
});
