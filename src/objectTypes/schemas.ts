/** JSON schemas of the object-type endpoints, checked at the edge by ajv. */

/** Longest type name: the longest `type` a board object may carry (boards/schemas.ts). */
export const MAX_TYPE_NAME_LENGTH = 100;

export const registerObjectTypeSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['typeName', 'displayName', 'category', 'schema'],
  properties: {
    typeName: { type: 'string', minLength: 1, maxLength: MAX_TYPE_NAME_LENGTH, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' },
    displayName: { type: 'string', minLength: 1, maxLength: 255 },
    category: { type: 'string', minLength: 1, maxLength: 100 },
    // Only its shape and JSON bounds here: the service screens and compiles it (objectTypes/schemaScreen.ts).
    schema: { type: 'object', freeJson: true },
  },
};

export interface RegisterObjectTypeInput {
  typeName: string;
  displayName: string;
  category: string;
  schema: Record<string, unknown>;
}
