import { EMPTY, element, text, type Markup } from '../escape.js';
import { layoutText, type FontMetrics } from '../textLayout.js';

/** The client's text colour (board.css `--ink`). */
export const INK = '#1f2937';
/** The client's muted colour (board.css `--muted`): labels and placeholders. */
export const MUTED = '#6b7280';

export interface TextBoxStyle {
  /** Distance from the object's top to the box (an unknown type's label sits above it). */
  top: number;
  padding: number;
  fontSize: number;
  /** `center`: each line centred and the block centred in the box, as the client centres a shape's text. */
  align: 'start' | 'center';
  fill?: string;
}

/** The client's `.object-text` (board.css): 16 px, line height 1.3, 10 px padding, from the top left. */
export const NOTE_TEXT: TextBoxStyle = { top: 0, padding: 10, fontSize: 16, align: 'start' };

/**
 * An object's words in its box, as the client shows them in a `foreignObject`: resvg draws no
 * `foreignObject`, so the lines are laid out here and written as `<tspan>`s.
 */
export function textBox(words: string, size: { width: number; height: number }, style: TextBoxStyle, metrics: FontMetrics): Markup {
  const inner = { width: size.width - 2 * style.padding, height: size.height - style.top - 2 * style.padding };
  if (words === '' || inner.width <= 0 || inner.height <= 0) return EMPTY;
  const layout = layoutText(words, { ...inner, fontSize: style.fontSize, lineHeight: 1.3 }, metrics);
  if (layout.lines.length === 0) return EMPTY;
  const centered = style.align === 'center';
  const blockTop = style.top + style.padding + (centered ? (inner.height - layout.lines.length * layout.lineHeight) / 2 : 0);
  const x = centered ? size.width / 2 : style.padding;
  const lines = layout.lines.map((line, index) => element('tspan', { x, y: blockTop + layout.firstBaseline + index * layout.lineHeight }, text(line)));
  return element('text', { 'font-size': style.fontSize, fill: style.fill ?? INK, 'text-anchor': centered ? 'middle' : null, 'xml:space': 'preserve' }, ...lines);
}
