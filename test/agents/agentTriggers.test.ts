import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createBoard, expectOk, postFrame, serverForSuite, tokenOf, type CreatedBoard } from '../helpers/fixtures.js';
import { addObject } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';

/** Each trigger event raised by the real board operation, over REST and real sockets. */
const clock = new ManualClock(new Date('2026-03-02T09:00:00.000Z'));
// The test's own event recorder does not count as a listener: only the agents make events.
const suite = serverForSuite({ clock, env: { AGENT_TICK_MS: '3600000' }, eventsWantedByTest: false });
const { server } = suite;

const notifyOn = (event: string, extra: Record<string, unknown> = {}) => ({
  event,
  action: 'send_notification',
  params: { message: `${event} seen`, to: 'hosts' },
  ...extra,
});

async function agentOn(board: CreatedBoard, triggers: unknown[], fields: Record<string, unknown> = {}) {
  const created = await server.api('POST', `/boards/${board.board_uuid}/agents`, { name: 'Watcher', persona: 'custom', instructions: { triggers }, ...fields });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string };
}

async function logOf(board: CreatedBoard, agent: { id: string }): Promise<Array<Record<string, any>>> {
  await server.app.agents.settled();
  return (await expectOk(server, 'GET', `/boards/${board.board_uuid}/agents/${agent.id}/actions?limit=200`)) as unknown as Array<Record<string, any>>;
}

const sticky = (x = 10, y = 10, type = 'sticky_note', text = 'hello') => ({ type, data: { text }, position: { x, y } });

