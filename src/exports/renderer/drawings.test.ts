import { describe, expect, it } from 'vitest';
import type { BoardObject } from '../../boards/boardObjects.js';
import { drawObject } from './drawings.js';
import { dejavuSans } from './fontMetrics.js';
import { inkStroke } from './inkPath.js';
import { assetKey, renderObjectOf, type ResolvedAsset } from './renderModel.js';

const assets = new Map<string, ResolvedAsset>([
  [assetKey('a1'), { href: 'asset:a1', width: 800, height: 600 }],
  [assetKey('p1', 2), { href: 'asset:p1#page-2', width: 1240, height: 1754 }],
  [assetKey('evil'), { href: 'javascript:alert(1)', width: 10, height: 10 }],
  [assetKey('svg'), { href: 'data:image/svg+xml;base64,PHN2Zz4=', width: 10, height: 10 }],
]);
const context = { assets, metrics: dejavuSans() };

/** One object drawn at (10, 20), with what the case gives. */
function draw(fields: Partial<BoardObject> & Record<string, unknown>): string {
  return drawObject(renderObjectOf({ id: 'o1', type: 'sticky', data: {}, position: { x: 10, y: 20.04 }, created_at: '', created_by: null, ...fields }), context);
}
const group = (type: string, inner: string) => `<g transform="translate(10 20)" data-object-id="o1" data-type="${type}">${inner}</g>`;
const NOTE_RECT = (fill: string) => `<rect width="200" height="160" rx="4" fill="${fill}" stroke="#eab308" stroke-width="1.5" filter="url(#note-shadow)"/>`;
const NOTE_LINE = (words: string) => `<text font-size="16" fill="#1f2937" xml:space="preserve"><tspan x="10" y="25.9">${words}</tspan></text>`;
const UNAVAILABLE =
  '<rect width="200" height="100" rx="4" fill="#f1f5f9" stroke="#94a3b8" stroke-width="1.5" stroke-dasharray="6 4"/>' +
  '<text font-size="14" fill="#6b7280" text-anchor="middle" xml:space="preserve"><tspan x="100" y="54.8">Image unavailable</tspan></text>';

