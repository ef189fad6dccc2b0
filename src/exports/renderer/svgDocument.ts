import { closeTag, element, formatNumber, openTag, paint, text } from './escape.js';
import type { DrawContext } from './drawContext.js';
import { drawObject } from './drawings.js';
import { dejavuSans } from './fontMetrics.js';
import { drawFrame } from './objects/frame.js';
import { NOTE_SHADOW_ID } from './objects/sticky.js';
import { isBackground, type RenderOptions, type RenderObject, type RenderScene } from './renderModel.js';

/** The font every text is measured with; the rasterizer loads the same file. */
export const FONT_FAMILY = 'DejaVu Sans';

/** The drop shadow of the client's notes (`drop-shadow(0 2px 2px rgba(0, 0, 0, 0.15))`). */
const DEFS = element(
  'defs',
  {},
  element('filter', { id: NOTE_SHADOW_ID }, element('feDropShadow', { dx: 0, dy: 2, stdDeviation: 1, 'flood-color': '#000000', 'flood-opacity': '0.15' })),
);

/**
 * A scene as an SVG document, in chunks a caller can stream: the header, `<defs>`, the frames,
 * the background layer, then the objects, one object per chunk.
 */
export function* renderSvg(scene: RenderScene, options: RenderOptions = {}): Generator<string, void, undefined> {
  const context: DrawContext = { assets: scene.assets, metrics: dejavuSans() };
  yield header(scene, options);
  yield DEFS;
  yield openTag('g', { id: 'frames-layer' });
  for (const frame of scene.frames) yield drawFrame(frame);
  yield closeTag('g');
  yield* layer('background-layer', scene.objects.filter(isBackground), context);
  yield* layer('objects-layer', scene.objects.filter((object) => !isBackground(object)), context);
  yield `${closeTag('svg')}\n`;
}

function header({ bounds }: RenderScene, options: RenderOptions): string {
  const scale = typeof options.scale === 'number' && Number.isFinite(options.scale) && options.scale > 0 ? options.scale : 1;
  const root = openTag('svg', {
    xmlns: 'http://www.w3.org/2000/svg',
    width: Math.max(1, Math.round(bounds.width * scale)),
    height: Math.max(1, Math.round(bounds.height * scale)),
    viewBox: [bounds.x, bounds.y, bounds.width, bounds.height].map(formatNumber).join(' '),
    'font-family': FONT_FAMILY,
  });
  const title = options.title === undefined ? '' : element('title', {}, text(options.title));
  const color = options.background === null ? null : (paint(options.background) ?? '#ffffff');
  const page = color === null ? '' : element('rect', { x: bounds.x, y: bounds.y, width: bounds.width, height: bounds.height, fill: color });
  return `<?xml version="1.0" encoding="UTF-8"?>\n${root}${title}${page}`;
}

function* layer(id: string, objects: readonly RenderObject[], context: DrawContext): Generator<string, void, undefined> {
  yield openTag('g', { id });
  for (const object of objects) yield drawObject(object, context);
  yield closeTag('g');
}
