import { PLANS, type Plan } from './plans.js';

/** JSON schemas of the operator's admin API, checked at the edge by ajv. */
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

export const createUserSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['email', 'password', 'organizationId'],
  properties: {
    email: { type: 'string', format: 'email', maxLength: 320 },
    password: { type: 'string', minLength: 8, maxLength: 1024 },
    organizationId: { type: 'string', minLength: 1 },
    name: { type: 'string', maxLength: 255 },
  },
};

export interface CreateOrganizationInput {
  name: string;
  plan?: Plan;
}

export interface ChangePlanInput {
  plan: Plan;
}

export interface CreateUserInput {
  email: string;
  password: string;
  organizationId: string;
  name?: string;
}
