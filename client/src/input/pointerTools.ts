import type { BoardEditor, EditResult } from '../model/boardEditor.js';
import { Pinch } from './pinch.js';
import { DEFAULT_SIZE } from '../model/boardObject.js';
import type { Camera, Rect } from '../view/camera.js';
import { element, strokePath, type Scene } from '../view/scene.js';

export const TOOLS = ['select', 'hand', 'sticky', 'rect', 'ellipse', 'text', 'pen'] as const;
export type Tool = (typeof TOOLS)[number];

/** Longest stroke kept: the server's free-form arrays hold at most 10,000 items (3 per point). */
const MAX_INK_POINTS = 3_000;

/** What a drag is doing, from pointer down to up. */
type Gesture =
  | { kind: 'none' }
  | { kind: 'pan'; lastX: number; lastY: number }
  | { kind: 'move'; id: string; startX: number; startY: number; origin: { x: number; y: number }; moved: boolean }
  | { kind: 'resize'; id: string; startX: number; startY: number; size: { width: number; height: number } }
  | { kind: 'ink'; points: number[][]; path: SVGPathElement }
  | { kind: 'frame'; frameId: string; resize: boolean; startX: number; startY: number; bounds: Rect; next: Rect };

export interface ToolHost {
  editor: BoardEditor;
  scene: Scene;
  camera: Camera;
  /** Opens the text editor on an object. */
  editText(id: string): void;
  /** Tells the user why an edit was not made. */
  refused(result: EditResult): void;
  selectionChanged(id: string | null): void;
  pointerMoved(point: { x: number; y: number } | null): void;
  color: () => string;
  /** The host moved or resized a frame (by its name, or its corner handle). */
  frameEdited(frameId: string, bounds: Rect): void;
  frameBounds(frameId: string): Rect | null;
}

/**
 * Pointer input on the board: the chosen tool decides what a press does. Dragging with the
 * middle button, or with the hand tool, pans; the wheel pans and, with Ctrl, zooms.
 */
export class PointerTools {
  tool: Tool = 'select';
  selected: string | null = null;
  private gesture: Gesture = { kind: 'none' };
  /** An object just created: its text editor opens once the press ends (a press would take the focus away). */
  private editOnRelease: string | null = null;
  private readonly pinch: Pinch;

  constructor(private readonly host: ToolHost) {
    this.pinch = new Pinch(host.camera, (event) => this.local(event));
    const svg = host.scene.svg;
    svg.addEventListener('pointerdown', (event) => this.down(event));
    svg.addEventListener('pointermove', (event) => this.move(event));
    svg.addEventListener('pointerup', (event) => this.up(event));
    svg.addEventListener('pointercancel', (event) => {
      this.pinch.up(event);
      this.cancel();
    });
    svg.addEventListener('pointerleave', () => host.pointerMoved(null));
    svg.addEventListener('dblclick', (event) => {
      const id = host.scene.objectAt(event.clientX, event.clientY);
      if (id) host.editText(id);
    });
    svg.addEventListener('wheel', (event) => this.wheel(event), { passive: false });
  }

  select(id: string | null): void {
    this.selected = id;
    this.host.scene.select(id);
    this.host.selectionChanged(id);
  }

  private local(event: PointerEvent | WheelEvent): { x: number; y: number } {
    const box = this.host.scene.svg.getBoundingClientRect();
    return { x: event.clientX - box.left, y: event.clientY - box.top };
  }

  private down(event: PointerEvent): void {
    const screen = this.local(event);
    const point = this.host.camera.toBoard(screen.x, screen.y);
    this.host.scene.svg.setPointerCapture(event.pointerId);
    if (this.pinch.down(event)) return this.cancel();
    if (event.button === 1 || this.tool === 'hand') {
      this.gesture = { kind: 'pan', lastX: event.clientX, lastY: event.clientY };
      return;
    }
    switch (this.tool) {
      case 'select':
        return this.pressSelect(event, point);
      case 'pen': {
        const path = element('path', { class: 'ink draft' });
        path.style.fill = this.host.color();
        this.host.scene.overlay.append(path);
        this.gesture = { kind: 'ink', points: [[point.x, point.y, event.pressure || 0.5]], path };
        return;
      }
      default:
        // No compatibility mousedown follows (a touch's comes after the release): its focus
        // change would blur the text editor that the release opens.
        event.preventDefault();
        return this.createAt(point);
    }
  }

