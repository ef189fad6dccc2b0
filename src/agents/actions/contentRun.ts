import type { BoardObject } from '../../boards/boardObjects.js';
import { agentUserId } from '../agent.js';
import { MAX_CONTEXT_OBJECTS, type ContentActionType, type ContentOutputOf } from '../content/contentTypes.js';
import type { ActionContext } from './action.js';
import { objectsInScope } from './boardActions.js';

/** Params that say where a result lands: the engine never sees them. */
const DELIVERY_PARAMS = new Set(['objectId', 'deliver', 'notifyTeacher', 'position', 'origin', 'deleteFlagged', 'lockFlagged']);

interface ContentRun<A extends ContentActionType> {
  output: ContentOutputOf<A>;
  reasoning: string;
  subject: BoardObject | null;
  objects: BoardObject[];
}

/**
 * Runs the engine on the subject and the scope's objects. `withoutOwn` leaves out what this
 * agent created, so a summary or a cluster label does not feed the next summary or clustering.
 */
export async function runContent<A extends ContentActionType>(
  action: A,
  params: Record<string, unknown>,
  context: ActionContext,
  options: { withoutOwn?: boolean } = {},
): Promise<ContentRun<A>> {
  const subject = await subjectOf(params, context);
  const own = agentUserId(context.agent.id);
  const inScope = await objectsInScope(context);
  const objects = (options.withoutOwn ? inScope.filter((object) => object.created_by !== own) : inScope).slice(0, MAX_CONTEXT_OBJECTS);
  const engineParams = Object.fromEntries(Object.entries(params).filter(([key]) => !DELIVERY_PARAMS.has(key)));
  const { output, reasoning } = await context.content({ action, params: engineParams, subject, objects });
  if (output.action !== action) throw new Error(`The content engine answered ${output.action} to ${action}`);
  return { output: output as ContentOutputOf<A>, reasoning, subject, objects };
}

/** The object named by `objectId` (sanitize fills it from the event), else the event's object. */
async function subjectOf(params: Record<string, unknown>, context: ActionContext): Promise<BoardObject | null> {
  const eventObject = context.event?.object ?? null;
  if (typeof params.objectId !== 'string' || params.objectId === eventObject?.id) return eventObject;
  return context.objects.get(context.caller, context.agent.boardId, params.objectId);
}
