import type { Caller } from '../boards/caller.js';
import type { Clock } from '../clock.js';
import type { EventBus } from '../events/bus.js';
import type { PlacedObject } from '../objects/objectService.js';
import type { Db } from '../store/database.js';
import { FREE_JSON_LIMITS, findJsonViolation, type JsonLimits } from '../util/jsonBounds.js';
import { componentOf, invalid, type ManifestResolver } from './componentStorage.js';

/** Bounds of `action_metadata`: free-form JSON, at most 16 KiB written out (it travels in every webhook). */
export const ACTION_METADATA_LIMITS: JsonLimits = { ...FREE_JSON_LIMITS, maxBytes: 16 * 1024 };

/** The body of `POST /boards/:boardId/objects/:objectId/actions`. */
export const actionInputSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['action_id'],
  properties: {
    action_id: { type: 'string', minLength: 1, maxLength: 100 },
    action_label: { type: 'string', maxLength: 200 },
    action_metadata: { type: 'object', freeJson: true },
  },
};

export interface ActionInput {
  action_id: string;
  action_label?: string;
  action_metadata?: Record<string, unknown>;
}

export interface ComponentActionsDependencies {
  /** The object lookup with the board's and the zones' rules (404 for what the caller may not see). */
  objects: { get(caller: Caller, boardId: string, objectId: string): Promise<PlacedObject> };
  manifests: ManifestResolver;
  db: Db;
  bus: Pick<EventBus, 'publish'>;
  clock: Clock;
}

/**
 * Custom actions on component objects (a vote, a quiz answer, a button): counted per object
 * and action id, and raised as `object.action`, which webhooks deliver. Anyone who may see
 * the object may act on it; the component decides what its buttons mean.
 */
export class ComponentActions {
  constructor(private readonly deps: ComponentActionsDependencies) {}

  /** Counts the action and raises `object.action`; answers this action's count on this object. */
  async perform(caller: Caller, boardId: string, objectId: string, input: ActionInput, userName: string | null): Promise<{ action_count: number }> {
    const violation = input.action_metadata === undefined ? null : findJsonViolation(input.action_metadata, ACTION_METADATA_LIMITS, ['action_metadata']);
    if (violation) throw invalid(violation);
    const object = await this.deps.objects.get(caller, boardId, objectId);
    await componentOf(object, this.deps.manifests);
    const count = await this.count(boardId, object.id, input.action_id);
    await this.deps.bus.publish('object.action', {
      board_id: boardId,
      organization_id: caller.organizationId,
      ...(object.zone_id ? { zone_id: object.zone_id } : {}),
      object_id: object.id,
      object_type: object.type,
      object_data: object.data ?? {},
      action_id: input.action_id,
      action_label: input.action_label ?? null,
      action_metadata: input.action_metadata ?? {},
      user_id: caller.userId,
      user_name: userName,
      user_role: caller.role,
      action_count: count,
      timestamp: this.deps.clock.now().toISOString(),
    });
    return { action_count: count };
  }

  /**
   * One statement, so concurrent actions (on any number of instances) each get their own
   * count, 1, 2, 3…, never a read-then-write that two could share.
   */
  private async count(boardId: string, objectId: string, actionId: string): Promise<number> {
    const rows = await this.deps.db.$queryRaw<Array<{ count: bigint | number }>>`
      INSERT INTO component_action_counts (board_id, object_id, action_id, count)
      VALUES (${boardId}, ${objectId}, ${actionId}, 1)
      ON CONFLICT (board_id, object_id, action_id)
      DO UPDATE SET count = component_action_counts.count + 1
      RETURNING count`;
    return Number(rows[0]!.count);
  }
}
