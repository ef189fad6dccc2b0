import type { BoardPlacement, Placement } from '../objects/placement.js';
import { frameIdOfDocument, zoneDocumentName } from '../store/documentNames.js';
import type { Frame } from './frame.js';
import { isForbiddenWrite, placementOf, type ObjectWrite, type Point, type WriteTarget } from './writeRules.js';
import { zoneAccess, type Viewer } from './zonePermissions.js';

/**
 * The zone rules of one board for one viewer over one read of its frames (objects/placement.ts):
 * REST object calls, agents and component storage decide through it, and the socket write check
 * finds a document's write target with the same `writeTargetOfDocument`, so both decide alike.
 */
export class ZonePlacement implements BoardPlacement {
  readonly readable: readonly Placement[];

  constructor(
    private readonly boardId: string,
    private readonly viewer: Viewer,
    private readonly frames: Frame[],
  ) {
    const zones = frames.filter((frame) => zoneAccess(frame, viewer) !== 'none');
    this.readable = [{ document: boardId, zoneId: null }, ...zones.map((frame) => this.zonePlacement(frame))];
  }

  placeAt(point: Point): Placement | null {
    const target = placementOf(this.viewer, point, this.frames);
    if (!target) return null;
    return target.kind === 'board' ? { document: this.boardId, zoneId: null } : this.zonePlacement(target.frame);
  }

  mayWrite(document: string, write: ObjectWrite): boolean {
    const target = writeTargetOfDocument(document, this.frames);
    if (!target) return false;
    if (target.kind === 'zone' && zoneAccess(target.frame, this.viewer) !== 'write') return false;
    return !isForbiddenWrite(this.viewer, target, write);
  }

  private zonePlacement(frame: Frame): Placement {
    return { document: zoneDocumentName(this.boardId, frame.id), zoneId: frame.id };
  }
}

/** The document a write to `document` lands in: the board's own (with its zones), a zone's, or null for a frame gone. */
export function writeTargetOfDocument(document: string, frames: Frame[]): WriteTarget | null {
  const frameId = frameIdOfDocument(document);
  if (!frameId) return { kind: 'board', zones: frames };
  const frame = frames.find((candidate) => candidate.id === frameId);
  return frame ? { kind: 'zone', frame } : null;
}
