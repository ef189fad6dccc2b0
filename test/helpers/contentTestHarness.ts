import type { BoardObject } from '../../src/boards/boardObjects.js';
import type { PlacedObject } from '../../src/objects/objectService.js';
import type { ObjectInput, ObjectPatch } from '../../src/boards/schemas.js';
import { errors, type AppError } from '../../src/errors.js';
import type { Frame } from '../../src/frames/frame.js';
import { agentUserId, type Agent } from '../../src/agents/agent.js';
import type { ContentRequest } from '../../src/agents/content/contentTypes.js';
import { createRuleEngine } from '../../src/agents/content/ruleEngine.js';
import type { AgentNotification, Recipients, TriggerEvent } from '../../src/agents/ports.js';
import type { ActionContext, ActionDefinition } from '../../src/agents/actions/action.js';

/**
 * What the content actions' tests share: an in-memory board behind the agent's ports, the
 * rule engine as its content engine, and a run that sanitizes then applies as the runtime does.
 */

const BOARD = 'board-1';
export const AGENT = 'agent-1';

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

export function harness(options: { objects?: BoardObject[]; subject?: BoardObject | null; frames?: Frame[]; agent?: Partial<Agent> } = {}): Harness {
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

export function note(id: string, text: string, position = { x: 0, y: 0 }, extra: Partial<BoardObject> = {}): BoardObject {
  return { id, type: 'sticky_note', data: { text }, position, created_at: '2026-01-01T00:00:00.000Z', created_by: 'student-1', ...extra };
}

/** Sanitize then apply, as the runtime does. */
export async function run(definition: ActionDefinition, params: Record<string, unknown>, context: ActionContext) {
  return definition.apply(await definition.sanitize(params, context), context);
}

/** A sized answer note, so an object put beside it has one expected place: `besideAnswer`. */
export const answer = note('answer', 'Paris', { x: 100, y: 100 }, { width: 200, height: 200 });
export const besideAnswer = { x: 320, y: 120 };
