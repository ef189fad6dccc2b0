import type { AgentNotification, Recipients } from '../ports.js';
import { ActionRefusal, type ActionContext, type ActionDefinition } from './action.js';

const LEVELS = ['info', 'success', 'warning', 'error'] as const;
const message = { type: 'string', minLength: 1, maxLength: 2_000 };
const title = { type: 'string', maxLength: 200 };
const level = { type: 'string', enum: [...LEVELS] };
/** `all`, `hosts`, `participant` (the one the event is about) or a list of user ids. */
const to = {
  anyOf: [
    { type: 'string', enum: ['all', 'hosts', 'participant'] },
    { type: 'array', minItems: 1, maxItems: 200, items: { type: 'string', minLength: 1, maxLength: 255 } },
  ],
};

const sends = { readOnly: false, destructive: false, idempotent: false, usesAi: false };

export const sendNotification: ActionDefinition = {
  type: 'send_notification',
  description: 'Shows a notification to everyone (`to: all`, the default), the hosts, the participant the event is about, or chosen user ids.',
  paramsSchema: { type: 'object', additionalProperties: false, required: ['message'], properties: { message, title, level, to, objectId: { type: 'string', maxLength: 255 } } },
  hints: sends,
  async sanitize(params, context) {
    return { ...params, recipients: recipientsOf(params.to ?? 'all', context) };
  },
  async apply(params, context) {
    const reached = context.sockets.notify(context.agent.boardId, notificationOf(params, context), params.recipients as Recipients);
    return { result: { delivered: reached, recipients: params.recipients }, reasoning: `Notified ${reached} participant(s)` };
  },
};

export const notifyTeacher: ActionDefinition = {
  type: 'notify_teacher',
  description: 'Shows a notification to the hosts (teachers) only.',
  paramsSchema: { type: 'object', additionalProperties: false, required: ['message'], properties: { message, title, level, objectId: { type: 'string', maxLength: 255 } } },
  hints: sends,
  async sanitize(params) {
    return params;
  },
  async apply(params, context) {
    const reached = context.sockets.notify(context.agent.boardId, notificationOf(params, context), { kind: 'hosts' });
    return { result: { delivered: reached }, reasoning: `Notified ${reached} host(s)` };
  },
};

export const moveToFrame: ActionDefinition = {
  type: 'move_to_frame',
  description: "Moves participants' viewports to a frame, as the host's `frame:navigate` does (`to` as for notifications, default all).",
  paramsSchema: { type: 'object', additionalProperties: false, required: ['frameId'], properties: { frameId: { type: 'string', minLength: 1, maxLength: 255 }, smooth: { type: 'boolean' }, to } },
  hints: sends,
  async sanitize(params, context) {
    const frames = await context.frames.framesOfBoard(context.agent.boardId);
    if (!frames.some((frame) => frame.id === params.frameId)) throw new ActionRefusal(`No frame ${String(params.frameId)} on this board`);
    return { ...params, smooth: params.smooth !== false, recipients: recipientsOf(params.to ?? 'all', context) };
  },
  async apply(params, context) {
    const from = `agent:${context.agent.id}`;
    const reached = context.sockets.navigate(context.agent.boardId, params.frameId as string, params.smooth as boolean, from, params.recipients as Recipients);
    return { result: { frameId: params.frameId, delivered: reached }, reasoning: `Moved ${reached} participant(s) to the frame` };
  },
};

/**
 * Who `to` names. An agent restricted to some participants (`scope.participants`) reaches
 * only those, hosts aside.
 */
export function recipientsOf(to: unknown, context: ActionContext): Recipients {
  const allowed = context.agent.scope.participants;
  let recipients: Recipients;
  if (to === 'hosts') return { kind: 'hosts' };
  if (to === 'participant') {
    const participant = context.event?.participant;
    if (!participant) throw new ActionRefusal('`to: participant` needs an event about a participant');
    recipients = { kind: 'users', userIds: [participant.user_id] };
  } else if (Array.isArray(to)) {
    recipients = { kind: 'users', userIds: to as string[] };
  } else {
    recipients = { kind: 'all' };
  }
  if (allowed.length === 0) return recipients;
  const userIds = recipients.kind === 'users' ? recipients.userIds.filter((id) => allowed.includes(id)) : allowed;
  if (userIds.length === 0) throw new ActionRefusal('None of the recipients is in the agent’s scope.participants');
  return { kind: 'users', userIds };
}

export function notificationOf(params: Record<string, unknown>, context: ActionContext): AgentNotification {
  return {
    agent: { id: context.agent.id, name: context.agent.name },
    level: (params.level as AgentNotification['level'] | undefined) ?? 'info',
    title: typeof params.title === 'string' ? params.title : null,
    message: String(params.message),
    objectId: typeof params.objectId === 'string' ? params.objectId : (context.event?.object?.id ?? null),
  };
}
