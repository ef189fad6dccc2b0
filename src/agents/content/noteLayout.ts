/**
 * What agents write on a board, in the types and sizes the browser client draws: a note is the
 * client's own sticky note (people's notes and agents' read alike, and one `object.type` names
 * both in a trigger or a scope), sized so that its whole text shows.
 */

/** The type of every note an agent writes, unless an agent's params name another. */
export const NOTE_TYPE = 'sticky';

/** The text layout of the types the client draws with words (client/src/board.css `.object-text`). */
interface Typography {
  fontPx: number;
  paddingPx: number;
  /** The client's size of the type when an object has none (client/src/model/boardObject.ts). */
  width: number;
  height: number;
}

const NOTE: Typography = { fontPx: 16, paddingPx: 10, width: 200, height: 160 };
const TYPOGRAPHY: ReadonlyMap<string, Typography> = new Map([
  [NOTE_TYPE, NOTE],
  // Feedback on an answer is drawn as a note, coloured by its verdict.
  ['feedback', NOTE],
  ['text', { fontPx: 18, paddingPx: 4, width: 240, height: 48 }],
]);

/** The client's line height, as a share of the font size. */
const LINE_EM = 1.3;
/**
 * The advance of one character, as a share of the font size. Running text averages about 0.5
 * in common sans-serif fonts and 0.55 in DejaVu Sans, one of the widest (Linux's default);
 * a little above that keeps the estimate on the safe side whichever font the browser picks.
 * Characters of East Asian scripts take a whole em.
 */
const CHAR_EM = 0.58;
const WIDE_CHAR = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u;
/** One spare line: a break the estimate did not foresee costs a line, never the last words. */
const SPARE_LINES = 1;
/** Widths a note may take, narrowest first: the first whose text is no taller than it is wide wins. */
const NOTE_WIDTHS = [200, 280, 400];

interface Sized {
  width: number;
  height: number;
}

/**
 * An object an agent writes, with a size that shows its `data.text` whole: its own width (else
 * the narrowest that keeps it about square) and a height grown to fit the text at that width.
 * Types the client does not draw with words are left as they are.
 */
export function fitToText<T extends { type: string; data: Record<string, unknown>; width?: number; height?: number }>(object: T): T {
  const typography = TYPOGRAPHY.get(object.type);
  const text = object.data.text;
  if (!typography || typeof text !== 'string') return object;
  const { width, height } = textSize(text, typography, object.width);
  return { ...object, width, height: Math.max(height, object.height ?? 0) };
}

/** The height a note needs to show `text` whole at `width` (however short the text: the note's own least height is the caller's). */
export function noteHeight(text: string, width: number): number {
  return neededHeight(text, NOTE, width);
}

function textSize(text: string, typography: Typography, width?: number): Sized {
  const heightAt = (candidate: number) => Math.max(typography.height, neededHeight(text, typography, candidate));
  if (width !== undefined) return { width, height: heightAt(width) };
  const widths = typography === NOTE ? NOTE_WIDTHS : [typography.width, ...NOTE_WIDTHS.filter((candidate) => candidate > typography.width)];
  const chosen = widths.find((candidate) => heightAt(candidate) <= candidate) ?? widths[widths.length - 1]!;
  return { width: chosen, height: heightAt(chosen) };
}

function neededHeight(text: string, typography: Typography, width: number): number {
  return Math.ceil(2 * typography.paddingPx + (linesOf(text, width, typography) + SPARE_LINES) * typography.fontPx * LINE_EM);
}

/**
 * Lines the client breaks `text` into at `width`: paragraphs at newlines (`white-space:
 * pre-wrap`), words moved whole to the next line, a word longer than a line cut anywhere
 * (`overflow-wrap: anywhere`).
 */
function linesOf(text: string, width: number, typography: Typography): number {
  const room = Math.max(1, width - 2 * typography.paddingPx);
  const advance = (character: string) => typography.fontPx * (WIDE_CHAR.test(character) ? 1 : CHAR_EM);
  let lines = 0;
  for (const paragraph of text.split('\n')) {
    lines += 1;
    let used = 0;
    for (const word of paragraph.split(/(?<= )/u)) {
      const size = [...word].reduce((sum, character) => sum + advance(character), 0);
      if (used > 0 && used + size > room) {
        lines += 1;
        used = 0;
      }
      // A word wider than the line fills whole lines, its rest starting the next.
      lines += Math.floor(size / room);
      used += size % room;
    }
  }
  return lines;
}
