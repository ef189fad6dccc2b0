import type { Frame } from './frame.js';
import { contains, isActiveZone, isZone, type Viewer } from './zonePermissions.js';

/** A point in board pixels. */
export interface Point {
  x: number;
  y: number;
}

/** One object write: where the object was and where it ends up (null = gone or unknown). */
export interface ObjectWrite {
  before: Point | null;
  after: Point | null;
}

/** The document a write lands in: the board's own, or a zone's. */
export type WriteTarget = { kind: 'board'; zones: Frame[] } | { kind: 'zone'; frame: Frame };

/**
 * Edit rights on board objects (SPEC "Zone permissions"), the same for REST and sockets.
 * Only the host writes anything anywhere. In the board document, the area of every active
 * zone is reserved: its content lives in the zone's own document, so nobody else may put,
 * move, change or remove an object there. In a zone document the owner works only inside
 * the zone's bounds; an unassigned frame's document is everyone's.
 */
export function isForbiddenWrite(viewer: Viewer, target: WriteTarget, write: ObjectWrite): boolean {
  if (viewer.role === 'host') return false;
  switch (target.kind) {
    case 'board': {
      const zones = target.zones.filter(isActiveZone);
      const inZone = (point: Point | null) => point !== null && zones.some((zone) => contains(zone.bounds, point));
      return inZone(write.before) || inZone(write.after);
    }
    case 'zone':
      return isZone(target.frame) && write.after !== null && !contains(target.frame.bounds, write.after);
  }
}
