import { element, EMPTY, paint } from '../escape.js';
import type { Draw } from '../drawContext.js';
import { inkStroke } from '../inkPath.js';
import { INK } from './textBox.js';

/** A stroke outlined exactly as the client outlines it, filled with `data.color` (ink colour by default). */
export const drawInk: Draw = (object) => {
  const d = inkStroke(object.data);
  return d === '' ? EMPTY : element('path', { d, fill: paint(object.data.color) ?? INK });
};
