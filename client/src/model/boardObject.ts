import * as Y from 'yjs';

/** A board object as the page draws it (one `Y.Map` per object in the document's `objects` map). */
export interface BoardObject {
  id: string;
  type: string;
  data: Record<string, unknown>;
  position: { x: number; y: number };
  width: number;
  height: number;
  createdBy: string | null;
  /** Locked by the host (`PATCH …/objects/<id>` `{"locked": true}`): guests may not change it. */
  locked: boolean;
  /** The document that holds it: the board's or a zone's. */
  document: string;
}

/** Sizes of objects written without one (REST may omit width and height). */
export const DEFAULT_SIZE: Record<string, { width: number; height: number }> = {
  sticky: { width: 200, height: 160 },
  // Drawn as sticky notes too (view/scene.ts).
  sticky_note: { width: 200, height: 160 },
  feedback: { width: 200, height: 160 },
  // A manifest's default `dimensions`: what a component placed without a size, or one
  // not published here, takes.
  'external-component': { width: 300, height: 200 },
  shape: { width: 180, height: 120 },
  text: { width: 240, height: 48 },
};
const FALLBACK_SIZE = { width: 160, height: 100 };

/** Reads an object defensively: whatever another client wrote, the page draws something. */
export function readObject(id: string, value: unknown, document: string): BoardObject | null {
  if (!(value instanceof Y.Map)) return null;
  const map = value as Y.Map<unknown>;
  const type = typeof map.get('type') === 'string' ? (map.get('type') as string) : 'unknown';
  const data = plainObject(map.get('data'));
  const position = plainObject(map.get('position'));
  // Own keys only: a type named `constructor` must not find Object's.
  const size = Object.hasOwn(DEFAULT_SIZE, type) ? DEFAULT_SIZE[type]! : FALLBACK_SIZE;
  return {
    id,
    type,
    data,
    position: { x: finite(position.x, 0), y: finite(position.y, 0) },
    width: positive(map.get('width'), size.width),
    height: positive(map.get('height'), size.height),
    createdBy: typeof map.get('created_by') === 'string' ? (map.get('created_by') as string) : null,
    locked: map.get('locked') === true,
    document,
  };
}

/** The fields of a new object, in the layout REST writes. */
export function objectMap(object: Omit<BoardObject, 'document' | 'locked'>, now: Date): Y.Map<unknown> {
  return new Y.Map<unknown>(
    Object.entries({
      id: object.id,
      type: object.type,
      data: object.data,
      position: object.position,
      width: object.width,
      height: object.height,
      created_at: now.toISOString(),
      created_by: object.createdBy,
    }),
  );
}

export function textOf(object: BoardObject): string | null {
  return typeof object.data.text === 'string' ? object.data.text : null;
}

function plainObject(value: unknown): Record<string, unknown> {
  if (value instanceof Y.Map) return value.toJSON();
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function finite(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function positive(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.min(value, 100_000) : fallback;
}
