import type { ObjectWrite, Point } from '../frames/writeRules.js';
import type { Viewer } from '../frames/zonePermissions.js';

/**
 * The port objects ask the frames side through (implemented by frames/frameDirectory.ts, decided
 * by frames/zonePlacement.ts): where an object lives on a board and who may read or write it there.
 */

/** A document of a board, and the zone it belongs to (null: the board's own document). */
export interface Placement {
  document: string;
  zoneId: string | null;
}

/**
 * The zone rules of one board for one caller, decided over one read of the board's frames: every
 * decision an object call makes (where a new object goes, which documents it may read, whether
 * it may change an object) comes from the same frames, however the frames change meanwhile.
 */
export interface BoardPlacement {
  /** The documents the caller may read, the board's own first. */
  readonly readable: readonly Placement[];
  /** Where a new object placed at `point` goes, or null when the caller may not write there. */
  placeAt(point: Point): Placement | null;
  /** Whether the caller may make `write` to an object of `document` (zone rights, locks, confinement). */
  mayWrite(document: string, write: ObjectWrite): boolean;
}

/** The one question an object call asks the frames side. */
export interface ObjectPlacement {
  /** The zone rules of a board for `viewer` as its frames stand now. */
  placement(boardId: string, viewer: Viewer): Promise<BoardPlacement>;
}
