import { PLANS, type Plan } from './plans.js';

/** JSON schemas of the operator's admin API for organizations, checked at the edge by ajv (users: users/schemas.ts). */
export const createOrganizationSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    plan: { type: 'string', enum: [...PLANS] },
  },
};

export const changePlanSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['plan'],
  properties: { plan: { type: 'string', enum: [...PLANS] } },
};

export interface CreateOrganizationInput {
  name: string;
  plan?: Plan;
}

export interface ChangePlanInput {
  plan: Plan;
}
