import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createBoard, expectOk, postFrame, serverForSuite, tokenOf, type CreatedBoard } from '../helpers/fixtures.js';
import type { BoardClient } from '../helpers/realtimeClient.js';
import { eventually, request } from '../helpers/testServer.js';

/**
 * Every agent action landing for real: an agent reacts to a `go` object created over REST,
 * acts through the same domain services REST uses (content actions on the built-in rule
 * engine), and its log entry says what it did. Notifications and navigation reach real
 * provider sockets.
 */
const suite = serverForSuite({ env: { AGENT_TICK_MS: '3600000' } });
const { server } = suite;

const GO = "object.type == 'go'";
type Entry = Record<string, any>;

async function agentOn(board: CreatedBoard, triggers: unknown[], fields: Record<string, unknown> = {}) {
  const created = await server.api('POST', `/boards/${board.board_uuid}/agents`, { name: 'Helper', persona: 'custom', maxActionsPerMinute: 60, instructions: { triggers }, ...fields });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string };
}

/** An agent running `action` with `params` on every `go` object created. */
const agentWith = (board: CreatedBoard, action: string, params: Record<string, unknown> = {}, fields: Record<string, unknown> = {}) =>
  agentOn(board, [{ event: 'object:created', condition: GO, action, params }], fields);

