/** JSON schemas of the user endpoints: the operator's user creation and the session endpoints. */
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

export const loginSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['email', 'password'],
  properties: {
    email: { type: 'string', minLength: 1, maxLength: 320 },
    password: { type: 'string', minLength: 1, maxLength: 1024 },
  },
};

export const refreshSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['refresh_token'],
  properties: { refresh_token: { type: 'string', minLength: 1, maxLength: 256 } },
};

export interface CreateUserInput {
  email: string;
  password: string;
  organizationId: string;
  name?: string;
}

export interface LoginInput {
  email: string;
  password: string;
}

export interface RefreshInput {
  refresh_token: string;
}
