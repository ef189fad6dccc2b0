import { concat, element, paint } from '../escape.js';
import type { Draw } from '../drawContext.js';
import type { RenderObject } from '../renderModel.js';
import { NOTE_TEXT, textBox } from './textBox.js';

/** The client's note (board.css `.object.sticky .body`), with its drop shadow from the document's `<defs>`. */
const NOTE = { fill: '#fde68a', stroke: '#eab308' };
export const NOTE_SHADOW_ID = 'note-shadow';

/** A feedback note's colour says its verdict: correct, not yet, or not graded (as the client's `VERDICT_COLORS`). */
const VERDICT_COLORS = { correct: '#bbf7d0', wrong: '#fed7aa', ungraded: '#e0e7ff' };

/** `sticky`, `sticky_note` and `feedback`: a note with its text wrapping inside. */
export const drawSticky: Draw = (object, { metrics }) => {
  const { width, height } = object;
  const text = typeof object.data.text === 'string' ? object.data.text : '';
  return concat([
    element('rect', { width, height, rx: 4, fill: noteColor(object), stroke: NOTE.stroke, 'stroke-width': 1.5, filter: `url(#${NOTE_SHADOW_ID})` }),
    textBox(text, object, NOTE_TEXT, metrics),
  ]);
};

/** The colour its data names (through the client's colour rule); feedback without one takes its verdict's. */
function noteColor(object: RenderObject): string {
  const named = paint(object.data.color);
  if (named) return named;
  if (object.type !== 'feedback') return NOTE.fill;
  const verdict = object.data.correct;
  return verdict === true ? VERDICT_COLORS.correct : verdict === false ? VERDICT_COLORS.wrong : VERDICT_COLORS.ungraded;
}
