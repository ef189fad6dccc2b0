import type { BoardRole } from '../boards/boardRole.js';
import type { Bounds, Frame } from './frame.js';

/** Who looks at or writes to a zone. */
export interface Viewer {
  role: BoardRole;
  userId: string | null;
  /**
   * The frames this viewer may write in, when it is confined to some (an agent's
   * `scope.frames`); absent, it writes wherever its role allows.
   */
  confinedTo?: readonly string[];
}

/** What a viewer may do with a frame's content. */
export type ZoneAccess = 'none' | 'read' | 'write';

/** A frame carrying an assignment is a zone. */
export function isZone(frame: Frame): boolean {
  return frame.assignedUserId !== null || frame.assignedParticipantId !== null;
}

/** Whether `userId` is the participant or user a zone is assigned to. */
export function isOwner(frame: Frame, userId: string | null): boolean {
  return userId !== null && (frame.assignedUserId === userId || frame.assignedParticipantId === userId);
}

/**
 * The zone rules (docs/frames-and-zones.md), in one place for REST and
 * sockets: the host reads and writes everything; on a zone, `visible` lets everyone read and
 * only the owner write, `hidden` shows it to the owner alone, `host_only` to nobody but the
 * host. A plain frame is everyone's. A hidden frame is the host's; an archived one is read-only.
 */
export function zoneAccess(frame: Frame, viewer: Viewer): ZoneAccess {
  const access = roleAccess(frame, viewer);
  // A confined viewer (an agent) reads what its role lets it read, and writes only in its frames.
  return access === 'write' && viewer.confinedTo && !viewer.confinedTo.includes(frame.id) ? 'read' : access;
}

function roleAccess(frame: Frame, viewer: Viewer): ZoneAccess {
  if (viewer.role === 'host') return 'write';
  if (frame.visibility === 'hidden') return 'none';
  const access = contentAccess(frame, viewer);
  return frame.visibility === 'archived' && access === 'write' ? 'read' : access;
}

function contentAccess(frame: Frame, viewer: Viewer): ZoneAccess {
  if (!isZone(frame)) return 'write';
  const owner = isOwner(frame, viewer.userId);
  switch (frame.zoneVisibility) {
    case 'visible':
      return owner ? 'write' : 'read';
    case 'hidden':
      return owner ? 'write' : 'none';
    case 'host_only':
      return 'none';
  }
}

/** True when two rectangles share area (touching edges do not overlap). */
export function overlaps(a: Bounds, b: Bounds): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** True when a point lies inside a rectangle (edges included). */
export function contains(bounds: Bounds, point: { x: number; y: number }): boolean {
  return point.x >= bounds.x && point.x <= bounds.x + bounds.width && point.y >= bounds.y && point.y <= bounds.y + bounds.height;
}

/** Zones that count for overlap: assigned and not archived. */
export function isActiveZone(frame: Frame): boolean {
  return isZone(frame) && frame.visibility !== 'archived';
}
