import type { Frame } from './frame.js';
import { contains, isActiveZone, isZone, zoneAccess, type Viewer } from './zonePermissions.js';

/** A point in board pixels. */
export interface Point {
  x: number;
  y: number;
}

/** One object write: where the object was and where it ends up (null = gone or unknown). */
export interface ObjectWrite {
  before: Point | null;
  after: Point | null;
  /** The object was locked (`lock_objects`) before the write, or the write locks or unlocks it. */
  touchesLock?: boolean;
}

/** The document a write lands in: the board's own, or a zone's. */
export type WriteTarget = { kind: 'board'; zones: Frame[] } | { kind: 'zone'; frame: Frame };

/**
 * The active zone whose area holds `point`, or null: the one rule of where content lives
 * (content inside a zone's bounds lives in the zone's document, whoever writes it: docs/frames-and-zones.md).
 * Zones never overlap, but two may share an edge: the older one takes the edge.
 */
export function zoneAt(point: Point, frames: readonly Frame[]): Frame | null {
  let zone: Frame | null = null;
  for (const frame of frames) {
    if (!isActiveZone(frame) || !contains(frame.bounds, point)) continue;
    if (!zone || olderFirst(frame, zone) < 0) zone = frame;
  }
  return zone;
}

function olderFirst(a: Frame, b: Frame): number {
  return a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id);
}

/** The document content at `point` belongs in: its zone's, if it lies in one, else the board's. */
function documentAt(point: Point, frames: Frame[]): WriteTarget {
  const zone = zoneAt(point, frames);
  return zone ? { kind: 'zone', frame: zone } : { kind: 'board', zones: frames };
}

/**
 * Where a new object placed at `point` by `viewer` goes (REST and agents), or null when the
 * viewer may not write there: a zone's document takes it from whoever may write the zone.
 */
export function placementOf(viewer: Viewer, point: Point, frames: Frame[]): WriteTarget | null {
  const target = documentAt(point, frames);
  if (target.kind === 'zone' && zoneAccess(target.frame, viewer) !== 'write') return null;
  return isForbiddenWrite(viewer, target, { before: null, after: point }) ? null : target;
}

/**
 * Edit rights on board objects (docs/frames-and-zones.md), the same for REST and sockets.
 * In the board document, the area of every active zone holds no content: it lives in the
 * zone's own document. Nobody puts an object there nor changes one lying there (hosts
 * included); a guest may not even remove or move out what an earlier version left there,
 * the host may. In a zone document the host writes anywhere, the owner only inside the
 * zone's bounds; an unassigned frame's document is everyone's.
 */
export function isForbiddenWrite(viewer: Viewer, target: WriteTarget, write: ObjectWrite): boolean {
  const host = viewer.role === 'host';
  // A locked object is the host's: guests neither change it nor lock or unlock anything.
  if (!host && write.touchesLock) return true;
  if (viewer.confinedTo && !isWithinConfinement(viewer.confinedTo, target, write)) return true;
  switch (target.kind) {
    case 'board': {
      const inZone = (point: Point | null) => point !== null && zoneAt(point, target.zones) !== null;
      return inZone(write.after) || (!host && inZone(write.before));
    }
    case 'zone':
      return !host && isZone(target.frame) && write.after !== null && !contains(target.frame.bounds, write.after);
  }
}

/** Whether a write stays inside the frames a viewer is confined to (both where the object was and where it goes). */
function isWithinConfinement(frameIds: readonly string[], target: WriteTarget, write: ObjectWrite): boolean {
  if (target.kind === 'zone') return frameIds.includes(target.frame.id) && (write.after === null || contains(target.frame.bounds, write.after));
  const confined = target.zones.filter((frame) => frameIds.includes(frame.id));
  const inside = (point: Point | null) => point === null || confined.some((frame) => contains(frame.bounds, point));
  return inside(write.before) && inside(write.after);
}
