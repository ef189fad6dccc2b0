/** `PATCH /components/<name>/<version>`: deprecate (with a message) or undeprecate a version. */
export const deprecateSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['deprecated'],
  properties: {
    deprecated: { type: 'boolean' },
    message: { type: ['string', 'null'], maxLength: 1000 },
  },
} as const;

export interface DeprecateInput {
  deprecated: boolean;
  message?: string | null;
}