  private pressSelect(event: PointerEvent, point: { x: number; y: number }): void {
    const target = event.target as Element;
    const frameId = target.closest<SVGGElement>('g.frame.editable')?.dataset.frameId;
    const bounds = frameId ? this.host.frameBounds(frameId) : null;
    if (frameId && bounds && (target.classList.contains('frame-grip') || target.classList.contains('frame-resize'))) {
      this.select(null);
      this.gesture = { kind: 'frame', frameId, resize: target.classList.contains('frame-resize'), startX: point.x, startY: point.y, bounds, next: bounds };
      return;
    }
    const id = this.host.scene.objectAt(event.clientX, event.clientY);
    this.select(id);
    if (!id) {
      this.gesture = { kind: 'pan', lastX: event.clientX, lastY: event.clientY };
      return;
    }
    const object = this.host.editor.find(id);
    if (!object) return;
    const onHandle = (event.target as Element).classList.contains('resize-handle');
    this.gesture = onHandle
      ? { kind: 'resize', id, startX: point.x, startY: point.y, size: { width: object.width, height: object.height } }
      : { kind: 'move', id, startX: point.x, startY: point.y, origin: object.position, moved: false };
  }

  private move(event: PointerEvent): void {
    if (this.pinch.move(event)) return;
    const screen = this.local(event);
    const point = this.host.camera.toBoard(screen.x, screen.y);
    this.host.pointerMoved(point);
    const gesture = this.gesture;
    switch (gesture.kind) {
      case 'none':
        return;
      case 'pan':
        this.host.camera.panBy(event.clientX - gesture.lastX, event.clientY - gesture.lastY);
        gesture.lastX = event.clientX;
        gesture.lastY = event.clientY;
        return;
      case 'move':
        gesture.moved = true;
        previewTranslate(this.host.scene, gesture.id, gesture.origin.x + point.x - gesture.startX, gesture.origin.y + point.y - gesture.startY);
        return;
      case 'resize': {
        const object = this.host.editor.find(gesture.id);
        const size = resizedTo(gesture, point);
        if (object) this.host.scene.drawObject(gesture.id, { ...object, ...size });
        return;
      }
      case 'frame':
        gesture.next = frameBoundsAfter(gesture, point);
        previewFrame(this.host.scene, gesture.frameId, gesture.bounds, gesture.next);
        return;
      case 'ink':
        if (gesture.points.length < MAX_INK_POINTS) gesture.points.push([point.x, point.y, event.pressure || 0.5]);
        gesture.path.setAttribute('d', strokePath(gesture.points, 6));
        return;
    }
  }

  private up(event: PointerEvent): void {
    if (this.pinch.up(event)) return;
    if (this.editOnRelease) {
      const id = this.editOnRelease;
      this.editOnRelease = null;
      setTimeout(() => this.host.editText(id), 0);
    }
    const screen = this.local(event);
    const point = this.host.camera.toBoard(screen.x, screen.y);
    const gesture = this.gesture;
    this.gesture = { kind: 'none' };
    switch (gesture.kind) {
      case 'move':
        if (gesture.moved) this.finish(this.host.editor.update(gesture.id, { position: { x: round(gesture.origin.x + point.x - gesture.startX), y: round(gesture.origin.y + point.y - gesture.startY) } }), gesture.id);
        return;
      case 'resize':
        this.finish(this.host.editor.update(gesture.id, resizedTo(gesture, point)), gesture.id);
        return;
      case 'ink':
        gesture.path.remove();
        this.commitInk(gesture.points);
        return;
      case 'frame': {
        const next = frameBoundsAfter(gesture, point);
        if (next.x !== gesture.bounds.x || next.y !== gesture.bounds.y || next.width !== gesture.bounds.width || next.height !== gesture.bounds.height) this.host.frameEdited(gesture.frameId, next);
        return;
      }
      default:
        return;
    }
  }

