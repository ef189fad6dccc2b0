import { inkStroke, strokePath } from '../../../src/exports/renderer/inkPath.js';
import { textOf, type BoardObject } from '../model/boardObject.js';
import type { FrameRecord } from '../model/frames.js';
import type { Camera } from './camera.js';

const SVG = 'http://www.w3.org/2000/svg';
const XHTML = 'http://www.w3.org/1999/xhtml';

/** How the page draws an object type it knows; any other renders as a labelled box. */
type Drawing = 'sticky' | 'shape' | 'text' | 'ink';
const DRAWINGS: ReadonlyMap<string, Drawing> = new Map([
  ['sticky', 'sticky'],
  // Notes the page does not write itself: an agent's feedback on an answer, and the name
  // integrations commonly give a sticky note.
  ['feedback', 'sticky'],
  ['sticky_note', 'sticky'],
  ['shape', 'shape'],
  ['text', 'text'],
  ['ink', 'ink'],
]);

/** A feedback note's colour says its verdict at a glance: correct, not yet, or not graded. */
const VERDICT_COLORS = { correct: '#bbf7d0', wrong: '#fed7aa', ungraded: '#e0e7ff' };

/**
 * The board as SVG: frames under objects, each object one `<g>` keyed by id, so a change
 * redraws only the objects it touched. Text shows as HTML inside `foreignObject`, so it wraps.
 */
export class Scene {
  private readonly world: SVGGElement;
  private readonly framesLayer: SVGGElement;
  private readonly objectsLayer: SVGGElement;
  readonly overlay: SVGGElement;
  private readonly drawn = new Map<string, SVGGElement>();
  private readonly drawListeners = new Set<(id: string, object: BoardObject | null) => void>();
  private selected: string | null = null;

  constructor(
    readonly svg: SVGSVGElement,
    private readonly camera: Camera,
  ) {
    this.world = element('g', { id: 'world' });
    this.framesLayer = element('g', { id: 'frames-layer' });
    this.objectsLayer = element('g', { id: 'objects-layer' });
    this.overlay = element('g', { id: 'overlay-layer' });
    this.world.append(this.framesLayer, this.objectsLayer, this.overlay);
    svg.append(this.world);
    camera.onChange(() => this.place());
    this.place();
  }

  /** Told of every object drawn, redrawn (previews included) or removed: components follow their objects. */
  onObjectDrawn(listener: (id: string, object: BoardObject | null) => void): void {
    this.drawListeners.add(listener);
  }

  /** Draws or redraws one object; null removes it. */
  drawObject(id: string, object: BoardObject | null): void {
    for (const listener of this.drawListeners) listener(id, object);
    const old = this.drawn.get(id);
    if (!object) {
      old?.remove();
      this.drawn.delete(id);
      return;
    }
    const group = renderObject(object);
    if (id === this.selected) group.classList.add('selected');
    const focused = old !== undefined && old === document.activeElement;
    if (old) old.replaceWith(group);
    else this.objectsLayer.append(group);
    // A keyboard user moving an object keeps it in hand while it is redrawn.
    if (focused) group.focus();
    this.drawn.set(id, group);
  }

  /** Draws the frames; `editable` (the host) adds a grip on the name and a resize handle. */
  drawFrames(frames: FrameRecord[], describe: (frame: FrameRecord) => string | null, editable: boolean): void {
    const groups = frames.map((frame) => {
      const group = element('g', { class: editable ? 'frame editable' : 'frame', 'data-frame-id': frame.id });
      const rect = element('rect', { x: frame.bounds_x, y: frame.bounds_y, width: frame.bounds_width, height: frame.bounds_height, rx: 6 });
      if (frame.background_color) rect.style.fill = frame.background_color;
      const label = element('text', { class: 'frame-name', x: frame.bounds_x + 8, y: frame.bounds_y - 10 });
      label.textContent = frame.name;
      const note = describe(frame);
      if (note) {
        const badge = element('tspan', { class: 'frame-badge', dx: 10 });
        badge.textContent = note;
        label.append(badge);
      }
      group.append(rect, label);
      if (editable) {
        label.classList.add('frame-grip');
        group.append(element('rect', { class: 'frame-resize', x: frame.bounds_x + frame.bounds_width - 8, y: frame.bounds_y + frame.bounds_height - 8, width: 16, height: 16 }));
      }
      return group;
    });
    this.framesLayer.replaceChildren(...groups);
  }

  select(id: string | null): void {
    if (this.selected) this.drawn.get(this.selected)?.classList.remove('selected');
    this.selected = id;
    if (id) this.drawn.get(id)?.classList.add('selected');
  }

  /** The object drawn under a screen point, if any. */
  objectAt(clientX: number, clientY: number): string | null {
    const hit = document.elementFromPoint(clientX, clientY);
    const group = hit?.closest<SVGGElement>('g.object');
    return group?.dataset.objectId ?? null;
  }

  count(): number {
    return this.drawn.size;
  }

