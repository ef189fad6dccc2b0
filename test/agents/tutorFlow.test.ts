import { expect, it } from 'vitest';
import * as Y from 'yjs';
import { createBoard, expectOk, postFrame, serverForSuite, tokenOf } from '../helpers/fixtures.js';
import { addObject, connectBoardClient, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';

/**
 * The tutor, end to end: a student writes an answer in its zone, the tutor (made from its
 * preset) evaluates it and leaves a hint beside it in the student's zone, within its limits;
 * the teacher is notified; the log and the statistics show it all.
 */
const suite = serverForSuite();
const { server, clients } = suite;

const textsIn = (client: BoardClient) =>
  [...client.doc.getMap('objects').values()].map((value) => (value as Y.Map<unknown>).toJSON() as { type: string; data: Record<string, unknown>; created_by: string | null });

it('evaluates a student answer, hints beside it, notifies the teacher, and logs it', async () => {
  const board = await createBoard(server, 'Fractions');
  const zone = await postFrame(server, board.board_uuid, { name: 'Ada', bounds_x: 0, bounds_y: 0, bounds_width: 800, bounds_height: 600 });
  const student = await server.personalLink(board.board_uuid, 'ada', { user_name: 'Ada' });
  await expectOk(server, 'POST', `/boards/${board.board_uuid}/frames/${zone.id}/assign`, { user_id: 'ada' });

  const preset = await expectOk(server, 'GET', '/agent-presets/tutor');
  const instructions = {
    ...preset.instructions,
    triggers: [
      { event: 'object:created', condition: "object.type == 'answer'", action: 'evaluate_answer', params: { expected: '3/4', notifyTeacher: true } },
      { event: 'object:created', condition: "object.type == 'answer'", action: 'generate_hint', params: { expected: '3/4', topic: 'adding fractions' } },
    ],
  };
  const created = await server.api('POST', `/boards/${board.board_uuid}/agents`, {
    name: preset.name,
    persona: 'tutor',
    instructions,
    scope: { frames: [zone.id] },
    maxActionsPerMinute: preset.maxActionsPerMinute,
    budgetTokens: 5_000,
  });
  expect(created.status).toBe(201);
  const tutor = created.body;

  const teacher = suite.connect(tokenOf(board.access_links.host), board.board_uuid);
  const studentClient = connectBoardClient({ url: server.socketUrl(student.link), name: `${board.board_uuid}/zones/${zone.id}` });
  clients.push(studentClient);
  await Promise.all([teacher.synced(), studentClient.synced()]);

  addObject(studentClient.doc, { id: 'ada-answer', type: 'answer', data: { text: '2/6' }, x: 100, y: 100, createdBy: 'ada' });
  await studentClient.saved();
  await server.app.agents.settled();

  const logPath = `/boards/${board.board_uuid}/agents/${tutor.id}/actions`;
  // The answer's object event is published once it is durable, a moment after the student's ack.
  await eventually(async () => {
    await server.app.agents.settled();
    expect((await expectOk(server, 'GET', logPath)).length).toBe(2);
    return true;
  });
  // The feedback and the hint land beside the answer, in the student's own zone document.
  await eventually(() => expect(textsIn(studentClient).filter((object) => object.created_by === `agent:${tutor.id}`)).toHaveLength(2));
  const written = textsIn(studentClient).filter((object) => object.created_by === `agent:${tutor.id}`);
  const feedback = written.find((object) => object.type === 'feedback')!;
  expect(feedback.data).toMatchObject({ answerId: 'ada-answer', correct: false, score: 0 });
  const hint = written.find((object) => object.type === 'sticky')!;
  expect(hint.data).toMatchObject({ hintFor: 'ada-answer', level: 1 });
  expect(String(hint.data.text)).not.toContain('3/4');

  // The teacher hears about it; the student's socket does not get the teacher's notification.
  await eventually(() => expect(teacher.messages.some((message) => message.type === 'agent:notification')).toBe(true));
  expect(studentClient.messages.some((message) => message.type === 'agent:notification')).toBe(false);

  const log = (await server.api('GET', logPath)).body as Array<Record<string, any>>;
  expect(log.map((entry) => entry.actionType).sort()).toEqual(['evaluate_answer', 'generate_hint']);
  for (const entry of log) expect(entry).toMatchObject({ success: true, triggerEventType: 'object:created', triggerEventData: { object_id: 'ada-answer', zone_id: zone.id } });
  const stats = await expectOk(server, 'GET', `/boards/${board.board_uuid}/agents/${tutor.id}/stats`);
  const spent = log.reduce((sum, entry) => sum + (entry.tokensUsed as number), 0);
  expect(stats).toMatchObject({ actionsCount: 2, successRate: 1, tokensSpent: spent, budgetRemaining: 5_000 - spent, actionsByType: { evaluate_answer: 1, generate_hint: 1 } });
  expect(spent).toBeGreaterThan(0);

  // A correct answer scores 1.
  addObject(studentClient.doc, { id: 'ada-second', type: 'answer', data: { text: '3/4' }, x: 100, y: 300, createdBy: 'ada' });
  await studentClient.saved();
  await server.app.agents.settled();
  await eventually(() => {
    const second = textsIn(studentClient).find((object) => object.type === 'feedback' && object.data.answerId === 'ada-second');
    expect(second?.data).toMatchObject({ correct: true, score: 1 });
    return true;
  });
});