  private cancel(): void {
    this.editOnRelease = null;
    if (this.gesture.kind === 'ink') this.gesture.path.remove();
    if (this.gesture.kind === 'move' || this.gesture.kind === 'resize') this.redraw(this.gesture.id);
    this.gesture = { kind: 'none' };
  }

  private wheel(event: WheelEvent): void {
    event.preventDefault();
    const screen = this.local(event);
    if (event.ctrlKey || event.metaKey) this.host.camera.zoomAt(Math.exp(-event.deltaY * 0.002), screen.x, screen.y);
    else this.host.camera.panBy(-event.deltaX, -event.deltaY);
  }

  private createAt(point: { x: number; y: number }): void {
    const type = this.tool === 'rect' || this.tool === 'ellipse' ? 'shape' : this.tool;
    const size = DEFAULT_SIZE[type]!;
    const id = crypto.randomUUID();
    const data: Record<string, unknown> = { text: '' };
    if (type === 'shape') data.shape = this.tool;
    if (type === 'sticky') data.color = '#fde68a';
    const result = this.host.editor.create({ id, type, data, position: { x: round(point.x), y: round(point.y) }, width: size.width, height: size.height });
    if (!result.ok) return this.host.refused(result);
    this.select(id);
    this.editOnRelease = id;
  }

  /** Ink is stored relative to its top-left corner, so moving it changes one field. */
  private commitInk(points: number[][]): void {
    if (points.length < 2) return;
    const xs = points.map((p) => p[0]!);
    const ys = points.map((p) => p[1]!);
    const left = Math.floor(Math.min(...xs)) - 4;
    const top = Math.floor(Math.min(...ys)) - 4;
    const flat = points.flatMap(([x, y, pressure]) => [round(x! - left), round(y! - top), Math.round(pressure! * 100) / 100]);
    const width = Math.ceil(Math.max(...xs)) - left + 8;
    const height = Math.ceil(Math.max(...ys)) - top + 8;
    const result = this.host.editor.create({ id: crypto.randomUUID(), type: 'ink', data: { points: flat, color: this.host.color(), size: 6 }, position: { x: left, y: top }, width, height });
    if (!result.ok) this.host.refused(result);
  }

  private finish(result: EditResult, id: string): void {
    if (!result.ok) {
      this.host.refused(result);
      this.redraw(id);
    }
  }

  /** Draws an object as its document holds it (after a refused edit, or an abandoned gesture). */
  private redraw(id: string): void {
    this.host.scene.drawObject(id, this.host.editor.find(id));
  }
}

function resizedTo(gesture: { startX: number; startY: number; size: { width: number; height: number } }, point: { x: number; y: number }) {
  return { width: Math.max(24, round(gesture.size.width + point.x - gesture.startX)), height: Math.max(24, round(gesture.size.height + point.y - gesture.startY)) };
}

/** A frame's bounds after a drag: moved whole, or resized from its corner (the API's minimum is 100). */
function frameBoundsAfter(gesture: { resize: boolean; startX: number; startY: number; bounds: Rect }, point: { x: number; y: number }): Rect {
  const dx = Math.round(point.x - gesture.startX);
  const dy = Math.round(point.y - gesture.startY);
  const { bounds } = gesture;
  if (gesture.resize) return { ...bounds, width: Math.max(100, bounds.width + dx), height: Math.max(100, bounds.height + dy) };
  return { ...bounds, x: bounds.x + dx, y: bounds.y + dy };
}

function previewFrame(scene: Scene, frameId: string, from: Rect, to: Rect): void {
  const group = scene.svg.querySelector<SVGGElement>(`g.frame[data-frame-id="${CSS.escape(frameId)}"]`);
  if (!group) return;
  if (to.width === from.width && to.height === from.height) {
    group.setAttribute('transform', `translate(${to.x - from.x} ${to.y - from.y})`);
    return;
  }
  const body = group.querySelector('rect');
  body?.setAttribute('width', String(to.width));
  body?.setAttribute('height', String(to.height));
}

function previewTranslate(scene: Scene, id: string, x: number, y: number): void {
  scene.svg.querySelector(`g.object[data-object-id="${CSS.escape(id)}"]`)?.setAttribute('transform', `translate(${x} ${y})`);
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
