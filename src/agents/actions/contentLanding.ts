import type { PlacedObject } from '../../objects/objectService.js';
import { MAX_COORDINATE, type ObjectInput } from '../../boards/schemas.js';
import { AppError } from '../../errors.js';
import { fitToText } from '../content/noteLayout.js';
import { truncate } from '../content/textTools.js';
import type { AgentNotification, Recipients } from '../ports.js';
import type { ActionContext } from './action.js';
import { besideSubject } from './boardActions.js';
import { MAX_TEXT } from './contentParams.js';
import { notificationOf } from './messageActions.js';

/**
 * How content actions land an answer: objects created and notifications sent through the
 * agent's context (so its zone rights apply), and errors that say how far a landing got.
 */

/** Ids an error message names when a landing stops midway. */
const MAX_LISTED_IDS = 20;

export type Point = { x: number; y: number };

/** Lands one object; a note (or other text the client draws) is sized to show its whole text. */
export function addObject(context: ActionContext, input: ObjectInput): Promise<PlacedObject> {
  return context.objects.add(context.caller, context.agent.boardId, fitToText(input), context.cause);
}

/** Lands a note beside the event's object, below those the agent put there before, sized to show its whole text. */
export async function addBeside(context: ActionContext, input: Omit<ObjectInput, 'position'>): Promise<PlacedObject> {
  const fitted = fitToText(input);
  return addObject(context, { ...fitted, position: await besideSubject(context, fitted.height) });
}

export interface NotificationParams {
  message: string;
  level: AgentNotification['level'];
  title: string;
  /** The object it is about; else the event's. */
  objectId?: string;
}

export function notify(context: ActionContext, recipients: Recipients, notification: NotificationParams): number {
  const message = truncate(notification.message, MAX_TEXT);
  return context.sockets.notify(context.agent.boardId, notificationOf({ ...notification, message }, context), recipients);
}

export function clampPoint({ x, y }: Point): Point {
  const clamp = (value: number) => Math.min(MAX_COORDINATE, Math.max(-MAX_COORDINATE, value));
  return { x: clamp(x), y: clamp(y) };
}

/** The first ids done, for an error message that must stay short. */
export function listed(ids: string[]): string {
  if (ids.length === 0) return '';
  return ` (${ids.slice(0, MAX_LISTED_IDS).join(', ')}${ids.length > MAX_LISTED_IDS ? ', …' : ''})`;
}

/**
 * A refusal midway through a multi-object landing, saying what was already done: the domain's
 * error keeps its kind (the log shows it as refused); anything else is rethrown as it was.
 */
export function withProgress(error: unknown, progress: string): unknown {
  if (!(error instanceof AppError)) return error;
  return new AppError(error.kind, `${error.message}; ${progress}`, error.details, error.extra);
}
