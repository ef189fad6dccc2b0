import type { Draw } from '../drawContext.js';
import { textBox } from './textBox.js';

/** Bare text (board.css `.object.text .object-text`: 18 px, 4 px padding); its box is not drawn. */
export const drawText: Draw = (object, { metrics }) =>
  textBox(typeof object.data.text === 'string' ? object.data.text : '', object, { top: 0, padding: 4, fontSize: 18, align: 'start' }, metrics);
