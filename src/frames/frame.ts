import type { Frame as FrameRow } from '../../generated/sqlite/index.js';

export const LOCK_MODES = ['none', 'soft', 'hard'] as const;
export const FRAME_VISIBILITIES = ['active', 'hidden', 'archived'] as const;
export const ZONE_VISIBILITIES = ['visible', 'hidden', 'host_only'] as const;

export type LockMode = (typeof LOCK_MODES)[number];
export type FrameVisibility = (typeof FRAME_VISIBILITIES)[number];
export type ZoneVisibility = (typeof ZONE_VISIBILITIES)[number];

/** What a new frame is where its creation leaves a field out. */
export const FRAME_DEFAULTS = { order: 0, x: 0, y: 0, width: 1200, height: 800, lockMode: 'none', visibility: 'active', zoneVisibility: 'visible' } as const;

/** A rectangle in board pixels. */
export interface Bounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A frame; with an assignment it is a student zone. */
export interface Frame {
  id: string;
  boardId: string;
  name: string;
  order: number;
  bounds: Bounds;
  lockMode: LockMode;
  backgroundColor: string | null;
  visibility: FrameVisibility;
  parentFrameId: string | null;
  assignedParticipantId: string | null;
  assignedUserId: string | null;
  zoneVisibility: ZoneVisibility;
  zoneVersion: number;
  createdAt: Date;
  updatedAt: Date;
}

export function frameFromRow(row: FrameRow): Frame {
  return {
    id: row.id,
    boardId: row.boardId,
    name: row.name,
    order: row.order,
    bounds: { x: row.boundsX, y: row.boundsY, width: row.boundsWidth, height: row.boundsHeight },
    lockMode: row.lockMode as LockMode,
    backgroundColor: row.backgroundColor,
    visibility: row.visibility as FrameVisibility,
    parentFrameId: row.parentFrameId,
    assignedParticipantId: row.assignedParticipantId,
    assignedUserId: row.assignedUserId,
    zoneVisibility: row.zoneVisibility as ZoneVisibility,
    zoneVersion: row.zoneVersion,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The frame record of the API. */
export function presentFrame(frame: Frame) {
  return {
    id: frame.id,
    board_id: frame.boardId,
    name: frame.name,
    order: frame.order,
    bounds_x: frame.bounds.x,
    bounds_y: frame.bounds.y,
    bounds_width: frame.bounds.width,
    bounds_height: frame.bounds.height,
    lock_mode: frame.lockMode,
    background_color: frame.backgroundColor,
    visibility: frame.visibility,
    parent_frame_id: frame.parentFrameId,
    assigned_participant_id: frame.assignedParticipantId,
    assigned_user_id: frame.assignedUserId,
    zone_visibility: frame.zoneVisibility,
    zone_version: frame.zoneVersion,
    created_at: frame.createdAt.toISOString(),
    updated_at: frame.updatedAt.toISOString(),
  };
}

export type FrameRecord = ReturnType<typeof presentFrame>;
