import { element, paint, text, type Markup } from '../escape.js';
import type { RenderFrame } from '../renderModel.js';
import { MUTED } from './textBox.js';

/** The client's frame (board.css `.frame rect`, `.frame-name`, `.frame-badge`). */
const FRAME = { fill: '#ffffff', fillOpacity: '0.7', stroke: '#94a3b8', strokeWidth: 1.5, radius: 6 };
const NAME = { dx: 8, above: 10, fontSize: 16, fontWeight: 600, fill: '#334155' };
const NOTE = { dx: 10, fontSize: 13, fontWeight: 400 };

/**
 * A frame or zone: its area (translucent white, or its background colour) and its name above
 * it, followed by its note (a zone's student, say) in the client's badge style.
 */
export function drawFrame(frame: RenderFrame): Markup {
  const { x, y, width, height } = frame.bounds;
  const background = paint(frame.backgroundColor);
  const name = [text(frame.name)];
  if (frame.note) name.push(element('tspan', { dx: NOTE.dx, 'font-size': NOTE.fontSize, 'font-weight': NOTE.fontWeight, fill: MUTED }, text(frame.note)));
  return element(
    'g',
    { 'data-frame-id': frame.id },
    element('rect', { x, y, width, height, rx: FRAME.radius, fill: background ?? FRAME.fill, 'fill-opacity': background ? null : FRAME.fillOpacity, stroke: FRAME.stroke, 'stroke-width': FRAME.strokeWidth }),
    element('text', { x: x + NAME.dx, y: y - NAME.above, 'font-size': NAME.fontSize, 'font-weight': NAME.fontWeight, fill: NAME.fill, 'xml:space': 'preserve' }, ...name),
  );
}