async function addObject(board: CreatedBoard, body: Record<string, unknown>, token?: string): Promise<Record<string, any>> {
  const path = `/boards/${board.board_uuid}/objects`;
  const created = token ? await request(server.url, 'POST', `/api/v1${path}`, body, { authorization: `Bearer ${token}` }) : await server.api('POST', path, body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

const note = (text: string, x = 2_000, y = 2_000, extra: Record<string, unknown> = {}) => ({ type: 'note', data: { text }, position: { x, y }, ...extra });
/** Creates the `go` object that fires the agents' triggers. */
const go = (board: CreatedBoard, text = 'hello', x = 100, y = 100, token?: string) => addObject(board, { type: 'go', data: { text }, position: { x, y } }, token);

async function logOf(board: CreatedBoard, agent: { id: string }): Promise<Entry[]> {
  await server.app.agents.settled();
  return (await expectOk(server, 'GET', `/boards/${board.board_uuid}/agents/${agent.id}/actions?limit=200`)) as unknown as Entry[];
}

/** The agent's one log entry, which must be a success. */
async function succeeded(board: CreatedBoard, agent: { id: string }): Promise<Entry> {
  const log = await logOf(board, agent);
  expect(log).toHaveLength(1);
  expect(log[0], JSON.stringify(log[0])).toMatchObject({ shouldAct: true, success: true, errorMessage: null });
  return log[0]!;
}

const objectsOf = async (board: CreatedBoard): Promise<Array<Record<string, any>>> => (await expectOk(server, 'GET', `/boards/${board.board_uuid}`)).state.objects;
const byAgent = async (board: CreatedBoard, agent: { id: string }) => (await objectsOf(board)).filter((object) => object.created_by === `agent:${agent.id}`);
const objectOf = (board: CreatedBoard, id: string) => expectOk(server, 'GET', `/boards/${board.board_uuid}/objects/${id}`);
const guestPatch = (board: CreatedBoard, id: string) =>
  request(server.url, 'PATCH', `/api/v1/boards/${board.board_uuid}/objects/${id}`, { data: { text: 'guest' } }, { authorization: `Bearer ${tokenOf(board.access_links.guest)}` });

async function connected(token: string, board: CreatedBoard, userId?: string): Promise<BoardClient> {
  const client = suite.connect(token, board.board_uuid, userId ? { user_id: userId } : {});
  await client.synced();
  return client;
}
const notificationsOf = (client: BoardClient) => client.messages.filter((message) => message.type === 'agent:notification');

describe('board actions', () => {
  it('create_object puts a sticky beside the subject by default, created by the agent, and the object event says so', async () => {
    const board = await createBoard(server, 'Actions');
    const agent = await agentWith(board, 'create_object', { data: { text: 'well done' } });
    const subject = await go(board);
    const entry = await succeeded(board, agent);
    const [created] = await byAgent(board, agent);
    expect(created).toMatchObject({ type: 'sticky', data: { text: 'well done' }, position: { x: 320, y: 120 }, created_by: `agent:${agent.id}` });
    expect(entry).toMatchObject({ actionType: 'create_object', result: { objectId: created!.id, zoneId: null }, tokensUsed: 0, triggerEventData: { object_id: subject.id } });
    const event = server.events.find((candidate) => candidate.name === 'object.created' && candidate.payload.object_id === created!.id);
    expect(event?.payload).toMatchObject({ object_type: 'sticky', created_by: `agent:${agent.id}` });
  });

  it('fills {{…}} templates in params from the event at run time', async () => {
    const board = await createBoard(server, 'Actions');
    const agent = await agentWith(board, 'create_object', { type: 'echo', data: { text: 'You wrote: {{object.data.text}} ({{object.type}})' }, position: { x: 900, y: 0 } });
    await go(board, 'forty-two');
    const entry = await succeeded(board, agent);
    expect(entry.actionParams).toMatchObject({ data: { text: 'You wrote: forty-two (go)' } });
    expect(await byAgent(board, agent)).toMatchObject([{ type: 'echo', data: { text: 'You wrote: forty-two (go)' }, position: { x: 900, y: 0 } }]);
  });

  it('update_object merges data into the object, as the agent', async () => {
    const board = await createBoard(server, 'Actions');
    const agent = await agentWith(board, 'update_object', { data: { checked: true } });
    const subject = await go(board);
    const entry = await succeeded(board, agent);
    expect(entry.result).toEqual({ objectId: subject.id, changed: ['data'] });
    expect(await objectOf(board, subject.id)).toMatchObject({ data: { text: 'hello', checked: true }, updated_by: `agent:${agent.id}` });
  });

  it('delete_object removes the object', async () => {
    const board = await createBoard(server, 'Actions');
    const agent = await agentWith(board, 'delete_object');
    const subject = await go(board);
    expect((await succeeded(board, agent)).result).toEqual({ objectId: subject.id, type: 'go' });
    expect((await server.api('GET', `/boards/${board.board_uuid}/objects/${subject.id}`)).status).toBe(404);
  });

  it('move_objects moves by dx/dy, to a position, and named objects', async () => {
    const board = await createBoard(server, 'Actions');
    const [first, second] = [await addObject(board, note('a', 10, 10)), await addObject(board, note('b', 20, 20))];
    const agent = await agentOn(board, [
      { event: 'object:created', condition: "object.data.text == 'by'", action: 'move_objects', params: { dx: 50, dy: -20 } },
      { event: 'object:created', condition: "object.data.text == 'to'", action: 'move_objects', params: { position: { x: 700, y: 800 } } },
      { event: 'object:created', condition: "object.data.text == 'named'", action: 'move_objects', params: { objectIds: [first.id, second.id], dx: 5, dy: 5 } },
    ]);
    const [by, to] = [await go(board, 'by'), await go(board, 'to')];
    await go(board, 'named', 3_000, 3_000);
    const log = await logOf(board, agent);
    expect(log.map((entry) => entry.success)).toEqual([true, true, true]);
    expect((await objectOf(board, by.id)).position).toEqual({ x: 150, y: 80 });
    expect((await objectOf(board, to.id)).position).toEqual({ x: 700, y: 800 });
    expect([(await objectOf(board, first.id)).position, (await objectOf(board, second.id)).position]).toEqual([{ x: 15, y: 15 }, { x: 25, y: 25 }]);
  });

  it('lock_objects with all: true locks every object; guests then get 403 over REST', async () => {
    const board = await createBoard(server, 'Actions');
    const other = await addObject(board, note('other'));
    const agent = await agentWith(board, 'lock_objects', { all: true });
    const subject = await go(board);
    const entry = await succeeded(board, agent);
    expect(entry.result).toMatchObject({ locked: true });
    expect([...entry.result.objectIds].sort()).toEqual([other.id, subject.id].sort());
    for (const id of [other.id, subject.id]) {
      expect(await objectOf(board, id)).toMatchObject({ locked: true });
      expect((await guestPatch(board, id)).status).toBe(403);
    }
  });

  it('lock_objects by ids locks only those', async () => {
    const board = await createBoard(server, 'Actions');
    const target = await addObject(board, note('target'));
    const agent = await agentWith(board, 'lock_objects', { objectIds: [target.id] });
    const subject = await go(board);
    expect((await succeeded(board, agent)).result).toEqual({ objectIds: [target.id], locked: true });
    expect((await guestPatch(board, target.id)).status).toBe(403);
    expect((await guestPatch(board, subject.id)).status).toBe(200);
  });

  it.each([
    ['zone A (ada’s, written with her personal link)', { assigned_user_id: 'ada' }],
    ['frame A (no zone)', {}],
  ])('an agent confined to %s may not create in zone B: logged as failed (403), nothing lands there', async (_name, assignment) => {
    const board = await createBoard(server, 'Actions');
    const frameA = await postFrame(server, board.board_uuid, { bounds_x: 0, bounds_y: 0, bounds_width: 500, bounds_height: 500, ...assignment });
    const zoneB = await postFrame(server, board.board_uuid, { bounds_x: 1_000, bounds_y: 0, bounds_width: 500, bounds_height: 500, assigned_user_id: 'bob' });
    const agent = await agentWith(board, 'create_object', { data: { text: 'intruder' }, position: { x: 1_100, y: 100 } }, { scope: { frames: [frameA.id] } });
    const ada = await server.personalLink(board.board_uuid, 'ada');
    await go(board, 'in frame A', 100, 100, ada.token);
    const log = await logOf(board, agent);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ shouldAct: true, success: false, result: {}, errorMessage: 'The position lies in a zone this caller may not write' });
    expect((await objectsOf(board)).filter((object) => object.zone_id === zoneB.id)).toEqual([]);
    expect(await byAgent(board, agent)).toEqual([]);
  });
  it('an agent confined to zone A may not carry an object of zone A out of it (logged as failed, the object stays)', async () => {
    const board = await createBoard(server, 'Actions');
    const zoneA = await postFrame(server, board.board_uuid, { bounds_x: 0, bounds_y: 0, bounds_width: 500, bounds_height: 500, assigned_user_id: 'ada' });
    const agent = await agentWith(board, 'move_objects', { position: { x: 3_000, y: 3_000 } }, { scope: { frames: [zoneA.id] } });
    const ada = await server.personalLink(board.board_uuid, 'ada');
    const subject = await go(board, 'in zone A', 100, 100, ada.token);
    const log = await logOf(board, agent);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ shouldAct: true, success: false, errorMessage: 'The new position lies where this caller may not write' });
    expect(await objectOf(board, subject.id)).toMatchObject({ position: { x: 100, y: 100 }, zone_id: zoneA.id });
  });
});

