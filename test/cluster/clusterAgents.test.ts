import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createBoard, instancesForSuite } from '../helpers/fixtures.js';
import { postgresServerUrl } from '../helpers/testDatabase.js';
import { eventually, type TestServer } from '../helpers/testServer.js';

/**
 * Agents with several instances (docs/architecture.md): what one instance changes of
 * an agent holds on every instance, and what every instance finds due is done once.
 */
const runs = Boolean(process.env.REDIS_URL && postgresServerUrl());

describe.skipIf(!runs)('agents across two instances (needs DATABASE_URL=postgresql://… and REDIS_URL)', () => {
  const clock = new ManualClock();
  // Agents look at the clock only when a test ticks them.
  const { first, second, connect } = instancesForSuite(() => ({ AGENT_TICK_MS: '3600000' }), clock);

  const agentOn = async (boardId: string, triggers: unknown[], visibility = 'stealth', limits: Record<string, unknown> = {}) => {
    const created = await first.api('POST', `/boards/${boardId}/agents`, { name: 'Watcher', persona: 'custom', visibility, instructions: { triggers }, ...limits });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id as string;
  };
  const logOf = async (boardId: string, agentId: string) => {
    await Promise.all([first.app.agents.settled(), second.app.agents.settled()]);
    const log = await first.api('GET', `/boards/${boardId}/agents/${agentId}/actions?limit=50`);
    return log.body as Array<{ triggerEventType: string; success: boolean; tokensUsed: number; errorMessage: string | null }>;
  };
  /** The participant ids `server` lists for a board: its visible agents are this instance's knowledge of them. */
  const participantIds = async (server: TestServer, boardId: string) => {
    const answer = await server.api('GET', `/boards/${boardId}?includeParticipants=true`, undefined, { 'x-api-key': first.apiKey });
    return (answer.body.participants as Array<{ user_id: string }>).map((participant) => participant.user_id);
  };
  const addNote = (server: TestServer, boardId: string, text = 'note') =>
    server.api('POST', `/boards/${boardId}/objects`, { type: 'sticky', data: { text }, position: { x: 1, y: 1 } }, { 'x-api-key': first.apiKey });
  const evaluator = [{ event: 'object:created', action: 'evaluate_answer', params: { expected: '3/4', deliver: 'none' } }];

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

  it("counts an agent's actions per minute once for both instances", async () => {
    const board = await createBoard(first, 'Rate');
    const agentId = await agentOn(board.board_uuid, [{ event: 'object:created', action: 'send_notification', params: { message: 'seen' } }], 'stealth', { maxActionsPerMinute: 4 });
    for (const server of [first, second, first, second, first, second, first, second]) expect((await addNote(server, board.board_uuid)).status).toBe(201);

    const log = await logOf(board.board_uuid, agentId);
    expect(log).toHaveLength(8);
    expect(log.filter((entry) => entry.success)).toHaveLength(4);
    for (const entry of log.filter((entry) => !entry.success)) expect(entry.errorMessage).toMatch(/^Rate limit: 4 actions per minute reached$/);

    // The window slides for the deployment: a minute on, both instances have room again.
    clock.advance(60_001);
    expect((await addNote(second, board.board_uuid)).status).toBe(201);
    expect((await logOf(board.board_uuid, agentId)).filter((entry) => entry.success)).toHaveLength(5);
  });

  it("shares an agent's rate between its scan and the other instance's runs, and never refuses a scanned object", async () => {
    const initial = Array.from({ length: 8 }, (_, index) => ({ type: 'sticky', data: { text: `old ${index}` }, position: { x: index * 300, y: 0 } }));
    const board = await createBoard(first, 'Scan', { initial_objects: initial });
    const notify = [{ event: 'object:created', action: 'send_notification', params: { message: 'seen' } }];
    const agentId = await agentOn(board.board_uuid, notify, 'stealth', { maxActionsPerMinute: 4, scanExisting: true });
    type Entry = { success: boolean; errorMessage: string | null; triggerEventData: { scan?: boolean; object_id: string } };
    const scannedOf = async () => ((await logOf(board.board_uuid, agentId)) as unknown as Entry[]).filter((entry) => entry.triggerEventData.scan === true);
    // Each minute the scan (first) and three new notes (second) want the same four slots at once.
    for (let minute = 0; minute < 12 && (await scannedOf()).length < initial.length; minute += 1) {
      clock.advance(60_001);
      await Promise.all([...[1, 2, 3].map(() => addNote(second, board.board_uuid)), first.app.agents.tick()]);
    }
    const scanned = await scannedOf();
    expect(scanned.filter((entry) => !entry.success)).toEqual([]);
    expect(new Set(scanned.map((entry) => entry.triggerEventData.object_id)).size).toBe(initial.length);
    expect(scanned).toHaveLength(initial.length);
    // The first minute's four scanned objects and three notes did not fit four slots: notes were refused, never an object.
    const refused = ((await logOf(board.board_uuid, agentId)) as unknown as Entry[]).filter((entry) => !entry.success);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    for (const entry of refused) expect(entry.errorMessage).toBe('Rate limit: 4 actions per minute reached');
  });

  it('holds a token budget spent on one instance on the other', async () => {
    // The rule engine spends the same tokens on the same answer: one run on a board of its own says how many.
    const probeBoard = await createBoard(first, 'Probe');
    const probe = await agentOn(probeBoard.board_uuid, evaluator);
    expect((await addNote(second, probeBoard.board_uuid, 'my answer is 3/4')).status).toBe(201);
    const perRun = await eventually(async () => {
      const log = await logOf(probeBoard.board_uuid, probe);
      return log.length === 1 ? log[0]!.tokensUsed : 0;
    });
    expect(perRun).toBeGreaterThan(0);

    // Room for two runs, not three: the third, on the instance that ran the first, must see the second's spending.
    const board = await createBoard(first, 'Budget');
    const agentId = await agentOn(board.board_uuid, evaluator, 'stealth', { budgetTokens: 3 * perRun - 1 });
    for (const server of [second, first, second]) {
      expect((await addNote(server, board.board_uuid, 'my answer is 3/4')).status).toBe(201);
      await logOf(board.board_uuid, agentId);
    }
    const log = await logOf(board.board_uuid, agentId);
    expect(log.map((entry) => entry.success).sort()).toEqual([false, true, true]);
    expect(log.find((entry) => !entry.success)?.errorMessage).toMatch(/^Token budget: this call may need \d+ tokens, \d+ remain$/);
    const stats = await first.api('GET', `/boards/${board.board_uuid}/agents/${agentId}/stats`);
    expect(stats.body).toMatchObject({ tokensSpent: 2 * perRun });
  });
});
