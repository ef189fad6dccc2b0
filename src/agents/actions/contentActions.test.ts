import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { BoardObject } from '../../boards/boardObjects.js';
import type { PlacedObject } from '../../boards/objectService.js';
import type { ObjectInput, ObjectPatch } from '../../boards/schemas.js';
import { AppError, errors } from '../../errors.js';
import type { Frame } from '../../frames/frame.js';
import { freeJsonKeyword } from '../../util/ajvKeywords.js';
import { agentUserId, type Agent } from '../agent.js';
import { CONTENT_ACTIONS, type ContentRequest } from '../content/contentTypes.js';
import { createRuleEngine } from '../content/ruleEngine.js';
import type { AgentNotification, Recipients, TriggerEvent } from '../ports.js';
import { ActionRefusal, type ActionContext, type ActionDefinition } from './action.js';
import {
  CONTENT_ACTION_DEFINITIONS,
  checkSentiment,
  clusterSimilar,
  evaluateAnswer,
  generateContent,
  generateHint,
  summarize,
  validateDesign,
} from './contentActions.js';

const BOARD = 'board-1';
const AGENT = 'agent-1';

type Operation = 'add' | 'update' | 'remove';

/** An in-memory board behind the AgentObjects port, recording every write; `refuse` fails the nth call of an operation. */
class FakeObjects {
  readonly store = new Map<string, BoardObject>();
  readonly calls: Array<{ operation: Operation; id: string }> = [];
  refusals: Array<{ operation: Operation; call: number; error: AppError }> = [];
  private nextId = 1;

  constructor(objects: BoardObject[] = []) {
    for (const object of objects) this.store.set(object.id, object);
  }

  async add(_caller: unknown, _board: string, input: ObjectInput): Promise<PlacedObject> {
    this.check('add');
    const object: BoardObject = { ...input, id: `new-${this.nextId++}`, created_at: '2026-01-01T00:00:00.000Z', created_by: agentUserId(AGENT) };
    this.store.set(object.id, object);
    this.calls.push({ operation: 'add', id: object.id });
    return object;
  }

  async list(): Promise<PlacedObject[]> {
    return [...this.store.values()];
  }

  async get(_caller: unknown, _board: string, id: string): Promise<PlacedObject> {
    const object = this.store.get(id);
    if (!object) throw errors.notFound('Object');
    return object;
  }

  async update(_caller: unknown, _board: string, id: string, patch: ObjectPatch): Promise<PlacedObject> {
    this.check('update');
    const updated = { ...(await this.get(null, BOARD, id)), ...patch };
    this.store.set(id, updated);
    this.calls.push({ operation: 'update', id });
    return updated;
  }

  async remove(_caller: unknown, _board: string, id: string): Promise<PlacedObject> {
    this.check('remove');
    const removed = await this.get(null, BOARD, id);
    this.store.delete(id);
    this.calls.push({ operation: 'remove', id });
    return removed;
  }

  created(): BoardObject[] {
    return this.calls.filter(({ operation }) => operation === 'add').map(({ id }) => this.store.get(id) as BoardObject);
  }

  private check(operation: Operation): void {
    const call = this.calls.filter((entry) => entry.operation === operation).length + 1;
    const refusal = this.refusals.find((entry) => entry.operation === operation && entry.call === call);
    if (refusal) throw refusal.error;
  }
}

interface Harness {
  context: ActionContext;
  objects: FakeObjects;
  notifications: Array<{ notification: AgentNotification; recipients: Recipients }>;
  requests: Array<Omit<ContentRequest, 'agent'>>;
}

