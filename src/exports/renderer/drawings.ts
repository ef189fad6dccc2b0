import { element, formatNumber, type Markup } from './escape.js';
import type { Draw, DrawContext } from './drawContext.js';
import type { RenderObject } from './renderModel.js';
import { drawComponent } from './objects/component.js';
import { drawImage } from './objects/image.js';
import { drawInk } from './objects/ink.js';
import { drawPdfPage } from './objects/pdfPage.js';
import { drawShape } from './objects/shape.js';
import { drawSticky } from './objects/sticky.js';
import { drawText } from './objects/text.js';
import { drawUnknown } from './objects/unknown.js';

/** How each type the client draws is drawn; any other is a labelled box (`drawUnknown`). */
const DRAWINGS: ReadonlyMap<string, Draw> = new Map([
  ['sticky', drawSticky],
  // Notes the client draws as stickies: an agent's feedback, and the name integrations often use.
  ['feedback', drawSticky],
  ['sticky_note', drawSticky],
  ['shape', drawShape],
  ['text', drawText],
  ['ink', drawInk],
  ['image', drawImage],
  ['pdf-page', drawPdfPage],
  ['external-component', drawComponent],
]);

/** One object as a group at its position, named by id and type as the client's groups are. */
export function drawObject(object: RenderObject, context: DrawContext): Markup {
  const draw = DRAWINGS.get(object.type) ?? drawUnknown;
  const { x, y } = object.position;
  return element('g', { transform: `translate(${formatNumber(x)} ${formatNumber(y)})`, 'data-object-id': object.id, 'data-type': object.type }, draw(object, context));
}
