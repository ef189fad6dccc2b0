import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createBoard, instancesForSuite } from '../helpers/fixtures.js';
import { postgresServerUrl } from '../helpers/testDatabase.js';
import { eventually, type TestServer } from '../helpers/testServer.js';

/**
 * Agents with several instances (DESIGN.md section 1, Scale-out): what one instance changes of
 * an agent holds on every instance, and what every instance finds due is done once.
 */
const runs = Boolean(process.env.REDIS_URL && postgresServerUrl());

describe.skipIf(!runs)('agents across two instances (needs DATABASE_URL=postgresql://… and REDIS_URL)', () => {
  const clock = new ManualClock();
  // Agents look at the clock only when a test ticks them.
  const { first, second, connect } = instancesForSuite(() => ({ AGENT_TICK_MS: '3600000' }), clock);

  const agentOn = async (boardId: string, triggers: unknown[], visibility = 'stealth') => {
    const created = await first.api('POST', `/boards/${boardId}/agents`, { name: 'Watcher', persona: 'custom', visibility, instructions: { triggers } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id as string;
  };
  const logOf = async (boardId: string, agentId: string) => {
    await Promise.all([first.app.agents.settled(), second.app.agents.settled()]);
    const log = await first.api('GET', `/boards/${boardId}/agents/${agentId}/actions?limit=50`);
    return log.body as Array<{ triggerEventType: string }>;
  };
  /** The participant ids `server` lists for a board: its visible agents are this instance's knowledge of them. */
  const participantIds = async (server: TestServer, boardId: string) => {
    const answer = await server.api('GET', `/boards/${boardId}?includeParticipants=true`, undefined, { 'x-api-key': first.apiKey });
    return (answer.body.participants as Array<{ user_id: string }>).map((participant) => participant.user_id);
  };
  const addNote = (server: TestServer, boardId: string) =>
    server.api('POST', `/boards/${boardId}/objects`, { type: 'sticky', data: { text: 'note' }, position: { x: 1, y: 1 } }, { 'x-api-key': first.apiKey });

  it('stops an agent paused on one instance on the other too', async () => {
    const board = await createBoard(first, 'Paused');
    const agentId = await agentOn(board.board_uuid, [{ event: 'object:created', action: 'send_notification', params: { message: 'seen' } }], 'visible');
    // The other instance learns of the new agent: it shows it.
    await eventually(async () => (await participantIds(second, board.board_uuid)).includes(`agent:${agentId}`));
    expect((await addNote(second, board.board_uuid)).status).toBe(201);
    await eventually(async () => (await logOf(board.board_uuid, agentId)).length === 1);

    expect((await first.api('POST', `/boards/${board.board_uuid}/agents/${agentId}/pause`)).status).toBe(200);
    await eventually(async () => !(await participantIds(second, board.board_uuid)).includes(`agent:${agentId}`));
    expect((await addNote(second, board.board_uuid)).status).toBe(201);
    expect(await logOf(board.board_uuid, agentId)).toHaveLength(1);
  });

  it("raises a session's timer:tick once a minute for the board, with participants on both instances", async () => {
    const board = await createBoard(first, 'Timer');
    const agentId = await agentOn(board.board_uuid, [{ event: 'timer:tick', action: 'send_notification', params: { message: 'tick' } }]);
    const onFirst = connect(first, board.access_links.host, board.board_uuid);
    const onSecond = connect(second, board.access_links.guest, board.board_uuid);
    await Promise.all([onFirst.saved(), onSecond.saved()]);

    for (const minute of [1, 2]) {
      clock.advance(60_000);
      await Promise.all([first.app.agents.tick(), second.app.agents.tick()]);
      const log = await logOf(board.board_uuid, agentId);
      expect(log.map((entry) => entry.triggerEventType)).toEqual(Array(minute).fill('timer:tick'));
    }
  });
});
