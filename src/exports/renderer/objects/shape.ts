import { concat, element, EMPTY, paint } from '../escape.js';
import type { Draw } from '../drawContext.js';
import { NOTE_TEXT, textBox } from './textBox.js';

/** The client's shape (board.css `.object.shape .body`). */
const SHAPE = { fill: '#e0f2fe', stroke: '#0284c7', strokeWidth: 2 };

/** A rectangle, or an ellipse when `data.shape` (or `data.kind`) says `ellipse`/`circle`; its text centred. */
export const drawShape: Draw = (object, { metrics }) => {
  const { width, height } = object;
  const kind = object.data.shape ?? object.data.kind;
  const style = { fill: paint(object.data.color) ?? SHAPE.fill, stroke: SHAPE.stroke, 'stroke-width': SHAPE.strokeWidth };
  const body =
    kind === 'ellipse' || kind === 'circle'
      ? element('ellipse', { cx: width / 2, cy: height / 2, rx: width / 2, ry: height / 2, ...style })
      : element('rect', { width, height, rx: 2, ...style });
  const words = typeof object.data.text === 'string' ? textBox(object.data.text, object, { ...NOTE_TEXT, align: 'center' }, metrics) : EMPTY;
  return concat([body, words]);
};
