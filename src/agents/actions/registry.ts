import { Ajv, type ValidateFunction } from 'ajv';
import type { FieldError } from '../../errors.js';
import { freeJsonKeyword } from '../../util/ajvKeywords.js';
import { lazy } from '../../util/lazy.js';
import { ACTION_TYPES, type ActionType } from '../agent.js';
import type { ActionDefinition } from './action.js';
import { createObject, deleteObject, lockObjects, moveObjects, updateObject } from './boardActions.js';
import { CONTENT_ACTION_DEFINITIONS } from './contentActions.js';
import { moveToFrame, notifyTeacher, sendNotification } from './messageActions.js';

const ajv = lazy(() => new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, strictRequired: false }).addKeyword(freeJsonKeyword));

/**
 * The one registry of agent actions: the trigger runtime, the LLM's structured output and
 * the MCP tools all find an action here, validate its params with its schema, and run it.
 */
export class ActionRegistry {
  /** Each action's params validator is compiled when an agent first uses the action. */
  private readonly definitions = new Map<ActionType, { definition: ActionDefinition; validate: () => ValidateFunction }>();

  constructor(definitions: readonly ActionDefinition[]) {
    for (const definition of definitions) {
      this.definitions.set(definition.type, { definition, validate: lazy(() => ajv().compile(definition.paramsSchema)) });
    }
    const missing = ACTION_TYPES.filter((type) => !this.definitions.has(type));
    if (missing.length > 0) throw new Error(`actions without a definition: ${missing.join(', ')}`);
  }

  get(type: ActionType): ActionDefinition {
    return this.definitions.get(type)!.definition;
  }

  all(): ActionDefinition[] {
    return [...this.definitions.values()].map(({ definition }) => definition);
  }

  /**
   * What is wrong with an action's params, each named under `field` (e.g.
   * `instructions.triggers.0.params.message`); empty when they are valid. Params may hold
   * `{{…}}` templates in strings (agents/runtime/templates.ts): checked as the strings they are.
   */
  paramsProblems(type: ActionType, params: unknown, field: string): FieldError[] {
    const validate = this.definitions.get(type)!.validate();
    if (validate(params)) return [];
    return (validate.errors ?? []).slice(0, 20).map((error) => {
      const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
      const missing = error.keyword === 'required' ? String(error.params.missingProperty) : error.keyword === 'additionalProperties' ? String(error.params.additionalProperty) : '';
      const name = [field, path, missing].filter(Boolean).join('.');
      const message = error.keyword === 'additionalProperties' ? 'is not a known parameter' : (error.message ?? 'is invalid');
      return { field: name, message };
    });
  }
}

/** Every action an agent can take (docs/agents.md), each defined once. */
export function createActionRegistry(): ActionRegistry {
  return new ActionRegistry([
    createObject,
    updateObject,
    deleteObject,
    moveObjects,
    lockObjects,
    sendNotification,
    notifyTeacher,
    moveToFrame,
    ...CONTENT_ACTION_DEFINITIONS,
  ]);
}
