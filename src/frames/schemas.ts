import { MAX_COORDINATE } from '../boards/schemas.js';
import { FRAME_VISIBILITIES, LOCK_MODES, ZONE_VISIBILITIES } from './frame.js';

/** Most assignments one bulk-assign request may carry. */
export const MAX_BULK_ASSIGNMENTS = 50;
/** Largest frame `order`: the column is a 32-bit integer on PostgreSQL. */
export const MAX_FRAME_ORDER = 2_147_483_647;

const id = { type: 'string', minLength: 1, maxLength: 255 };
/** Board coordinates and sizes stay well inside what a double holds exactly and what a client can draw. */
const coordinate = { type: 'number', minimum: -MAX_COORDINATE, maximum: MAX_COORDINATE };
const extent = { type: 'number', minimum: 100, maximum: MAX_COORDINATE };
const color = { type: ['string', 'null'], pattern: '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$' };
const fields = {
  name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' },
  order: { type: 'integer', minimum: 0, maximum: MAX_FRAME_ORDER },
  bounds_x: coordinate,
  bounds_y: coordinate,
  bounds_width: extent,
  bounds_height: extent,
  lock_mode: { type: 'string', enum: [...LOCK_MODES] },
  background_color: color,
  visibility: { type: 'string', enum: [...FRAME_VISIBILITIES] },
  zone_visibility: { type: 'string', enum: [...ZONE_VISIBILITIES] },
};

export const createFrameSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    ...fields,
    parent_frame_id: { type: ['string', 'null'], maxLength: 255 },
    assigned_participant_id: { type: ['string', 'null'], maxLength: 255 },
    assigned_user_id: { type: ['string', 'null'], maxLength: 255 },
  },
};

export const updateFrameSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: fields,
};

export const cloneFrameSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    offsetX: coordinate,
    offsetY: coordinate,
    name: fields.name,
  },
};

const assignment = {
  type: 'object',
  additionalProperties: false,
  properties: { participant_id: id, user_id: id },
  anyOf: [{ required: ['participant_id'] }, { required: ['user_id'] }],
};

export const assignSchema = assignment;

export const bulkAssignSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['assignments'],
  properties: {
    /** Answer each assigned user's personal link (created where missing). */
    issue_links: { type: 'boolean' },
    assignments: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_BULK_ASSIGNMENTS,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['frame_id'],
        properties: { frame_id: id, participant_id: id, user_id: id },
        anyOf: [{ required: ['participant_id'] }, { required: ['user_id'] }],
      },
    },
  },
};

export const listFramesQuerySchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    includeArchived: { type: 'boolean', default: false },
    assigned: { type: 'boolean' },
  },
};

export interface FrameFieldsInput {
  name?: string;
  order?: number;
  bounds_x?: number;
  bounds_y?: number;
  bounds_width?: number;
  bounds_height?: number;
  lock_mode?: (typeof LOCK_MODES)[number];
  background_color?: string | null;
  visibility?: (typeof FRAME_VISIBILITIES)[number];
  zone_visibility?: (typeof ZONE_VISIBILITIES)[number];
}

export interface CreateFrameInput extends FrameFieldsInput {
  name: string;
  parent_frame_id?: string | null;
  assigned_participant_id?: string | null;
  assigned_user_id?: string | null;
}

export interface AssignInput {
  participant_id?: string;
  user_id?: string;
}

export interface BulkAssignInput {
  issue_links?: boolean;
  assignments: Array<AssignInput & { frame_id: string }>;
}