describe('message actions', () => {
  /** A host, a shared-link guest (bob) and ada with her personal link, on the board document. */
  async function classroom(board: CreatedBoard) {
    const ada = await server.personalLink(board.board_uuid, 'ada');
    return {
      host: await connected(tokenOf(board.access_links.host), board, 'teacher'),
      bob: await connected(tokenOf(board.access_links.guest), board, 'bob'),
      ada: await connected(ada.token, board),
    };
  }

  it('send_notification reaches everyone, the hosts, or the named users', async () => {
    const board = await createBoard(server, 'Messages');
    const { host, bob, ada } = await classroom(board);
    const agent = await agentOn(board, ['all', 'hosts', ['ada']].map((to, index) => ({ event: 'object:created', condition: `object.data.text == '${index}'`, action: 'send_notification', params: { message: `to ${JSON.stringify(to)}`, to, level: 'success' } })));
    for (const text of ['0', '1', '2']) await go(board, text);
    const log = await logOf(board, agent);
    expect(log.map((entry) => entry.success)).toEqual([true, true, true]);
    await eventually(() => expect(notificationsOf(ada)).toHaveLength(2));
    await eventually(() => expect(notificationsOf(host)).toHaveLength(2));
    expect(notificationsOf(host).map((message) => message.message)).toEqual(['to "all"', 'to "hosts"']);
    expect(notificationsOf(ada).map((message) => message.message)).toEqual(['to "all"', 'to ["ada"]']);
    expect(notificationsOf(bob).map((message) => message.message)).toEqual(['to "all"']);
    expect(notificationsOf(host)[0]).toMatchObject({ agent: { id: agent.id, name: 'Helper' }, level: 'success', title: null });
  });

  it('send_notification to the participant an event is about reaches that participant only', async () => {
    const board = await createBoard(server, 'Messages');
    const agent = await agentOn(board, [{ event: 'participant:joined', condition: "participant.user_id == 'ada'", action: 'send_notification', params: { message: 'Welcome {{participant.user_id}}', to: 'participant' } }]);
    const host = await connected(tokenOf(board.access_links.host), board, 'teacher');
    const ada = await connected((await server.personalLink(board.board_uuid, 'ada')).token, board);
    await eventually(() => expect(notificationsOf(ada)).toMatchObject([{ message: 'Welcome ada' }]));
    expect((await succeeded(board, agent)).result).toMatchObject({ delivered: 1, recipients: { kind: 'users', userIds: ['ada'] } });
    expect(notificationsOf(host)).toEqual([]);
  });

  it('notify_teacher reaches the hosts only', async () => {
    const board = await createBoard(server, 'Messages');
    const { host, bob } = await classroom(board);
    const agent = await agentOn(board, [
      { event: 'object:created', condition: GO, action: 'notify_teacher', params: { message: 'for the teacher' } },
      { event: 'object:created', condition: GO, action: 'send_notification', params: { message: 'for everyone' } },
    ]);
    await go(board);
    // The second notification is sent after the first: once bob has it, he would have had the first.
    await eventually(() => expect(notificationsOf(bob)).toHaveLength(1));
    expect(notificationsOf(bob)[0]).toMatchObject({ message: 'for everyone' });
    await eventually(() => expect(notificationsOf(host).map((message) => message.message)).toEqual(['for the teacher', 'for everyone']));
    const log = await logOf(board, agent);
    expect(log.find((entry) => entry.actionType === 'notify_teacher')).toMatchObject({ success: true, result: { delivered: 1 } });
  });

  it('move_to_frame navigates the guests (from the agent), not the hosts; an unknown frame is a logged refusal', async () => {
    const board = await createBoard(server, 'Messages');
    const frame = await postFrame(server, board.board_uuid, { bounds_x: 3_000, bounds_y: 0 });
    const { host, bob, ada } = await classroom(board);
    const agent = await agentOn(board, [
      { event: 'object:created', condition: "object.data.text == 'known'", action: 'move_to_frame', params: { frameId: frame.id } },
      { event: 'object:created', condition: "object.data.text == 'unknown'", action: 'move_to_frame', params: { frameId: randomUUID() } },
    ]);
    await go(board, 'known');
    const expected = { type: 'frame:navigate', frameId: frame.id, smooth: true, from: `agent:${agent.id}` };
    for (const guest of [bob, ada]) await eventually(() => expect(guest.messages.filter((message) => message.type === 'frame:navigate')).toEqual([expected]));
    expect(host.messages.some((message) => message.type === 'frame:navigate')).toBe(false);
    await go(board, 'unknown');
    const log = await logOf(board, agent);
    expect(log.find((entry) => entry.actionParams.frameId === frame.id)).toMatchObject({ success: true, result: { frameId: frame.id, delivered: 2 } });
    expect(log.find((entry) => entry.actionParams.frameId !== frame.id)).toMatchObject({ shouldAct: false, success: false, errorMessage: expect.stringMatching(/^No frame .* on this board$/) });
  });
});

