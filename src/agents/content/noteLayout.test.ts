import { describe, expect, it } from 'vitest';
import { fitToText, noteHeight, NOTE_TYPE } from './noteLayout.js';
import { run } from '../../../test/helpers/ruleTestKit.js';

const note = (text: string, size: { width?: number; height?: number } = {}) => ({ type: NOTE_TYPE, data: { text }, position: { x: 0, y: 0 }, ...size });

describe('notes agents write, sized to show their whole text', () => {
  it("gives a short note the client's own sticky size", () => {
    expect(fitToText(note('Well done!'))).toMatchObject({ width: 200, height: 160 });
  });

  it('widens a long note before it grows tall, and grows it to fit its lines', () => {
    const long = fitToText(note('word '.repeat(300).trim()));
    expect(long.width).toBe(400);
    // 1,500 characters at 380 px of text per line: over 35 lines of 20.8 px.
    expect(long.height).toBeGreaterThan(35 * 20.8);
    const medium = fitToText(note('word '.repeat(40).trim()));
    expect(medium.width).toBeLessThan(400);
    expect(medium.height).toBeLessThanOrEqual(medium.width!);
  });

  it('keeps a width it is given and never shrinks a height it is given', () => {
    expect(fitToText(note('Short', { width: 320, height: 500 }))).toMatchObject({ width: 320, height: 500 });
    const narrow = fitToText(note('A hint that needs several lines at this narrow width.', { width: 120, height: 40 }));
    expect(narrow).toMatchObject({ width: 120 });
    expect(narrow.height).toBeGreaterThan(100);
  });

  it('counts each paragraph, and a word longer than a line across the lines it fills', () => {
    expect(noteHeight('a\nb\nc\nd', 200)).toBeGreaterThan(noteHeight('a b c d', 200));
    expect(noteHeight('x'.repeat(200), 200)).toBeGreaterThan(noteHeight('x'.repeat(20), 200));
  });

  it('sizes feedback and text labels, and leaves types the client draws without words alone', () => {
    expect(fitToText({ ...note('Correct, well done!'), type: 'feedback' })).toMatchObject({ width: 200, height: 160 });
    const label = fitToText({ ...note('Theme'), type: 'text' });
    // One line of 18 px text and the spare line, at the client's width of a text object.
    expect(label).toMatchObject({ width: 240, height: 55 });
    const shape = { type: 'shape', data: { text: 'x'.repeat(2_000) }, position: { x: 0, y: 0 } };
    expect(fitToText(shape)).toBe(shape);
    const untitled = { type: NOTE_TYPE, data: { count: 3 }, position: { x: 0, y: 0 } };
    expect(fitToText(untitled)).toBe(untitled);
  });

  it('lays out generated notes in rows as tall as their longest text, so none covers another', async () => {
    const prompt = ['short', 'a much longer idea '.repeat(12).trim(), 'another'].join('\n');
    const { objects } = await run('generate_content', { params: { prompt, style: 'grid' } });
    const [first, second, third] = objects;
    expect(first!.height).toBe(second!.height);
    expect(second!.height).toBeGreaterThanOrEqual(noteHeight(String(second!.data.text), 200));
    expect(third!.position.y).toBeGreaterThanOrEqual(first!.position.y + first!.height!);
  });
});
