import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * bench:client's board and its peer. The board: 1,000 objects on a grid, in the mix a class
 * board holds (stickies, rectangles and ellipses with text, text boxes, pen strokes of ~50
 * points, a few objects of types the page does not know). The peer: a static page on a
 * loopback server that draws the same objects as plain SVG (a rect and a text each, a
 * polyline for ink) from a JSON array inlined in the page: what the browser itself needs to
 * show them, so the client's figure can be read as a ratio on a machine whose speed drifts.
 */

export const OBJECT_COUNT = 1_000;
const COLUMNS = 40;
const CELL = { width: 260, height: 200 };
const INK_POINTS = 50;
const COLORS = ['#fde68a', '#bbf7d0', '#bfdbfe', '#fecaca', '#e9d5ff'];

/** An object as POST /api/v1/boards `initial_objects` takes it. */
export interface ObjectInput {
  type: string;
  data: Record<string, unknown>;
  position: { x: number; y: number };
  width: number;
  height: number;
}

/** A pen stroke: a wave across the cell, `[x, y, pressure, …]` relative to the object's position. */
function inkPoints(seed: number): number[] {
  const points: number[] = [];
  for (let p = 0; p < INK_POINTS; p += 1) {
    const t = p / (INK_POINTS - 1);
    points.push(Math.round(t * 180 * 10) / 10, Math.round((60 + 45 * Math.sin(t * Math.PI * 3 + seed)) * 10) / 10, Math.round((0.35 + 0.3 * Math.sin(t * Math.PI)) * 100) / 100);
  }
  return points;
}

/** The i-th object: one in a hundred of an unknown type, the rest in a fixed rotation of the known ones. */
function objectAt(i: number): ObjectInput {
  const position = { x: (i % COLUMNS) * CELL.width, y: Math.floor(i / COLUMNS) * CELL.height };
  const color = COLORS[i % COLORS.length]!;
  const text = `Idea ${i}: a short sentence, as a student would write it on a note`;
  if (i % 100 === 99) return { type: `poll_${i % 3}`, data: { question: `Question ${i}?`, votes: i % 7 }, position, width: 200, height: 120 };
  switch (i % 6) {
    case 0:
    case 1:
      return { type: 'sticky', data: { text, color }, position, width: 200, height: 160 };
    case 2:
      return { type: 'shape', data: { shape: 'rect', text: `Box ${i}`, color }, position, width: 180, height: 120 };
    case 3:
      return { type: 'shape', data: { shape: 'ellipse', text: `Oval ${i}`, color }, position, width: 180, height: 120 };
    case 4:
      return { type: 'text', data: { text: `Heading ${i}` }, position, width: 240, height: 48 };
    default:
      return { type: 'ink', data: { points: inkPoints(i), color: '#1f2937', size: 6 }, position, width: 180, height: 120 };
  }
}

export function boardObjects(): ObjectInput[] {
  return Array.from({ length: OBJECT_COUNT }, (_, i) => objectAt(i));
}

/** The words the peer writes on an object: its text, or else its type's name. */
function peerText(object: ObjectInput): string {
  const { text, question } = object.data;
  return typeof text === 'string' ? text : typeof question === 'string' ? question : object.type;
}

/** The peer page: the objects inline, drawn by a short script into `svg#scene g.object` (the client's selectors). */
export function peerPage(objects: ObjectInput[]): string {
  const rows = objects.map((object) => ({
    x: object.position.x,
    y: object.position.y,
    w: object.width,
    h: object.height,
    fill: typeof object.data.color === 'string' && object.type !== 'ink' ? object.data.color : '#f3f4f6',
    text: object.type === 'ink' ? null : peerText(object),
    points: Array.isArray(object.data.points) ? (object.data.points as number[]) : null,
  }));
  const width = COLUMNS * CELL.width;
  const height = Math.ceil(objects.length / COLUMNS) * CELL.height;
  // `<` escaped, so no text in the data can close the script element.
  const json = JSON.stringify(rows).replace(/</g, '\\u003c');
  return `<!doctype html>
<html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>bench:client peer</title>
<style>html,body{margin:0;height:100%}svg{display:block;width:100vw;height:100vh}text{font:14px system-ui,sans-serif;fill:#1f2937}rect{stroke:#9ca3af}polyline{fill:none;stroke:#1f2937;stroke-width:4}</style>
</head><body><svg id="scene" viewBox="-40 -40 ${width + 80} ${height + 80}"></svg>
<script id="objects" type="application/json">${json}</script>
<script>
const SVG = 'http://www.w3.org/2000/svg';
const make = (tag, attributes) => {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
};
const fragment = document.createDocumentFragment();
for (const o of JSON.parse(document.getElementById('objects').textContent)) {
  const group = make('g', { class: 'object', transform: 'translate(' + o.x + ' ' + o.y + ')' });
  group.append(make('rect', { width: o.w, height: o.h, rx: 4, fill: o.fill }));
  if (o.points) {
    let line = '';
    for (let i = 0; i + 2 < o.points.length; i += 3) line += o.points[i] + ',' + o.points[i + 1] + ' ';
    group.append(make('polyline', { points: line }));
  }
  if (o.text !== null) {
    const text = make('text', { x: 8, y: 22 });
    text.textContent = o.text;
    group.append(text);
  }
  fragment.append(group);
}
document.getElementById('scene').append(fragment);
document.body.dataset.ready = 'true';
</script></body></html>`;
}

/** Serves the peer page on loopback (no-cache, as the service serves its page). */
export async function startPeer(objects: ObjectInput[]): Promise<{ url: string; close(): Promise<void> }> {
  const html = peerPage(objects);
  const server = createServer((req, res) => {
    if (req.url !== '/peer') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/peer`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