function harness(options: { objects?: BoardObject[]; subject?: BoardObject | null; frames?: Frame[]; agent?: Partial<Agent> } = {}): Harness {
  const objects = new FakeObjects(options.objects ?? (options.subject ? [options.subject] : []));
  const notifications: Harness['notifications'] = [];
  const requests: Harness['requests'] = [];
  const engine = createRuleEngine();
  const agent = agentOf(options.agent);
  const brief = { name: agent.name, persona: agent.persona, ...agent.instructions };
  const context: ActionContext = {
    agent,
    event: options.subject ? objectEvent(options.subject) : null,
    caller: { organizationId: 'org-1', role: 'host', userId: agentUserId(AGENT), boardId: BOARD },
    cause: { agentId: AGENT, depth: 1 },
    objects,
    frames: { framesOfBoard: async () => options.frames ?? [] },
    sockets: {
      notify: (_board, notification, recipients) => notifications.push({ notification, recipients }) && 1,
      navigate: () => 0,
      participants: () => [],
      sessionStartedAt: () => null,
      showAgent: () => undefined,
    },
    content: async (request) => {
      requests.push(request);
      return engine.run({ ...request, agent: brief });
    },
    memory: agent.memory,
  };
  return { context, objects, notifications, requests };
}

function agentOf(overrides: Partial<Agent> = {}): Agent {
  const now = new Date('2026-01-01T00:00:00Z');
  return {
    id: AGENT,
    boardId: BOARD,
    organizationId: 'org-1',
    name: 'Tutor',
    persona: 'tutor',
    status: 'active',
    instructions: { description: 'Helps', goals: ['understand photosynthesis'], rules: [], triggers: [], schedule: [] },
    scope: { frames: [], objectTypes: [], participants: [] },
    priority: 5,
    visibility: 'visible',
    maxActionsPerMinute: 10,
    budgetTokens: null,
    spentTokens: 0,
    actionsCount: 0,
    lastActionAt: null,
    memory: {},
    scanPending: false,
    createdBy: 'teacher',
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

function objectEvent(object: BoardObject): TriggerEvent {
  return {
    type: 'object:created',
    boardId: BOARD,
    organizationId: 'org-1',
    data: {},
    object,
    participant: null,
    frameId: null,
    idleSeconds: null,
    cause: null,
    occurredAt: new Date('2026-01-01T00:00:00Z'),
  };
}

function note(id: string, text: string, position = { x: 0, y: 0 }, extra: Partial<BoardObject> = {}): BoardObject {
  return { id, type: 'sticky_note', data: { text }, position, created_at: '2026-01-01T00:00:00.000Z', created_by: 'student-1', ...extra };
}

/** Sanitize then apply, as the runtime does. */
async function run(definition: ActionDefinition, params: Record<string, unknown>, context: ActionContext) {
  return definition.apply(await definition.sanitize(params, context), context);
}

const answer = note('answer', 'Paris', { x: 100, y: 100 }, { width: 200, height: 200 });
const besideAnswer = { x: 320, y: 120 };

describe('content action definitions', () => {
  it('define the seven content actions, using AI, with schemas a strict validator compiles', () => {
    expect(CONTENT_ACTION_DEFINITIONS.map(({ type }) => type).sort()).toEqual([...CONTENT_ACTIONS].sort());
    const ajv = new Ajv({ strict: true, allowUnionTypes: true, strictRequired: false });
    ajv.addKeyword(freeJsonKeyword);
    for (const definition of CONTENT_ACTION_DEFINITIONS) {
      expect(definition.hints.usesAi).toBe(true);
      expect(definition.paramsSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(() => ajv.compile(definition.paramsSchema)).not.toThrow();
    }
  });

  it('refuse unknown params and oversized strings', () => {
    const ajv = new Ajv({ strict: true, allowUnionTypes: true, strictRequired: false });
    const validate = ajv.compile(evaluateAnswer.paramsSchema);
    expect(validate({ expected: ['Paris'], deliver: 'object' })).toBe(true);
    expect(validate({ surprise: 1 })).toBe(false);
    expect(validate({ text: 'x'.repeat(2_001) })).toBe(false);
    expect(validate({ keywords: Array.from({ length: 101 }, () => 'a') })).toBe(false);
  });

  it('pass the engine its own params only, never the delivery params', async () => {
    const { context, requests } = harness({ subject: answer });
    await run(evaluateAnswer, { expected: 'Paris', deliver: 'none', notifyTeacher: false }, context);
    expect(requests[0]?.params).toEqual({ expected: 'Paris' });
    expect(requests[0]?.subject).toBe(answer);
  });
});

describe('evaluate_answer', () => {
  it('puts a feedback object beside the answer, with the score', async () => {
    const { context, objects } = harness({ subject: answer });
    const outcome = await run(evaluateAnswer, { expected: 'paris' }, context);
    const [feedback] = objects.created();
    expect(feedback).toMatchObject({ type: 'feedback', position: besideAnswer, data: { score: 1, correct: true, answerId: 'answer' } });
    expect(feedback?.data.text).toMatch(/correct/i);
    expect(outcome.result).toMatchObject({ score: 1, correct: true, createdObjectIds: [feedback?.id] });
    expect(outcome.reasoning).toBe('The answer matches an expected answer.');
  });

  it('sends the feedback to the answer’s author instead with deliver: notification', async () => {
    const { context, objects, notifications } = harness({ subject: answer });
    await run(evaluateAnswer, { expected: 'Rome', deliver: 'notification' }, context);
    expect(objects.created()).toEqual([]);
    expect(notifications).toHaveLength(1);
    expect(notifications[0]?.recipients).toEqual({ kind: 'users', userIds: ['student-1'] });
    expect(notifications[0]?.notification).toMatchObject({ objectId: 'answer', agent: { id: AGENT, name: 'Tutor' } });
  });

  it('sends it to everyone when the author is unknown', async () => {
    const { context, notifications } = harness({ subject: { ...answer, created_by: null } });
    await run(evaluateAnswer, { deliver: 'notification' }, context);
    expect(notifications[0]?.recipients).toEqual({ kind: 'all' });
  });

  it('tells the hosts the score with notifyTeacher', async () => {
    const { context, objects, notifications } = harness({ subject: note('a2', 'Lyon') });
    await run(evaluateAnswer, { expected: 'Paris', notifyTeacher: true }, context);
    expect(objects.created()).toHaveLength(1);
    expect(notifications).toEqual([
      { recipients: { kind: 'hosts' }, notification: expect.objectContaining({ message: expect.stringContaining('scored 0%') }) },
    ]);
  });

  it('only logs with deliver: none', async () => {
    const { context, objects, notifications } = harness({ subject: answer });
    const outcome = await run(evaluateAnswer, { expected: 'Paris', deliver: 'none' }, context);
    expect(objects.calls).toEqual([]);
    expect(notifications).toEqual([]);
    expect(outcome.result).toMatchObject({ correct: true, createdObjectIds: [] });
  });

  it('refuses without an object or text, and evaluates params.text', async () => {
    const { context } = harness();
    await expect(evaluateAnswer.sanitize({ expected: 'Paris' }, context)).rejects.toThrow(ActionRefusal);
    const outcome = await run(evaluateAnswer, { text: 'paris', expected: 'Paris', deliver: 'none' }, context);
    expect(outcome.result).toMatchObject({ correct: true });
  });

  it('reads the object named by objectId', async () => {
    const { context } = harness({ objects: [answer] });
    const outcome = await run(evaluateAnswer, { objectId: 'answer', expected: 'Paris' }, context);
    expect(outcome.result).toMatchObject({ correct: true });
    await expect(run(evaluateAnswer, { objectId: 'missing' }, context)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('lets a refused write propagate', async () => {
    const { context, objects } = harness({ subject: answer });
    objects.refusals = [{ operation: 'add', call: 1, error: errors.forbidden('The position lies in a zone this caller may not write') }];
    await expect(run(evaluateAnswer, { expected: 'Paris' }, context)).rejects.toMatchObject({ kind: 'forbidden' });
  });
});

describe('generate_hint', () => {
  it('gives more direct hints for the same object, counted in memory', async () => {
    const { context, objects } = harness({ subject: note('q', 'I am not sure') });
    const levels: unknown[] = [];
    for (let hint = 0; hint < 4; hint += 1) levels.push((await run(generateHint, { expected: 'chlorophyll' }, context)).result.level);
    expect(levels).toEqual([1, 2, 3, 3]);
    expect(context.memory.hintsGiven).toEqual({ q: 4 });
    const notes = objects.created();
    expect(notes.map(({ data }) => data.level)).toEqual([1, 2, 3, 3]);
    expect(notes[0]).toMatchObject({ type: 'sticky_note', data: { hintFor: 'q' } });
    expect(notes[0]?.data.text).not.toMatch(/chlorophyll/i);
    expect(notes[2]?.data.text).toMatch(/chlorophyll/);
  });

  it('takes an explicit level, and counts hints per object', async () => {
    const { context } = harness({ subject: note('q', 'hmm'), agent: { memory: { hintsGiven: { other: 2 } } } });
    const outcome = await run(generateHint, { level: 3, expected: 'chlorophyll' }, context);
    expect(outcome.result).toMatchObject({ level: 3, hint: expect.stringContaining('chlorophyll') });
    expect(context.memory.hintsGiven).toEqual({ other: 2, q: 1 });
  });

  it('sends the hint to the author with deliver: notification; deliver: none counts nothing', async () => {
    const { context, objects, notifications } = harness({ subject: note('q', 'hmm') });
    await run(generateHint, { deliver: 'notification' }, context);
    expect(objects.created()).toEqual([]);
    expect(notifications[0]?.recipients).toEqual({ kind: 'users', userIds: ['student-1'] });
    await run(generateHint, { deliver: 'none' }, context);
    expect(context.memory.hintsGiven).toEqual({ q: 1 });
  });

  it('refuses without an object or text', async () => {
    await expect(generateHint.sanitize({}, harness().context)).rejects.toThrow(ActionRefusal);
  });
});

describe('summarize', () => {
  const board = [
    note('n1', 'Solar power is cheap. Wind power is growing.'),
    note('n2', 'Solar power needs storage.'),
    note('n3', 'Wind power works at night.'),
  ];

  it('writes the summary and its points as a note at params.position', async () => {
    const { context, objects } = harness({ objects: board });
    const outcome = await run(summarize, { position: { x: 5, y: 6 }, maxPoints: 2 }, context);
    const [summary] = objects.created();
    expect(summary).toMatchObject({ type: 'sticky_note', position: { x: 5, y: 6 } });
    const lines = String(summary?.data.text).split('\n');
    expect(lines[0]).toMatch(/^3 notes; recurring themes: .*power/);
    expect(lines.slice(1)).toHaveLength(2);
    expect(lines.slice(1).every((line) => line.startsWith('• '))).toBe(true);
    expect(outcome.result).toMatchObject({ createdObjectIds: [summary?.id] });
  });

  it('leaves the agent’s own notes out of what it summarizes', async () => {
    const own = note('mine', 'Earlier summary about power', { x: 0, y: 0 }, { created_by: agentUserId(AGENT) });
    const { context, requests } = harness({ objects: [...board, own] });
    await run(summarize, { deliver: 'none' }, context);
    expect(requests[0]?.objects.map(({ id }) => id)).toEqual(['n1', 'n2', 'n3']);
  });

  it('tells the hosts with deliver: notification', async () => {
    const { context, objects, notifications } = harness({ objects: board });
    await run(summarize, { deliver: 'notification' }, context);
    expect(objects.created()).toEqual([]);
    expect(notifications[0]).toMatchObject({ recipients: { kind: 'hosts' }, notification: { title: 'Summary' } });
  });
});

describe('cluster_similar', () => {
  const board = [
    note('s1', 'solar panels energy', { x: 500, y: 400 }),
    note('w1', 'wind turbines farm', { x: 900, y: 300 }),
    note('s2', 'solar energy panels cheap', { x: 700, y: 900 }),
    note('w2', 'wind farm turbines offshore', { x: 600, y: 350 }),
    note('x', 'lunch menu', { x: 0, y: 2_000 }),
  ];

  it('arranges each cluster in a labelled column from the clusters’ top-left', async () => {
    const { context, objects } = harness({ objects: board });
    const outcome = await run(clusterSimilar, {}, context);
    const at = (id: string) => objects.store.get(id)?.position;
    expect([at('s1'), at('s2')]).toEqual([{ x: 500, y: 300 }, { x: 500, y: 520 }]);
    expect([at('w1'), at('w2')]).toEqual([{ x: 760, y: 300 }, { x: 760, y: 520 }]);
    expect(at('x')).toEqual({ x: 0, y: 2_000 });
    const labels = objects.created();
    expect(labels.map(({ type, position }) => ({ type, position }))).toEqual([
      { type: 'text', position: { x: 500, y: 240 } },
      { type: 'text', position: { x: 760, y: 240 } },
    ]);
    expect(labels[0]?.data.text).toMatch(/solar|panels|energy/);
    expect(outcome.result).toMatchObject({ movedObjectIds: ['s1', 's2', 'w1', 'w2'], createdObjectIds: labels.map(({ id }) => id) });
  });

  it('starts at params.origin', async () => {
    const { context, objects } = harness({ objects: board });
    await run(clusterSimilar, { origin: { x: 0, y: 0 } }, context);
    expect(objects.store.get('w2')?.position).toEqual({ x: 260, y: 220 });
  });

  it('only labels the clusters with deliver: labels, and only logs with none', async () => {
    const labelled = harness({ objects: board });
    await run(clusterSimilar, { deliver: 'labels' }, labelled.context);
    expect(labelled.objects.calls.map(({ operation }) => operation)).toEqual(['add', 'add']);
    expect(labelled.objects.created().map(({ position }) => position)).toEqual([{ x: 500, y: 340 }, { x: 900, y: 240 }]);
    const quiet = harness({ objects: board });
    const outcome = await run(clusterSimilar, { deliver: 'none' }, quiet.context);
    expect(quiet.objects.calls).toEqual([]);
    expect((outcome.result.clusters as unknown[]).length).toBe(2);
  });

  it('reports what it moved when a move is refused midway', async () => {
    const { context, objects } = harness({ objects: board });
    objects.refusals = [{ operation: 'update', call: 2, error: errors.conflict('The new position lies in another zone') }];
    const failure = run(clusterSimilar, {}, context);
    await expect(failure).rejects.toBeInstanceOf(AppError);
    await expect(failure).rejects.toMatchObject({ kind: 'conflict', message: expect.stringContaining('moved 1 object(s) and created 0 label(s) before (s1)') });
  });
});

describe('check_sentiment', () => {
  const rude = note('rude', 'You are stupid', { x: 10, y: 10 });

  it('tells the hosts about a flagged object, naming it and why', async () => {
    const { context, objects, notifications } = harness({ subject: rude });
    const outcome = await run(checkSentiment, {}, context);
    expect(outcome.result).toMatchObject({ flagged: true, handled: null });
    expect(objects.calls).toEqual([]);
    expect(notifications).toHaveLength(1);
    expect(notifications[0]?.recipients).toEqual({ kind: 'hosts' });
    expect(notifications[0]?.notification).toMatchObject({ level: 'warning', title: 'Flagged content', objectId: 'rude' });
    expect(notifications[0]?.notification.message).toMatch(/"You are stupid" \(sticky_note rude\): abusive language: stupid/);
  });

  it('removes or locks a flagged object when asked', async () => {
    const removing = harness({ subject: rude });
    await run(checkSentiment, { deleteFlagged: true, lockFlagged: true }, removing.context);
    expect(removing.objects.store.has('rude')).toBe(false);
    expect(removing.notifications[0]?.notification.message).toMatch(/removed it/);
    const locking = harness({ subject: rude });
    const outcome = await run(checkSentiment, { lockFlagged: true, deliver: 'none' }, locking.context);
    expect(locking.objects.store.get('rude')?.locked).toBe(true);
    expect(locking.notifications).toEqual([]);
    expect(outcome.result).toMatchObject({ handled: 'locked' });
  });

  it('flags blocked words, notifies on a negative tone, and leaves a kind note alone', async () => {
    const blocked = harness({ subject: note('b', 'I copied this from chatgpt') });
    expect((await run(checkSentiment, { blockedWords: ['chatgpt'] }, blocked.context)).result).toMatchObject({ flagged: true });
    const negative = harness({ subject: note('n', 'This is terrible and awful') });
    await run(checkSentiment, {}, negative.context);
    expect(negative.notifications[0]?.notification.title).toBe('Negative tone');
    const kind = harness({ subject: note('k', 'What a great and helpful idea') });
    await run(checkSentiment, { deleteFlagged: true }, kind.context);
    expect(kind.notifications).toEqual([]);
    expect(kind.objects.calls).toEqual([]);
  });

  it('refuses without an object or text', async () => {
    await expect(checkSentiment.sanitize({}, harness().context)).rejects.toThrow(ActionRefusal);
  });
});

describe('generate_content', () => {
  it('creates each generated object at origin plus its position', async () => {
    const { context, objects } = harness();
    const outcome = await run(generateContent, { prompt: 'alpha\nbeta\ngamma', style: 'list', origin: { x: 1_000, y: 50 } }, context);
    const created = objects.created();
    expect(created.map(({ data, position }) => ({ text: data.text, position }))).toEqual([
      { text: 'alpha', position: { x: 1_000, y: 50 } },
      { text: 'beta', position: { x: 1_000, y: 150 } },
      { text: 'gamma', position: { x: 1_000, y: 250 } },
    ]);
    expect(outcome.result).toMatchObject({ createdObjectIds: created.map(({ id }) => id) });
  });

  it('starts beside the event’s object, from its text when there is no prompt', async () => {
    const { context, objects } = harness({ subject: note('topic', 'sun, wind', { x: 100, y: 100 }, { width: 200, height: 200 }) });
    await run(generateContent, {}, context);
    expect(objects.created().map(({ position }) => position)).toEqual([besideAnswer, { x: 540, y: 120 }]);
  });

  it('stops at the first refused object and says what it created', async () => {
    const { context, objects } = harness();
    objects.refusals = [{ operation: 'add', call: 3, error: errors.forbidden('The position lies in a zone this caller may not write') }];
    const failure = run(generateContent, { prompt: '5 ideas about recycling' }, context);
    await expect(failure).rejects.toMatchObject({ kind: 'forbidden', message: expect.stringContaining('created 2 of 5 object(s) before (new-1, new-2)') });
    expect(objects.created()).toHaveLength(2);
  });

  it('refuses without a prompt, text or object; only logs with deliver: none', async () => {
    const { context, objects } = harness();
    await expect(generateContent.sanitize({ style: 'grid' }, context)).rejects.toThrow(ActionRefusal);
    const outcome = await run(generateContent, { prompt: 'a, b', deliver: 'none' }, context);
    expect(objects.calls).toEqual([]);
    expect((outcome.result.objects as unknown[]).length).toBe(2);
  });
});

describe('validate_design', () => {
  const overlapping = [note('a', 'one', { x: 0, y: 0 }, { width: 100, height: 100 }), note('b', 'two', { x: 50, y: 50 }, { width: 100, height: 100 })];

  it('tells the hosts the issues of an invalid design', async () => {
    const { context, notifications } = harness({ objects: overlapping });
    const outcome = await run(validateDesign, {}, context);
    expect(outcome.result).toMatchObject({ valid: false, notified: 1 });
    expect(notifications[0]?.recipients).toEqual({ kind: 'hosts' });
    expect(notifications[0]?.notification).toMatchObject({ level: 'warning', title: 'Design check', message: '1 issue(s):\n• Overlaps b. (a)' });
  });

  it('stays quiet for a valid design, and with deliver: none', async () => {
    const valid = harness({ objects: overlapping });
    expect((await run(validateDesign, { rules: { minObjects: 2 } }, valid.context)).result).toMatchObject({ valid: true });
    const quiet = harness({ objects: overlapping });
    await run(validateDesign, { rules: { requiredTypes: ['image'] }, deliver: 'none' }, quiet.context);
    expect([...valid.notifications, ...quiet.notifications]).toEqual([]);
  });

  it('reads at most 200 objects of the scope', async () => {
    const many = Array.from({ length: 250 }, (_, index) => note(`o${index}`, 'x', { x: index * 300, y: 0 }));
    const { context, requests } = harness({ objects: many });
    await run(validateDesign, { deliver: 'none' }, context);
    expect(requests[0]?.objects).toHaveLength(200);
  });
});
