import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createBoard, expectOk, postFrame, serverForSuite, tokenOf, type CreatedBoard } from '../helpers/fixtures.js';
import { addObject } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';

/**
 * The trigger events people and time raise (participant joined/left/idle, frame entered/left,
 * timer ticks), `scanExisting`, and agents as participants, each from the real operation: real
 * providers connecting, sending updates and locations, and a ManualClock with the runtime's tick.
 */
const clock = new ManualClock(new Date('2026-03-02T09:00:00.000Z'));
const suite = serverForSuite({ clock, env: { AGENT_TICK_MS: '3600000' } });
const { server } = suite;

async function agentOn(board: CreatedBoard, triggers: unknown[], fields: Record<string, unknown> = {}) {
  const created = await server.api('POST', `/boards/${board.board_uuid}/agents`, { name: 'Watcher', persona: 'custom', visibility: 'stealth', instructions: { triggers }, ...fields });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; name: string };
}

async function logOf(board: CreatedBoard, agent: { id: string }): Promise<Array<Record<string, any>>> {
  await server.app.agents.settled();
  return (await expectOk(server, 'GET', `/boards/${board.board_uuid}/agents/${agent.id}/actions?limit=200`)) as unknown as Array<Record<string, any>>;
}

async function tick(ms = 0): Promise<void> {
  clock.advance(ms);
  await server.app.agents.tick();
  await server.app.agents.settled();
}

const logTo = (event: string, extra: Record<string, unknown> = {}) => ({ event, action: 'notify_teacher', params: { message: `${event} {{participant.user_id}}` }, ...extra });

async function guestOn(board: CreatedBoard, userId?: string) {
  const params: Record<string, string> = userId ? { user_id: userId } : {};
  const token = userId ? (await server.personalLink(board.board_uuid, userId)).token : tokenOf(board.access_links.guest);
  const client = suite.connect(token, board.board_uuid, params);
  await client.synced();
  return client;
}

describe('participants', () => {
  it('participant:joined and participant:left come from sockets joining and leaving', async () => {
    const board = await createBoard(server, 'People');
    const agent = await agentOn(board, [logTo('participant:joined'), logTo('participant:left')]);
    const ada = await guestOn(board, 'ada');
    await eventually(async () => (await logOf(board, agent)).length === 1);
    ada.destroy();
    await eventually(async () => (await logOf(board, agent)).length === 2);
    const log = await logOf(board, agent);
    expect(log.map((entry) => entry.triggerEventType).sort()).toEqual(['participant:joined', 'participant:left']);
    for (const entry of log) expect(entry.triggerEventData.user_id).toBe('ada');
    expect(log.every((entry) => entry.actionParams.message.endsWith(' ada'))).toBe(true);
  });

  it('participant:idle fires once per quiet spell, when the condition first holds, and again after activity', async () => {
    const board = await createBoard(server, 'People');
    const agent = await agentOn(board, [logTo('participant:idle', { condition: 'idleSeconds >= 120' })]);
    const ada = await guestOn(board, 'ada');
    await tick(60_000);
    expect(await logOf(board, agent)).toHaveLength(0);
    await tick(61_000);
    expect(await logOf(board, agent)).toHaveLength(1);
    await tick(60_000);
    expect(await logOf(board, agent)).toHaveLength(1);
    // Doing something ends the spell; a new one fires again.
    addObject(ada.doc, { id: 'sign-of-life', x: 5, y: 5 });
    await ada.saved();
    await tick(30_000);
    expect(await logOf(board, agent)).toHaveLength(1);
    await tick(100_000);
    const log = await logOf(board, agent);
    expect(log).toHaveLength(2);
    expect(log[0]!.triggerEventData).toMatchObject({ user_id: 'ada', idle_seconds: 130 });
  });

  it('frame:entered and frame:left come from participant:location', async () => {
    const board = await createBoard(server, 'People');
    const left = await postFrame(server, board.board_uuid, { name: 'Left', bounds_x: 0, bounds_y: 0 });
    const right = await postFrame(server, board.board_uuid, { name: 'Right', bounds_x: 2000, bounds_y: 0 });
    const agent = await agentOn(board, [logTo('frame:entered', { condition: "frame.name == 'Right'" }), logTo('frame:left')]);
    const ada = await guestOn(board, 'ada');
    const viewport = { x: 0, y: 0, width: 800, height: 600 };
    ada.sendStateless({ type: 'participant:location', frameId: left.id, viewportBounds: viewport });
    ada.sendStateless({ type: 'participant:location', frameId: left.id, viewportBounds: { ...viewport, x: 10 } });
    ada.sendStateless({ type: 'participant:location', frameId: right.id, viewportBounds: viewport });
    await eventually(async () => (await logOf(board, agent)).length === 2);
    const log = await logOf(board, agent);
    expect(log.find((entry) => entry.triggerEventType === 'frame:left')!.triggerEventData).toMatchObject({ frame_id: left.id, to_frame_id: right.id });
    expect(log.find((entry) => entry.triggerEventType === 'frame:entered')!.triggerEventData).toMatchObject({ frame_id: right.id, from_frame_id: left.id });
  });
});

