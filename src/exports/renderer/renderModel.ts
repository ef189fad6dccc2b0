import type { BoardObject } from '../../boards/boardObjects.js';
import type { Bounds } from '../../frames/frame.js';

/**
 * What the export renderer draws: plain values that whoever gathers a scene has already cut
 * down to what the caller may see. The renderer does no I/O and asks nothing of anyone.
 */
export interface RenderScene {
  /** The board area the picture shows, in board pixels. */
  bounds: Bounds;
  /** Frames in their order (`order`, then creation), drawn under every object. */
  frames: RenderFrame[];
  /** In drawing order: `orderForRender` puts the background layer first, then creation order. */
  objects: RenderObject[];
  /** Images and PDF pages by `assetKey`; a key that is missing draws as "Image unavailable". */
  assets: ReadonlyMap<string, ResolvedAsset>;
}

export interface RenderFrame {
  id: string;
  name: string;
  bounds: Bounds;
  backgroundColor: string | null;
  /** Words after the name, in the client's badge style (a zone's student, say); null for none. */
  note: string | null;
}

/** A board object as the renderer reads it: every field present and of its type (`renderObjectOf`). */
export interface RenderObject {
  id: string;
  type: string;
  data: Record<string, unknown>;
  position: { x: number; y: number };
  width: number;
  height: number;
  createdAt: string;
}

/**
 * Where an image's pixels are, and the size in source pixels that `data.crop` is measured in.
 * `href` is a `data:` URI, an `asset:` name the rasterizer resolves, or an http(s) URL.
 */
export interface ResolvedAsset {
  href: string;
  width: number;
  height: number;
}

export interface RenderOptions {
  /** Output pixels per board pixel (1 by default). */
  scale?: number;
  /** The page colour under everything (white by default); null leaves it transparent. */
  background?: string | null;
  /** The document's `<title>`. */
  title?: string;
}

/** The key of an image's pixels in `RenderScene.assets`, or of one page of a PDF asset. */
export function assetKey(assetId: string, page?: number): string {
  return page === undefined ? assetId : `${assetId}#page-${page}`;
}

/** Whether an object lies in the background layer (a worksheet page placed under the work). */
export function isBackground(object: RenderObject): boolean {
  return object.data.layer === 'background';
}

/**
 * Sizes of objects written without one, as the client gives them (client/src/model/boardObject.ts,
 * `DEFAULT_SIZE`): a picture of the board shows each object at the size the board shows it.
 */
const DEFAULT_SIZE: Readonly<Record<string, { width: number; height: number }>> = {
  sticky: { width: 200, height: 160 },
  sticky_note: { width: 200, height: 160 },
  feedback: { width: 200, height: 160 },
  'external-component': { width: 300, height: 200 },
  shape: { width: 180, height: 120 },
  text: { width: 240, height: 48 },
};
const FALLBACK_SIZE = { width: 160, height: 100 };
/** The client's cap on a side: larger sizes are what a socket client wrote, not something drawn. */
const MAX_SIDE = 100_000;

/**
 * An object record read as defensively as the client reads it: socket clients may have written
 * any JSON in any field, and the picture still shows something for every object.
 */
export function renderObjectOf(record: BoardObject): RenderObject {
  const fields = record as unknown as Record<string, unknown>;
  const type = typeof fields.type === 'string' ? fields.type : 'unknown';
  const position = plainObject(fields.position);
  const size = Object.hasOwn(DEFAULT_SIZE, type) ? DEFAULT_SIZE[type]! : FALLBACK_SIZE;
  return {
    id: String(fields.id),
    type,
    data: plainObject(fields.data),
    position: { x: finite(position.x, 0), y: finite(position.y, 0) },
    width: positive(fields.width, size.width),
    height: positive(fields.height, size.height),
    createdAt: typeof fields.created_at === 'string' ? fields.created_at : '',
  };
}

/**
 * The drawing order: the background layer first, then creation order, as the board lists
 * objects (`created_at`, then `id`, compared by code units so no locale changes it).
 */
export function orderForRender(objects: readonly RenderObject[]): RenderObject[] {
  const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...objects].sort(
    (a, b) => Number(isBackground(b)) - Number(isBackground(a)) || byCodeUnits(a.createdAt, b.createdAt) || byCodeUnits(a.id, b.id),
  );
}

/** Room above a frame for its name label (drawn 10 px above the frame, 16 px high). */
const FRAME_LABEL_ROOM = 30;

/** The area holding every frame (with its label) and object, plus a margin; a 1x1 area when empty. */
export function sceneBounds(frames: readonly RenderFrame[], objects: readonly RenderObject[], margin = 40): Bounds {
  const boxes = [
    ...frames.map(({ bounds }) => ({ ...bounds, y: bounds.y - FRAME_LABEL_ROOM, height: bounds.height + FRAME_LABEL_ROOM })),
    ...objects.map((object) => ({ ...object.position, width: object.width, height: object.height })),
  ];
  if (boxes.length === 0) return { x: 0, y: 0, width: 1, height: 1 };
  // A loop, not Math.min(...): a board of many thousand objects would overflow the argument list.
  let [left, top, right, bottom] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const box of boxes) {
    left = Math.min(left, box.x);
    top = Math.min(top, box.y);
    right = Math.max(right, box.x + box.width);
    bottom = Math.max(bottom, box.y + box.height);
  }
  return { x: left - margin, y: top - margin, width: right - left + 2 * margin, height: bottom - top + 2 * margin };
}

function plainObject(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function finite(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function positive(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.min(value, MAX_SIDE) : fallback;
}
