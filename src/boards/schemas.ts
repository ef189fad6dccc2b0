/**
 * JSON schemas of the Boards API, one per route, checked at the edge by ajv.
 * Unknown fields are refused (400) so a typo such as `expires_in_hour` is not silently ignored.
 */
export const BOARD_STATUSES = ['active', 'archived', 'expired'] as const;
export type BoardStatus = (typeof BOARD_STATUSES)[number];

/** Longest lifetime a board can be given, in hours (10 years). */
export const MAX_EXPIRES_IN_HOURS = 87_600;
/** Most objects one create request may carry. */
export const MAX_INITIAL_OBJECTS = 5_000;

/**
 * Largest absolute board coordinate or size, in pixels. Every number the API stores is
 * bounded so the database and JavaScript both hold it exactly (a billion pixels is far
 * beyond any canvas; a frame moved by it still stays within a double's exact integers).
 */
export const MAX_COORDINATE = 1_000_000_000;
/** Longest cache a data provider may ask for: one year, in seconds. */
export const MAX_CACHE_TTL_SECONDS = 31_536_000;

const coordinate = { type: 'number', minimum: -MAX_COORDINATE, maximum: MAX_COORDINATE };
const size = { type: 'number', minimum: 0, maximum: MAX_COORDINATE };
const httpUrl = { type: 'string', format: 'uri', pattern: '^https?://', maxLength: 2048 };
/** A free-form object that may enter the board's live document (an object's `data`): bounded like every document value (util/ajvKeywords.ts). */
const documentObject = { type: 'object', freeJson: true };
/** A free-form object kept in the board's record (`external_data`, `props`…): only the request body bounds its size. */
const storedObject = { type: 'object', freeJson: 'stored' };

const position = {
  type: 'object',
  additionalProperties: false,
  required: ['x', 'y'],
  properties: { x: coordinate, y: coordinate },
};

const component = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: {
    type: { type: 'string', minLength: 1, maxLength: 255 },
    url: { type: 'string', maxLength: 2048 },
    version: { type: 'string', maxLength: 64 },
    props: storedObject,
  },
};

/**
 * Every access check reads a board's config (its participant cap, whether anonymous guests may
 * join), so the whole of it, pinned components' `props` included, is bounded like a document
 * value (1 MiB as JSON); only `external_data` and the tutorial fields may fill the body.
 */
const config = {
  type: 'object',
  freeJson: true,
  additionalProperties: false,
  properties: {
    max_participants: { type: 'integer', minimum: 1, maximum: 100_000 },
    allow_anonymous: { type: 'boolean' },
    components: { type: 'array', maxItems: 100, items: component },
  },
};

const dataProvider = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'webhook_url'],
  properties: {
    type: { type: 'string', enum: ['webhook'] },
    webhook_url: { type: 'string', minLength: 1, maxLength: 2048 },
    method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
    headers: { type: 'object', maxProperties: 100, additionalProperties: { type: 'string', maxLength: 8_192 } },
    cache_ttl: { type: 'number', minimum: 0, maximum: MAX_CACHE_TTL_SECONDS },
  },
};

/** An object as sent by a client: type, data and position are required. */
export const objectInputSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'data', 'position'],
  properties: {
    type: { type: 'string', minLength: 1, maxLength: 100 },
    data: documentObject,
    position,
    width: size,
    height: size,
  },
};

/** `PATCH /boards/<id>/objects/<object_id>`: the fields that change (`data` is replaced whole). */
export const objectPatchSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { data: documentObject, position, width: size, height: size, locked: { type: 'boolean' } },
};

const title = { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' };
const expiresInHours = { type: 'number', exclusiveMinimum: 0, maximum: MAX_EXPIRES_IN_HOURS };

export const createBoardSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['title'],
  properties: {
    title,
    external_id: { type: 'string', maxLength: 255 },
    owner_external_id: { type: 'string', maxLength: 255 },
    expires_in_hours: expiresInHours,
    config,
    initial_objects: { type: 'array', maxItems: MAX_INITIAL_OBJECTS, items: objectInputSchema },
    webhook_url: httpUrl,
    external_data: storedObject,
    is_sandbox: { type: 'boolean' },
    mock_external_data: storedObject,
    data_provider: dataProvider,
  },
};

export const updateBoardSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    title,
    expires_in_hours: expiresInHours,
    webhook_url: { anyOf: [httpUrl, { type: 'null' }] },
    config,
  },
};

export const listBoardsQuerySchema = {
  type: 'object',
  additionalProperties: true,
  properties: { status: { type: 'string', enum: [...BOARD_STATUSES] } },
};

export const byOwnerQuerySchema = {
  type: 'object',
  additionalProperties: true,
  required: ['externalId'],
  properties: { externalId: { type: 'string', minLength: 1, maxLength: 255 } },
};

export const getBoardQuerySchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    includeObjects: { type: 'boolean', default: true },
    includeParticipants: { type: 'boolean', default: false },
  },
};

/** `GET /boards/<id>/elements`: page size as for the API's other lists (delivery log, action log). */
export const ELEMENTS_DEFAULT_LIMIT = 50;
export const ELEMENTS_MAX_LIMIT = 200;
/** Largest `offset`: far past any board's object count, and an exact integer everywhere. */
export const ELEMENTS_MAX_OFFSET = 1_000_000_000;

/**
 * `limit` and `offset` have no schema default: the service must tell "not given" from "given",
 * since with `pagination=false` giving either is refused rather than ignored.
 */
export const listElementsQuerySchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: ELEMENTS_MAX_LIMIT },
    offset: { type: 'integer', minimum: 0, maximum: ELEMENTS_MAX_OFFSET },
    pagination: { type: 'boolean', default: true },
  },
};

/** The query of `GET /boards/<id>/elements` once validated. */
export interface ElementsQuery {
  limit?: number;
  offset?: number;
  /** false: every element as a plain array; true (default): one page with its `pagination`. */
  pagination: boolean;
}

export interface ObjectInput {
  type: string;
  data: Record<string, unknown>;
  position: { x: number; y: number };
  width?: number;
  height?: number;
}

export interface ObjectPatch {
  /** Host only: a locked object refuses guests' changes. */
  locked?: boolean;
  data?: Record<string, unknown>;
  position?: { x: number; y: number };
  width?: number;
  height?: number;
}

export interface BoardConfigInput {
  max_participants?: number;
  allow_anonymous?: boolean;
  components?: Array<{ type: string; url?: string; version?: string; props?: Record<string, unknown> }>;
}

export interface CreateBoardInput {
  title: string;
  external_id?: string;
  owner_external_id?: string;
  expires_in_hours?: number;
  config?: BoardConfigInput;
  initial_objects?: ObjectInput[];
  webhook_url?: string;
  external_data?: Record<string, unknown>;
  is_sandbox?: boolean;
  mock_external_data?: Record<string, unknown>;
  data_provider?: Record<string, unknown>;
}

export interface UpdateBoardInput {
  title?: string;
  expires_in_hours?: number;
  webhook_url?: string | null;
  config?: BoardConfigInput;
}