  private place(): void {
    const { x, y, zoom } = this.camera;
    this.world.setAttribute('transform', `matrix(${zoom} 0 0 ${zoom} ${-x * zoom} ${-y * zoom})`);
    this.svg.style.setProperty('--zoom', String(zoom));
  }
}

function renderObject(object: BoardObject): SVGGElement {
  const drawing = DRAWINGS.get(object.type) ?? null;
  // A component's box: its frame (client/src/components) is drawn over it, not its data as words.
  const component = object.type === 'external-component';
  const variant = object.type === 'feedback' ? ' feedback' : '';
  const classes = `object ${drawing ?? (component ? 'unknown component' : 'unknown')}${variant}${object.locked ? ' locked' : ''}`;
  const group = element('g', { class: classes, 'data-object-id': object.id, 'data-type': object.type, tabindex: 0, role: 'button' });
  // Reachable with Tab and named for screen readers: what it is and what it says.
  group.setAttribute('aria-label', `${object.type}${textOf(object) ? `: ${textOf(object)!.slice(0, 200)}` : ''}`);
  group.setAttribute('transform', `translate(${object.position.x} ${object.position.y})`);
  const { width, height } = object;
  const color = colorOf(object);
  switch (drawing ?? 'unknown') {
    case 'sticky':
      group.append(withFill(element('rect', { class: 'body', width, height, rx: 4 }), color));
      break;
    case 'shape':
      group.append(withFill(isRound(object.data) ? element('ellipse', { class: 'body', cx: width / 2, cy: height / 2, rx: width / 2, ry: height / 2 }) : element('rect', { class: 'body', width, height, rx: 2 }), color));
      break;
    case 'text':
      group.append(element('rect', { class: 'hit', width, height }));
      break;
    case 'ink':
      group.append(inkPath(object, color));
      return group;
    default:
      group.append(element('rect', { class: 'body', width, height, rx: 4 }));
      group.append(label(`${object.type}`, 'type-label'));
  }
  const known = drawing !== null;
  const text = textOf(object) ?? (known || component ? null : firstText(object.data));
  if (text !== null || drawing === 'sticky' || drawing === 'text') group.append(textBox(text ?? '', width, height, known ? 0 : 22));
  group.append(element('rect', { class: 'resize-handle', x: width - 6, y: height - 6, width: 12, height: 12 }));
  if (object.locked) group.append(lockBadge(width));
  return group;
}

/** The colour its data names; feedback without one takes its verdict's. */
function colorOf(object: BoardObject): string | null {
  if (typeof object.data.color === 'string') return object.data.color;
  if (object.type !== 'feedback') return null;
  const verdict = object.data.correct;
  return verdict === true ? VERDICT_COLORS.correct : verdict === false ? VERDICT_COLORS.wrong : VERDICT_COLORS.ungraded;
}

/** A shape is round when its data says so (`shape`, or `kind` as some integrations write it). */
function isRound(data: Record<string, unknown>): boolean {
  const shape = data.shape ?? data.kind;
  return shape === 'ellipse' || shape === 'circle';
}

/** What an object of a type this page does not know says, if it says anything in words. */
function firstText(data: Record<string, unknown>): string | null {
  const value = Object.values(data).find((candidate) => typeof candidate === 'string' && candidate.trim() !== '');
  return typeof value === 'string' ? value.slice(0, 500) : null;
}

/** A small padlock in the corner of a locked object. */
function lockBadge(width: number): SVGGElement {
  const badge = element('g', { class: 'lock-badge', transform: `translate(${width - 22} 6)` });
  const title = element('title', {});
  title.textContent = 'Locked by the host';
  badge.append(title, element('rect', { x: 2, y: 7, width: 12, height: 9, rx: 2 }), element('path', { d: 'M5 7V5a3 3 0 016 0v2' }));
  return badge;
}

function textBox(text: string, width: number, height: number, top: number): SVGForeignObjectElement {
  const box = element('foreignObject', { x: 0, y: top, width, height: Math.max(0, height - top) });
  const div = document.createElementNS(XHTML, 'div') as HTMLDivElement;
  div.className = 'object-text';
  div.textContent = text;
  box.append(div);
  return box;
}

function label(text: string, className: string): SVGTextElement {
  const node = element('text', { class: className, x: 8, y: 16 });
  node.textContent = text;
  return node;
}

/** Ink: a stroke outlined as the export renderer outlines it (src/exports/renderer/inkPath.ts). */
function inkPath(object: BoardObject, color: string | null): SVGPathElement {
  return withFill(element('path', { class: 'ink', d: inkStroke(object.data) }), color ?? '#1f2937');
}

/** The pen tool's draft stroke is outlined alike. */
export { strokePath };

function withFill<T extends SVGElement>(node: T, color: string | null): T {
  if (color && /^#[0-9a-f]{3,8}$|^[a-z]{3,20}$/i.test(color)) node.style.fill = color;
  return node;
}

export function element<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string | number>): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}
