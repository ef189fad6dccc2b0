import { createRequire } from 'node:module';
import { openSync, type Font } from 'fontkit';
import type { FontMetrics } from './textLayout.js';

/**
 * DejaVu Sans from the dejavu-fonts-ttf package: the font exports are rasterized with (it is
 * loaded into resvg and embedded in PDFs), so lines are measured with the widths they are drawn
 * with. The one file read of the renderer, done once per process on first use.
 */
let dejavu: FontMetrics | undefined;

export function dejavuSans(): FontMetrics {
  dejavu ??= metricsOf(openSync(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')) as Font);
  return dejavu;
}

/**
 * Advance widths per code point, cached: the sum of a line's advances (no kerning, no shaping)
 * is within a few per cent of fontkit's full layout at a fortieth of its cost. A code point the
 * font lacks counts one em, the width of the CJK glyphs an added font would draw it with.
 */
function metricsOf(font: Font): FontMetrics {
  const em = font.unitsPerEm;
  const advances = new Map<number, number>();
  return {
    ascent: font.ascent / em,
    descent: -font.descent / em,
    advance(codePoint) {
      let advance = advances.get(codePoint);
      if (advance === undefined) {
        advance = font.hasGlyphForCodePoint(codePoint) ? font.glyphForCodePoint(codePoint).advanceWidth / em : 1;
        advances.set(codePoint, advance);
      }
      return advance;
    },
  };
}
