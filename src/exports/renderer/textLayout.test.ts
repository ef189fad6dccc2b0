import { describe, expect, it } from 'vitest';
import { dejavuSans } from './fontMetrics.js';
import { fitLine, layoutText, measure, type FontMetrics } from './textLayout.js';

/** Every character half an em wide: at 10 px, 5 px a character, so a 50 px line holds 10. */
const halfEm: FontMetrics = { advance: () => 0.5, ascent: 0.8, descent: 0.2 };
const area = (lines: number, width = 50) => ({ width, height: lines * 13, fontSize: 10, lineHeight: 1.3 });
const lines = (text: string, rows = 10, width = 50) => layoutText(text, area(rows, width), halfEm).lines;

describe('layoutText', () => {
  it('wraps greedily at spaces, spaces hanging at the end of a line', () => {
    expect(lines('aaaa bbbb cccc dd')).toEqual(['aaaa bbbb', 'cccc dd']);
    expect(lines('aaaaaaaaaa bbb')).toEqual(['aaaaaaaaaa', 'bbb']);
  });

  it('keeps spaces within a line and breaks at newlines, as pre-wrap does', () => {
    expect(lines('a   b\r\n\nc\rd\te')).toEqual(['a   b', '', 'c', 'd e']);
  });

  it('breaks a word wider than the line between characters', () => {
    expect(lines('xx abcdefghijklmnopqrstuvw')).toEqual(['xx', 'abcdefghij', 'klmnopqrst', 'uvw']);
  });

  it('cuts what does not fit in the height and ends the last line with an ellipsis that fits', () => {
    const laid = layoutText('one two three four five six seven eight', area(2), halfEm);
    expect(laid.lines).toEqual(['one two', 'three fou…']);
    expect(measure(laid.lines[1]!, halfEm) * 10).toBeLessThanOrEqual(50);
    expect(lines('a\nb\nc', 2)).toEqual(['a', 'b…']);
    expect(lines('anything', 0)).toEqual([]);
  });

  it('places the first baseline as CSS does: half the leading, then the ascent', () => {
    const laid = layoutText('a', area(1), halfEm);
    expect(laid.lineHeight).toBe(13);
    expect(laid.firstBaseline).toBeCloseTo(1.5 + 8);
  });

  it('lays out a megabyte of text in a small box without wrapping all of it', () => {
    const started = performance.now();
    expect(lines('i'.repeat(1_000_000), 3, 10)).toEqual(['ii', 'ii', 'i…']);
    expect(lines(`${'word '.repeat(200_000)}`, 2).length).toBe(2);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('DejaVu Sans metrics', () => {
  const dejavu = dejavuSans();

  it('reads advance widths from the font, one em for what it has no glyph for', () => {
    expect(dejavu.advance('A'.codePointAt(0)!)).toBeCloseTo(1401 / 2048);
    expect(dejavu.advance(' '.codePointAt(0)!)).toBeCloseTo(651 / 2048);
    expect(dejavu.advance('中'.codePointAt(0)!)).toBe(1);
    expect(dejavu.ascent).toBeCloseTo(1901 / 2048);
    expect(dejavu.descent).toBeCloseTo(483 / 2048);
  });

  it('fits a single line with an ellipsis only when it is too wide', () => {
    expect(fitLine('external-component', 144, 12, dejavu)).toBe('external-component');
    const cut = fitLine('a-type-name-far-too-long-for-its-box', 100, 12, dejavu);
    expect(cut).toMatch(/^a-type-name.*…$/);
    expect(measure(cut, dejavu) * 12).toBeLessThanOrEqual(100);
  });
});
