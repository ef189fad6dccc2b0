/** JSON schemas of the user session endpoints. */
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

export interface LoginInput {
  email: string;
  password: string;
}

export interface RefreshInput {
  refresh_token: string;
}
