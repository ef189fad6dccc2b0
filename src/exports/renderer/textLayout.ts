/** A font's horizontal metrics, in ems. */
export interface FontMetrics {
  /** The advance width of one code point. */
  advance(codePoint: number): number;
  /** Above and below the baseline (both positive). */
  ascent: number;
  descent: number;
}

export interface TextArea {
  width: number;
  height: number;
  fontSize: number;
  /** Line height as a multiple of the font size (the client's CSS: 1.3). */
  lineHeight: number;
}

export interface LaidOutText {
  lines: string[];
  /** From the top of the first line box to its baseline, as CSS places it. */
  firstBaseline: number;
  lineHeight: number;
}

const ELLIPSIS = '…';

/**
 * Lines as the client's `white-space: pre-wrap; overflow-wrap: anywhere` shows them: breaks at
 * newlines, greedy word wrapping at spaces (kept within a line, hanging at its end), a word
 * wider than the area broken between characters. What does not fit in the area's height is
 * cut, and the last line shown ends in an ellipsis (the client clips instead).
 */
export function layoutText(text: string, area: TextArea, metrics: FontMetrics): LaidOutText {
  const lineHeight = area.fontSize * area.lineHeight;
  const maxLines = Math.max(0, Math.floor(area.height / lineHeight + 1e-9));
  const widthOf = (line: string) => measure(line, metrics) * area.fontSize;
  const lines: string[] = [];
  for (const paragraph of text.replace(/\r\n?/g, '\n').replace(/\t/g, ' ').split('\n')) {
    // One line past what shows is enough to know an ellipsis is due: a long text is not wrapped whole.
    if (lines.length > maxLines) break;
    lines.push(...wrapParagraph(paragraph, area.width, maxLines + 1 - lines.length, widthOf));
  }
  const shown = lines.slice(0, maxLines).map(withoutHangingSpaces);
  if (lines.length > shown.length && shown.length > 0) shown[shown.length - 1] = ellipsize(shown.at(-1)!, area.width, widthOf);
  const halfLeading = (lineHeight - (metrics.ascent + metrics.descent) * area.fontSize) / 2;
  return { lines: shown, firstBaseline: halfLeading + metrics.ascent * area.fontSize, lineHeight };
}

/** The width of a string in ems: the sum of its code points' advances. */
export function measure(text: string, metrics: FontMetrics): number {
  let width = 0;
  for (const char of text) width += metrics.advance(char.codePointAt(0)!);
  return width;
}

/** A single line that fits a width, cut and ended with an ellipsis when it does not. */
export function fitLine(line: string, width: number, fontSize: number, metrics: FontMetrics): string {
  const widthOf = (candidate: string) => measure(candidate, metrics) * fontSize;
  return widthOf(line) <= width ? line : ellipsize(line, width, widthOf);
}

/**
 * Greedy wrapping with running widths (each token and character measured once), stopping
 * after `limit` lines.
 */
function wrapParagraph(paragraph: string, width: number, limit: number, widthOf: (text: string) => number): string[] {
  const lines: string[] = [];
  let line = '';
  let lineWidth = 0;
  const breakLine = () => {
    lines.push(line);
    [line, lineWidth] = ['', 0];
  };
  for (const token of paragraph.split(/( +)/)) {
    if (lines.length >= limit) return lines;
    const tokenWidth = widthOf(token);
    // Spaces stay on the line they follow: at a break they hang past its end, as in pre-wrap.
    if (token.startsWith(' ') || lineWidth + tokenWidth <= width) {
      [line, lineWidth] = [line + token, lineWidth + tokenWidth];
      continue;
    }
    if (line.trim() !== '') breakLine();
    [line, lineWidth] = ['', 0];
    for (const char of token) {
      const charWidth = widthOf(char);
      if (line !== '' && lineWidth + charWidth > width) breakLine();
      if (lines.length >= limit) return lines;
      [line, lineWidth] = [line + char, lineWidth + charWidth];
    }
  }
  lines.push(line);
  return lines;
}

/** The longest start of a line that fits with an ellipsis after it. */
function ellipsize(line: string, width: number, widthOf: (text: string) => number): string {
  const room = width - widthOf(ELLIPSIS);
  let kept = '';
  let keptWidth = 0;
  for (const char of line) {
    const charWidth = widthOf(char);
    if (keptWidth + charWidth > room) break;
    [kept, keptWidth] = [kept + char, keptWidth + charWidth];
  }
  return withoutHangingSpaces(kept) + ELLIPSIS;
}

/** Spaces that hang at the end of a wrapped line take no room and are not drawn (others, like U+00A0, are). */
function withoutHangingSpaces(line: string): string {
  return line.replace(/ +$/, '');
}
