import { concat, element, EMPTY, text, type Markup } from '../escape.js';
import type { Draw, DrawContext } from '../drawContext.js';
import type { RenderObject } from '../renderModel.js';
import { fitLine } from '../textLayout.js';
import { MUTED, NOTE_TEXT, textBox } from './textBox.js';

/** The client's box for a type it does not draw (board.css `.object.unknown .body`, `.type-label`). */
const BOX = { fill: '#f1f5f9', stroke: '#64748b', dash: '6 4' };
const LABEL = { x: 8, baseline: 16, fontSize: 12 };
/** The words start below the type label, as the client's text box does (22 px down). */
const TEXT_TOP = 22;
/** As much of an unknown object's first string as the client shows. */
const FIRST_TEXT_LIMIT = 500;

/** Any other type: a dashed box labelled with its type, showing `data.text` or else the first string in `data`. */
export const drawUnknown: Draw = (object, context) => labelledBox(object, object.type, textOf(object.data), context);

/** The dashed box with a label on top and words below: unknown types, components and placeholders. */
export function labelledBox(size: Pick<RenderObject, 'width' | 'height'>, label: string, words: string | null, { metrics }: DrawContext): Markup {
  const { width, height } = size;
  return concat([
    element('rect', { width, height, rx: 4, fill: BOX.fill, stroke: BOX.stroke, 'stroke-width': 1.5, 'stroke-dasharray': BOX.dash }),
    element(
      'text',
      { x: LABEL.x, y: LABEL.baseline, 'font-size': LABEL.fontSize, fill: MUTED, 'xml:space': 'preserve' },
      // The client's label is monospace and may run past the box; here it is in the export's
      // one font, measured, and ends at the box's edge.
      text(fitLine(label, width - 2 * LABEL.x, LABEL.fontSize, metrics)),
    ),
    words === null ? EMPTY : textBox(words, size, { ...NOTE_TEXT, top: TEXT_TOP }, metrics),
  ]);
}

function textOf(data: Record<string, unknown>): string | null {
  if (typeof data.text === 'string') return data.text;
  const first = Object.values(data).find((value) => typeof value === 'string' && value.trim() !== '');
  return typeof first === 'string' ? first.slice(0, FIRST_TEXT_LIMIT) : null;
}