describe('content actions on the rule engine', () => {
  it('evaluate_answer puts a feedback object beside the answer: score 1 when right, 0 when wrong', async () => {
    const board = await createBoard(server, 'Content');
    const agent = await agentWith(board, 'evaluate_answer', { expected: '42' });
    const right = await go(board, '42', 100, 100);
    const wrong = await go(board, 'seven', 100, 1_000);
    const log = await logOf(board, agent);
    expect(log).toHaveLength(2);
    for (const entry of log) expect(entry).toMatchObject({ success: true, tokensUsed: expect.any(Number) });
    expect(log.every((entry) => entry.tokensUsed > 0)).toBe(true);
    const feedback = await byAgent(board, agent);
    expect(feedback.find((object) => object.data.answerId === right.id)).toMatchObject({ type: 'feedback', data: { score: 1, correct: true }, position: { x: 320, y: 120 } });
    expect(feedback.find((object) => object.data.answerId === wrong.id)).toMatchObject({ type: 'feedback', data: { score: 0, correct: false } });
  });

  it('generate_hint puts a sticky beside the answer, level 1 then 2 for the same object', async () => {
    const board = await createBoard(server, 'Content');
    const params = { expected: 'photosynthesis', topic: 'how plants feed' };
    const agent = await agentOn(board, [
      { event: 'object:created', condition: GO, action: 'generate_hint', params },
      { event: 'object:updated', condition: GO, action: 'generate_hint', params },
    ]);
    const answer = await go(board, 'they eat soil');
    await server.app.agents.settled();
    await expectOk(server, 'PATCH', `/boards/${board.board_uuid}/objects/${answer.id}`, { data: { text: 'they use light' } });
    const log = (await logOf(board, agent)).reverse();
    expect(log.map((entry) => [entry.success, entry.result.level])).toEqual([[true, 1], [true, 2]]);
    expect(log.every((entry) => entry.tokensUsed > 0)).toBe(true);
    const hints = (await byAgent(board, agent)).sort((a, b) => a.data.level - b.data.level);
    expect(hints).toMatchObject([
      { type: 'sticky', data: { hintFor: answer.id, level: 1 }, position: { x: 320, y: 120 } },
      { type: 'sticky', data: { hintFor: answer.id, level: 2 }, position: { x: 320 } },
    ]);
    expect(hints[1]!.position.y).toBeGreaterThanOrEqual(120);
    for (const hint of hints) expect(hint.data.text).not.toContain('photosynthesis');
  });

  it('summarize writes a note of the recurring themes', async () => {
    const board = await createBoard(server, 'Content');
    for (const text of ['Photosynthesis needs sunlight.', 'Plants use sunlight and water for photosynthesis.', 'Photosynthesis makes oxygen.']) await addObject(board, note(text));
    const agent = await agentWith(board, 'summarize', { maxPoints: 2 });
    await go(board, 'summarize please');
    const entry = await succeeded(board, agent);
    expect(entry.tokensUsed).toBeGreaterThan(0);
    expect(entry.result.points).toHaveLength(2);
    const [summary] = await byAgent(board, agent);
    expect(summary).toMatchObject({ type: 'sticky', position: { x: 320, y: 120 } });
    expect(summary!.data.text).toContain('photosynthesis');
    expect(entry.result.createdObjectIds).toEqual([summary!.id]);
  });

  it('cluster_similar arranges similar notes in labelled columns', async () => {
    const board = await createBoard(server, 'Content');
    const cats = [await addObject(board, note('cats are great pets', 10, 5_000)), await addObject(board, note('cats make great pets', 900, 5_500))];
    const dogs = [await addObject(board, note('dogs love long walks', 400, 6_000)), await addObject(board, note('dogs need long walks', 50, 7_000))];
    const agent = await agentWith(board, 'cluster_similar', { origin: { x: 3_000, y: 3_000 } });
    await go(board, 'sort them');
    const entry = await succeeded(board, agent);
    expect(entry.tokensUsed).toBeGreaterThan(0);
    expect(entry.result.clusters).toHaveLength(2);
    expect([...entry.result.movedObjectIds].sort()).toEqual([...cats, ...dogs].map((object) => object.id).sort());
    const positions = async (group: Array<Record<string, any>>) => Promise.all(group.map(async (object) => (await objectOf(board, object.id)).position));
    const [catPositions, dogPositions] = [await positions(cats), await positions(dogs)];
    for (const column of [catPositions, dogPositions]) {
      expect(new Set(column.map(({ x }) => x)).size).toBe(1);
      expect(column.map(({ y }) => y).sort()).toEqual([3_000, 3_220]);
    }
    expect([catPositions[0]!.x, dogPositions[0]!.x].sort()).toEqual([3_000, 3_260]);
    expect((await byAgent(board, agent)).map((label) => [label.type, label.position.y])).toEqual([['text', 2_940], ['text', 2_940]]);
  });

  it('check_sentiment flags abuse, tells the hosts and (lockFlagged) locks the object', async () => {
    const board = await createBoard(server, 'Content');
    const host = await connected(tokenOf(board.access_links.host), board, 'teacher');
    const agent = await agentWith(board, 'check_sentiment', { lockFlagged: true });
    const insult = await go(board, 'you are stupid');
    const entry = await succeeded(board, agent);
    expect(entry).toMatchObject({ result: { flagged: true, handled: 'locked', notified: 1 } });
    expect(entry.tokensUsed).toBeGreaterThan(0);
    await eventually(() => expect(notificationsOf(host)).toMatchObject([{ level: 'warning', title: 'Flagged content', objectId: insult.id }]));
    expect(notificationsOf(host)[0]!.message).toContain('stupid');
    expect(await objectOf(board, insult.id)).toMatchObject({ locked: true });
    expect((await guestPatch(board, insult.id)).status).toBe(403);
  });

  it('generate_content creates one note per item', async () => {
    const board = await createBoard(server, 'Content');
    const agent = await agentWith(board, 'generate_content', { prompt: 'apples, pears, plums', objectType: 'idea', style: 'list', origin: { x: 4_000, y: 0 } });
    await go(board);
    const entry = await succeeded(board, agent);
    expect(entry.tokensUsed).toBeGreaterThan(0);
    const created = await byAgent(board, agent);
    expect(entry.result.createdObjectIds).toHaveLength(3);
    expect(created.map((object) => [object.type, object.data.text, object.position.x]).sort()).toEqual([
      ['idea', 'apples', 4_000],
      ['idea', 'pears', 4_000],
      ['idea', 'plums', 4_000],
    ]);
  });

  it('validate_design tells the hosts the issues it finds', async () => {
    const board = await createBoard(server, 'Content');
    const host = await connected(tokenOf(board.access_links.host), board, 'teacher');
    const first = await addObject(board, note('first', 0, 0, { width: 200, height: 200 }));
    const second = await addObject(board, note('second', 100, 100, { width: 200, height: 200 }));
    const agent = await agentWith(board, 'validate_design');
    await go(board, 'check', 5_000, 5_000);
    const entry = await succeeded(board, agent);
    expect(entry).toMatchObject({ result: { valid: false, notified: 1 } });
    expect(entry.tokensUsed).toBeGreaterThan(0);
    await eventually(() => expect(notificationsOf(host)).toMatchObject([{ level: 'warning', title: 'Design check' }]));
    const message = notificationsOf(host)[0]!.message as string;
    expect(message).toContain('1 issue(s)');
    expect(message).toMatch(new RegExp(`Overlaps (${first.id}|${second.id})`));
  });
});
