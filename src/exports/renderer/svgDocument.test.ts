import { createRequire } from 'node:module';
import { Resvg } from '@resvg/resvg-js';
import { describe, expect, it } from 'vitest';
import type { BoardObject } from '../../boards/boardObjects.js';
import { orderForRender, renderObjectOf, type RenderFrame, type RenderScene } from './renderModel.js';
import { renderSvg } from './svgDocument.js';

const object = (fields: Partial<BoardObject> & Record<string, unknown>) =>
  renderObjectOf({ id: 'o', type: 'sticky', data: {}, position: { x: 0, y: 0 }, created_at: '2026-01-01T00:00:00.000Z', created_by: null, ...fields });
const zone: RenderFrame = { id: 'z1', name: 'Ana’s zone', bounds: { x: 0, y: 0, width: 400, height: 300 }, backgroundColor: null, note: 'Ana <ana@example>' };
const sticky = object({ id: 's1', data: { text: 'Hi' }, position: { x: 40, y: 50 }, width: 200, height: 160, created_at: '2026-01-01T00:00:02.000Z' });
const page = object({ id: 'p1', type: 'pdf-page', data: { asset_id: 'gone', page: 1, layer: 'background' }, position: { x: 0, y: 0 }, width: 400, height: 300, created_at: '2026-01-01T00:00:03.000Z' });
const scene = (fields: Partial<RenderScene> = {}): RenderScene => ({
  bounds: { x: -20, y: -40, width: 440, height: 360 },
  frames: [zone],
  objects: orderForRender([sticky, page]),
  assets: new Map(),
  ...fields,
});

describe('renderSvg', () => {
  it('streams the header, defs, frames, background layer and objects, one object per chunk', () => {
    const chunks = [...renderSvg(scene(), { title: 'Board <1> & co' })];
    expect(chunks.slice(0, 4)).toEqual([
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
        '<svg xmlns="http://www.w3.org/2000/svg" width="440" height="360" viewBox="-20 -40 440 360" font-family="DejaVu Sans">' +
        '<title>Board &lt;1&gt; &amp; co</title><rect x="-20" y="-40" width="440" height="360" fill="#ffffff"/>',
      '<defs><filter id="note-shadow"><feDropShadow dx="0" dy="2" stdDeviation="1" flood-color="#000000" flood-opacity="0.15"/></filter></defs>',
      '<g id="frames-layer">',
      '<g data-frame-id="z1"><rect x="0" y="0" width="400" height="300" rx="6" fill="#ffffff" fill-opacity="0.7" stroke="#94a3b8" stroke-width="1.5"/>' +
        '<text x="8" y="-10" font-size="16" font-weight="600" fill="#334155" xml:space="preserve">Ana’s zone' +
        '<tspan dx="10" font-size="13" font-weight="400" fill="#6b7280">Ana &lt;ana@example&gt;</tspan></text></g>',
    ]);
    expect(chunks.slice(4).map((chunk) => chunk.split('>')[0])).toEqual([
      '</g',
      '<g id="background-layer"',
      '<g transform="translate(0 0)" data-object-id="p1" data-type="pdf-page"',
      '</g',
      '<g id="objects-layer"',
      '<g transform="translate(40 50)" data-object-id="s1" data-type="sticky"',
      '</g',
      '</svg',
    ]);
  });

  it('sizes the picture by the scale, and paints the page in the background colour or not at all', () => {
    const header = (options: Parameters<typeof renderSvg>[1]) => renderSvg(scene(), options)[Symbol.iterator]().next().value!;
    expect(header({ scale: 2.5 })).toContain('width="1100" height="900" viewBox="-20 -40 440 360"');
    expect(header({ scale: -1 })).toContain('width="440" height="360"');
    expect(header({ scale: 0.001 })).toContain('width="1" height="1"');
    expect(header({ background: '#F8FAFC' })).toContain('fill="#f8fafc"/>');
    expect(header({ background: 'url(#evil)' })).toContain('fill="#ffffff"/>');
    expect(header({ background: null })).not.toContain('<rect');
    expect(header({})).not.toContain('<title');
  });

  it('draws a frame in its background colour, opaque as the client draws it', () => {
    const svg = [...renderSvg(scene({ frames: [{ ...zone, backgroundColor: '#FEF3C7', note: null }] }))].join('');
    expect(svg).toContain('<rect x="0" y="0" width="400" height="300" rx="6" fill="#fef3c7" stroke="#94a3b8" stroke-width="1.5"/><text x="8" y="-10" font-size="16" font-weight="600" fill="#334155" xml:space="preserve">Ana’s zone</text>');
  });

  it('is well-formed XML that resvg renders at the expected size, the sticky where it stands', () => {
    const fonts = ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'].map((file) => createRequire(import.meta.url).resolve(`dejavu-fonts-ttf/ttf/${file}`));
    const rasterize = (svg: string) => new Resvg(svg, { font: { loadSystemFonts: false, fontFiles: fonts, defaultFontFamily: 'DejaVu Sans' } }).render();
    const hostile = object({ id: 's2', data: { text: '</text><script>alert(1)</script>\u0000 & ]]>' }, position: { x: 260, y: 50 }, width: 120, height: 80, created_at: '2026-01-01T00:00:04.000Z' });
    const svg = [...renderSvg(scene({ objects: orderForRender([sticky, page, hostile]) }), { scale: 2, title: '<b>' })].join('');

    // resvg parses with a strict XML parser: it refuses what is not well-formed, as the control shows.
    expect(() => rasterize(svg.replace('&lt;/text&gt;', '</text>'))).toThrow();
    const image = rasterize(svg);
    expect([image.width, image.height]).toEqual([880, 720]);
    const png = image.asPng();
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([880, 720]);

    // Board (x, y) is pixel ((x + 20) * 2, (y + 40) * 2).
    const pixel = (x: number, y: number) => [...image.pixels.subarray(((y + 40) * 2 * 880 + (x + 20) * 2) * 4, ((y + 40) * 2 * 880 + (x + 20) * 2) * 4 + 3)];
    expect(pixel(200, 180)).toEqual([0xfd, 0xe6, 0x8a]); // inside the sticky, clear of its text
    expect(pixel(-10, -30)).toEqual([255, 255, 255]); // the page outside every frame
  });
});