describe('drawings, as the client draws each type', () => {
  it('sticky: a note in its colour, the text from the top left', () => {
    expect(draw({ data: { text: 'Plant cells have walls', color: '#A7F3D0' }, width: 200, height: 160 })).toBe(group('sticky', NOTE_RECT('#a7f3d0') + NOTE_LINE('Plant cells have walls')));
  });

  it('sticky_note and feedback: notes too; feedback coloured by its verdict, a bad colour falls back', () => {
    expect(draw({ type: 'sticky_note', data: { text: 'Default', color: 'url(#x)' } })).toBe(group('sticky_note', NOTE_RECT('#fde68a') + NOTE_LINE('Default')));
    expect(draw({ type: 'feedback', data: { text: 'Yes', correct: true } })).toBe(group('feedback', NOTE_RECT('#bbf7d0') + NOTE_LINE('Yes')));
    expect(draw({ type: 'feedback', data: { text: 'Not yet', correct: false } })).toBe(group('feedback', NOTE_RECT('#fed7aa') + NOTE_LINE('Not yet')));
    expect(draw({ type: 'feedback', data: {} })).toBe(group('feedback', NOTE_RECT('#e0e7ff')));
  });

  it('sticky text wraps at the note width and ends in an ellipsis when it overflows', () => {
    const words = 'Hello world, this is a sticky note with quite a lot of text that should wrap nicely over lines and then some more';
    expect(draw({ data: { text: words } })).toBe(
      group(
        'sticky',
        NOTE_RECT('#fde68a') +
          '<text font-size="16" fill="#1f2937" xml:space="preserve">' +
          '<tspan x="10" y="25.9">Hello world, this is a</tspan><tspan x="10" y="46.7">sticky note with quite</tspan>' +
          '<tspan x="10" y="67.5">a lot of text that</tspan><tspan x="10" y="88.3">should wrap nicely</tspan>' +
          '<tspan x="10" y="109.1">over lines and then</tspan><tspan x="10" y="129.9">some more</tspan></text>',
      ),
    );
    expect(draw({ data: { text: `${words} and more words that cannot fit` } })).toContain('<tspan x="10" y="129.9">some more and mor…</tspan></text>');
  });

  it('shape: a rectangle with its text centred, or an ellipse by data.shape or data.kind', () => {
    expect(draw({ type: 'shape', data: { text: 'Box' }, width: 180, height: 120 })).toBe(
      group(
        'shape',
        '<rect width="180" height="120" rx="2" fill="#e0f2fe" stroke="#0284c7" stroke-width="2"/>' +
          '<text font-size="16" fill="#1f2937" text-anchor="middle" xml:space="preserve"><tspan x="90" y="65.5">Box</tspan></text>',
      ),
    );
    expect(draw({ type: 'shape', data: { kind: 'circle', color: 'rebeccapurple' }, width: 100, height: 100 })).toBe(
      group('shape', '<ellipse cx="50" cy="50" rx="50" ry="50" fill="rebeccapurple" stroke="#0284c7" stroke-width="2"/>'),
    );
    expect(draw({ type: 'shape', data: { shape: 'ellipse' }, width: 100, height: 50 })).toContain('<ellipse cx="50" cy="25" rx="50" ry="25"');
  });

  it('text: bare 18 px text with 4 px padding', () => {
    expect(draw({ type: 'text', data: { text: 'Title' } })).toBe(group('text', '<text font-size="18" fill="#1f2937" xml:space="preserve"><tspan x="4" y="21.9">Title</tspan></text>'));
  });

  it("ink: the client's outline of the points, in data.color or ink colour", () => {
    const data = { points: [0, 0, 0.2, 10, 5, 0.8, 20, 0, 0.4], size: 4 };
    const d = inkStroke(data);
    expect(d).toMatch(/^M0\.6,-1\.1L6\.6,0\.4L13\.6,-0\.5L.*Z$/);
    expect(draw({ type: 'ink', data })).toBe(group('ink', `<path d="${d}" fill="#1f2937"/>`));
    expect(draw({ type: 'ink', data: { ...data, color: 'crimson' } })).toBe(group('ink', `<path d="${d}" fill="crimson"/>`));
    expect(draw({ type: 'ink', data: { points: 'none' } })).toBe(group('ink', ''));
  });

  it('image: the asset in a nested svg whose viewBox is the crop, fitted as the client fits it', () => {
    expect(draw({ type: 'image', data: { asset_id: 'a1', alt: 'A <map>' }, width: 400, height: 300 })).toBe(
      group(
        'image',
        '<svg width="400" height="300" viewBox="0 0 800 600" preserveAspectRatio="xMidYMid meet"><title>A &lt;map&gt;</title>' +
          '<image width="800" height="600" href="asset:a1" preserveAspectRatio="none"/></svg>',
      ),
    );
    expect(draw({ type: 'image', data: { asset_id: 'a1', crop: { x: 100, y: 50, width: 200, height: 100.25 } }, width: 400, height: 200 })).toBe(
      group('image', '<svg width="400" height="200" viewBox="100 50 200 100.3" preserveAspectRatio="xMidYMid meet"><image width="800" height="600" href="asset:a1" preserveAspectRatio="none"/></svg>'),
    );
    expect(draw({ type: 'image', data: { asset_id: 'a1', crop: { x: 0, y: 0, width: -5, height: 10 } } })).toContain('viewBox="0 0 800 600"');
  });

  it('pdf-page: the page under its own key', () => {
    expect(draw({ type: 'pdf-page', data: { asset_id: 'p1', page: 2, layer: 'background' }, width: 620, height: 877 })).toBe(
      group('pdf-page', '<svg width="620" height="877" viewBox="0 0 1240 1754" preserveAspectRatio="xMidYMid meet"><image width="1240" height="1754" href="asset:p1#page-2" preserveAspectRatio="none"/></svg>'),
    );
  });

  it('"Image unavailable" for a missing asset, a missing page, or pixels from an unsafe href', () => {
    const size = { width: 200, height: 100 };
    expect(draw({ type: 'image', data: { asset_id: 'gone' }, ...size })).toBe(group('image', UNAVAILABLE));
    expect(draw({ type: 'image', data: {}, ...size })).toBe(group('image', UNAVAILABLE));
    expect(draw({ type: 'pdf-page', data: { asset_id: 'p1', page: 3 }, ...size })).toBe(group('pdf-page', UNAVAILABLE));
    expect(draw({ type: 'pdf-page', data: { asset_id: 'p1', page: '2' }, ...size })).toBe(group('pdf-page', UNAVAILABLE));
    expect(draw({ type: 'image', data: { asset_id: 'evil' }, ...size })).toBe(group('image', UNAVAILABLE));
    expect(draw({ type: 'image', data: { asset_id: 'svg' }, ...size })).toBe(group('image', UNAVAILABLE));
  });

  it('external-component: the dashed box labelled with its type and naming the component', () => {
    const url = 'https://cdn.example/api/v1/components/files/fraction-bar@1.2.0/index.html';
    expect(draw({ type: 'external-component', data: { componentUrl: url, props: { label: 'not shown' } } })).toBe(
      group(
        'external-component',
        '<rect width="300" height="200" rx="4" fill="#f1f5f9" stroke="#64748b" stroke-width="1.5" stroke-dasharray="6 4"/>' +
          '<text x="8" y="16" font-size="12" fill="#6b7280" xml:space="preserve">external-component</text>' +
          '<text font-size="16" fill="#1f2937" xml:space="preserve"><tspan x="10" y="47.9">fraction-bar@1.2.0</tspan></text>',
      ),
    );
    expect(draw({ type: 'external-component', data: { componentUrl: 'https://elsewhere.example/widget.html' } })).toContain(
      // A URL has no spaces: it breaks between characters where the line is full (overflow-wrap: anywhere).
      '<tspan x="10" y="47.9">https://elsewhere.example/widget.</tspan><tspan x="10" y="68.7">html</tspan>',
    );
    expect(draw({ type: 'external-component', data: {} })).toContain('>(no componentUrl)<');
  });

  it('any other type: the dashed box with its type and data.text, or else the first string in data', () => {
    const box = '<rect width="160" height="100" rx="4" fill="#f1f5f9" stroke="#64748b" stroke-width="1.5" stroke-dasharray="6 4"/>';
    expect(draw({ type: 'poll', data: { votes: 3, blank: ' ', question: 'Cats or dogs?' } })).toBe(
      group('poll', `${box}<text x="8" y="16" font-size="12" fill="#6b7280" xml:space="preserve">poll</text><text font-size="16" fill="#1f2937" xml:space="preserve"><tspan x="10" y="47.9">Cats or dogs?</tspan></text>`),
    );
    expect(draw({ type: 'poll', data: { question: 'ignored', text: 'Shown' } })).toContain('>Shown</tspan>');
    expect(draw({ type: 'diagram', data: { nodes: [1] } })).toBe(group('diagram', `${box}<text x="8" y="16" font-size="12" fill="#6b7280" xml:space="preserve">diagram</text>`));
    expect(draw({ type: 'a-type-name-far-too-long-for-a-small-box' })).toContain('>a-type-name-far-too-l…</text>');
  });

  it('object data never becomes markup', () => {
    const hostile = '</text><script>alert(1)</script><text>';
    const drawn = [
      draw({ data: { text: hostile, color: '#fff" onload="x' } }),
      draw({ type: hostile, id: hostile, data: { text: hostile } }),
      draw({ type: 'external-component', data: { componentUrl: `https://x.example/"><script>` } }),
      draw({ type: 'image', data: { asset_id: 'a1', alt: hostile } }),
    ].join('');
    expect(drawn).not.toMatch(/<script|<text>|onload=/);
    expect(drawn.match(/<text /g)?.length).toBe(drawn.match(/<\/text>/g)?.length);
    expect(drawn).toContain('&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(drawn).toContain('data-object-id="&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;text&gt;"');
  });
});