describe('time', () => {
  it('timer:tick fires once a minute while a session runs, and not without one', async () => {
    const board = await createBoard(server, 'Time');
    const agent = await agentOn(board, [{ event: 'timer:tick', action: 'send_notification', params: { message: 'tick' } }]);
    await tick(120_000);
    expect(await logOf(board, agent)).toHaveLength(0);
    const host = suite.connect(tokenOf(board.access_links.host), board.board_uuid);
    await host.synced();
    await tick(30_000);
    expect(await logOf(board, agent)).toHaveLength(0);
    await tick(30_000);
    await tick(60_000);
    const log = await logOf(board, agent);
    expect(log).toHaveLength(2);
    expect(log.map((entry) => entry.triggerEventData.elapsed_seconds).sort((a, b) => a - b)).toEqual([60, 120]);
  });
});

describe('scanExisting', () => {
  it("runs the object triggers once over the board's objects, within the rate", async () => {
    const board = await createBoard(server, 'Scan', {
      initial_objects: Array.from({ length: 5 }, (_, index) => ({ type: 'answer', data: { text: `answer ${index}` }, position: { x: index * 300, y: 0 } })),
    });
    const trigger = { event: 'object:created', condition: "object.type == 'answer'", action: 'send_notification', params: { message: 'seen {{object.data.text}}' } };
    const agent = await agentOn(board, [trigger], { scanExisting: true, maxActionsPerMinute: 3 });
    await eventually(async () => (await logOf(board, agent)).length === 3);
    expect((await logOf(board, agent)).every((entry) => entry.success && entry.triggerEventData.scan === true)).toBe(true);
    await tick(61_000);
    const log = await logOf(board, agent);
    expect(log).toHaveLength(5);
    expect(new Set(log.map((entry) => entry.triggerEventData.object_id)).size).toBe(5);
    await tick(61_000);
    expect(await logOf(board, agent)).toHaveLength(5);
  });
});

describe('agents as participants', () => {
  it('a visible agent is listed and counted with its name in awareness; a stealth one is not', async () => {
    const board = await createBoard(server, 'Presence');
    const host = suite.connect(tokenOf(board.access_links.host), board.board_uuid);
    await host.synced();
    const visible = await agentOn(board, [], { name: 'Helper', visibility: 'visible' });
    await agentOn(board, [], { name: 'Quiet', visibility: 'stealth' });
    await server.app.agents.settled();
    const read = await expectOk(server, 'GET', `/boards/${board.board_uuid}?includeParticipants=true`);
    expect(read.participants_count).toBe(2);
    const agentEntry = read.participants.find((participant: any) => participant.user_id === `agent:${visible.id}`);
    expect(agentEntry).toMatchObject({ user_type: 'agent', role: 'guest' });
    expect(read.participants).toHaveLength(2);
    await eventually(() => {
      const states = [...host.provider.awareness!.getStates().values()];
      return states.some((state: any) => state.user?.name === 'Helper' && state.user.agent === true && state.user.isThinking === false);
    });
    expect([...host.provider.awareness!.getStates().values()].some((state: any) => state.user?.name === 'Quiet')).toBe(false);

    await expectOk(server, 'POST', `/boards/${board.board_uuid}/agents/${visible.id}/pause`);
    await server.app.agents.settled();
    expect((await expectOk(server, 'GET', `/boards/${board.board_uuid}?includeParticipants=true`)).participants_count).toBe(1);
    await eventually(() => ![...host.provider.awareness!.getStates().values()].some((state: any) => state.user?.name === 'Helper'));
  });
});