describe('object events', () => {
  it('object:created, updated and deleted from REST each run the trigger once, logged with the event', async () => {
    const board = await createBoard(server, 'Triggers');
    const agent = await agentOn(board, [notifyOn('object:created'), notifyOn('object:updated'), notifyOn('object:deleted')]);
    const object = (await server.api('POST', `/boards/${board.board_uuid}/objects`, sticky())).body;
    await expectOk(server, 'PATCH', `/boards/${board.board_uuid}/objects/${object.id}`, { data: { text: 'changed' } });
    expect((await server.api('DELETE', `/boards/${board.board_uuid}/objects/${object.id}`)).status).toBe(204);
    const log = await logOf(board, agent);
    expect(log.map((entry) => entry.triggerEventType).sort()).toEqual(['object:created', 'object:deleted', 'object:updated']);
    for (const entry of log) {
      expect(entry).toMatchObject({ agentId: agent.id, shouldAct: true, success: true, actionType: 'send_notification', errorMessage: null });
      expect(entry.triggerEventData.object_id).toBe(object.id);
      expect(entry.actionParams).toMatchObject({ message: `${entry.triggerEventType} seen` });
    }
    const stats = await expectOk(server, 'GET', `/boards/${board.board_uuid}/agents/${agent.id}/stats`);
    expect(stats).toMatchObject({ actionsCount: 3, successRate: 1, actionsByType: { send_notification: 3 } });
    expect(stats.lastActionAt).toBe(clock.now().toISOString());
  });

  it('object:created from a socket client runs the trigger, and the host socket receives the notification', async () => {
    const board = await createBoard(server, 'Triggers');
    await agentOn(board, [notifyOn('object:created')]);
    const host = suite.connect(tokenOf(board.access_links.host), board.board_uuid);
    await host.synced();
    addObject(host.doc, { id: 'from-socket', x: 5, y: 5, data: { text: 'typed live' } });
    await eventually(() => expect(host.messages.some((message) => message.type === 'agent:notification')).toBe(true));
    const notification = host.messages.find((message) => message.type === 'agent:notification')!;
    expect(notification).toMatchObject({ message: 'object:created seen', objectId: 'from-socket', agent: { name: 'Watcher' } });
  });

  it('an agent added while a socket edits runs on the next edit, and every one after', async () => {
    const board = await createBoard(server, 'Triggers');
    const host = suite.connect(tokenOf(board.access_links.host), board.board_uuid);
    await host.synced();
    addObject(host.doc, { id: 'before-the-agent', x: 5, y: 5 });
    await host.saved();
    const agent = await agentOn(board, [notifyOn('object:created')]);
    addObject(host.doc, { id: 'first-watched', x: 6, y: 6 });
    await host.saved();
    addObject(host.doc, { id: 'second-watched', x: 7, y: 7 });
    await host.saved();
    await eventually(async () => (await logOf(board, agent)).length === 2);
    expect((await logOf(board, agent)).map((entry) => entry.triggerEventData.object_id).sort()).toEqual(['first-watched', 'second-watched']);
  });

  it('a condition and scope.objectTypes filter which objects count', async () => {
    const board = await createBoard(server, 'Triggers');
    const agent = await agentOn(board, [notifyOn('object:created', { condition: "object.data.text != 'skip me'" })], { scope: { objectTypes: ['answer'] } });
    await server.api('POST', `/boards/${board.board_uuid}/objects`, sticky(1, 1, 'answer', 'counted'));
    await server.api('POST', `/boards/${board.board_uuid}/objects`, sticky(2, 2, 'answer', 'skip me'));
    await server.api('POST', `/boards/${board.board_uuid}/objects`, sticky(3, 3, 'sticky_note', 'wrong type'));
    const log = await logOf(board, agent);
    expect(log).toHaveLength(1);
    expect(log[0]!.triggerEventData.object_type).toBe('answer');
  });

  it('scope.frames keeps an agent to objects inside its frames', async () => {
    const board = await createBoard(server, 'Triggers');
    const frame = await postFrame(server, board.board_uuid, { bounds_x: 0, bounds_y: 0, bounds_width: 500, bounds_height: 500 });
    const agent = await agentOn(board, [notifyOn('object:created')], { scope: { frames: [frame.id] } });
    await server.api('POST', `/boards/${board.board_uuid}/objects`, sticky(100, 100, 'sticky_note', 'inside'));
    await server.api('POST', `/boards/${board.board_uuid}/objects`, sticky(900, 900, 'sticky_note', 'outside'));
    const log = await logOf(board, agent);
    expect(log).toHaveLength(1);
  });

  it('a paused agent does not react; resumed, it does again', async () => {
    const board = await createBoard(server, 'Triggers');
    const agent = await agentOn(board, [notifyOn('object:created')]);
    await expectOk(server, 'POST', `/boards/${board.board_uuid}/agents/${agent.id}/pause`);
    await server.api('POST', `/boards/${board.board_uuid}/objects`, sticky());
    expect(await logOf(board, agent)).toHaveLength(0);
    await expectOk(server, 'POST', `/boards/${board.board_uuid}/agents/${agent.id}/resume`);
    await server.api('POST', `/boards/${board.board_uuid}/objects`, sticky());
    expect(await logOf(board, agent)).toHaveLength(1);
  });

  it('agents reacting to one event run by priority, highest first', async () => {
    const board = await createBoard(server, 'Triggers');
    const host = suite.connect(tokenOf(board.access_links.host), board.board_uuid);
    await host.synced();
    const announce = (name: string) => ({ event: 'object:created', action: 'send_notification', params: { message: name, to: 'hosts' } });
    await agentOn(board, [announce('low')], { name: 'Low', priority: 2 });
    await agentOn(board, [announce('high')], { name: 'High', priority: 9 });
    await agentOn(board, [announce('middle')], { name: 'Middle', priority: 5 });
    await server.api('POST', `/boards/${board.board_uuid}/objects`, sticky());
    await server.app.agents.settled();
    await eventually(() => expect(host.messages.filter((message) => message.type === 'agent:notification')).toHaveLength(3));
    const order = host.messages.filter((message) => message.type === 'agent:notification').map((message) => message.message);
    expect(order).toEqual(['high', 'middle', 'low']);
  });
});

