import { describe, expect, it } from 'vitest';
import type { BoardObject } from '../../boards/boardObjects.js';
import { assetKey, orderForRender, renderObjectOf, sceneBounds, type RenderFrame } from './renderModel.js';

const record = (fields: Record<string, unknown>) => ({ id: 'o', type: 'sticky', data: {}, position: { x: 0, y: 0 }, created_at: '2026-01-01T00:00:00.000Z', created_by: null, ...fields }) as BoardObject;

describe('renderObjectOf', () => {
  it('reads a record as the client does: type sizes for missing ones, zeros for bad positions', () => {
    expect(renderObjectOf(record({ id: 'n', width: 320, height: 90, data: { text: 'x' }, position: { x: 5, y: -7 } }))).toEqual({
      id: 'n',
      type: 'sticky',
      data: { text: 'x' },
      position: { x: 5, y: -7 },
      width: 320,
      height: 90,
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    const odd = renderObjectOf(record({ type: 'shape', width: -1, height: '40', position: { x: Infinity, y: 'a' }, data: [1, 2], created_at: 7 }));
    expect(odd).toMatchObject({ width: 180, height: 120, position: { x: 0, y: 0 }, data: {}, createdAt: '' });
    expect(renderObjectOf(record({ type: 42, width: 1e12, position: null }))).toMatchObject({ type: 'unknown', width: 100_000, height: 100, position: { x: 0, y: 0 } });
    expect(renderObjectOf(record({ type: 'constructor' }))).toMatchObject({ width: 160, height: 100 });
  });
});

describe('orderForRender', () => {
  it('draws the background layer first, then objects in creation order (ties by id)', () => {
    const objects = [
      record({ id: 'late', created_at: '2026-01-03T00:00:00.000Z' }),
      record({ id: 'page-b', created_at: '2026-01-04T00:00:00.000Z', data: { layer: 'background' } }),
      record({ id: 'b', created_at: '2026-01-02T00:00:00.000Z' }),
      record({ id: 'a', created_at: '2026-01-02T00:00:00.000Z' }),
      record({ id: 'page-a', created_at: '2026-01-01T00:00:00.000Z', data: { layer: 'background' } }),
      record({ id: 'undated', created_at: undefined }),
    ].map(renderObjectOf);
    expect(orderForRender(objects).map((object) => object.id)).toEqual(['page-a', 'page-b', 'undated', 'a', 'b', 'late']);
  });
});

describe('sceneBounds', () => {
  const frame: RenderFrame = { id: 'f', name: 'Zone', bounds: { x: 100, y: 100, width: 400, height: 300 }, backgroundColor: null, note: null };

  it('holds every frame with its label and every object, plus the margin', () => {
    const objects = [record({ position: { x: -50, y: 200 }, width: 100, height: 100 }), record({ position: { x: 300, y: 350 }, width: 300, height: 200 })].map(renderObjectOf);
    expect(sceneBounds([frame], objects, 10)).toEqual({ x: -60, y: 60, width: 670, height: 500 });
    expect(sceneBounds([frame], [])).toEqual({ x: 60, y: 30, width: 480, height: 410 });
  });

  it('is a 1x1 area for an empty board, and copes with many objects', () => {
    expect(sceneBounds([], [])).toEqual({ x: 0, y: 0, width: 1, height: 1 });
    // More than Math.min(...spread) takes as arguments.
    const many = Array.from({ length: 150_000 }, (_, i) => ({ id: `o${i}`, type: 'ink', data: {}, position: { x: i, y: 0 }, width: 1, height: 1, createdAt: '' }));
    expect(sceneBounds([], many, 0)).toEqual({ x: 0, y: 0, width: 150_000, height: 1 });
  });
});

describe('assetKey', () => {
  it('names an image by its asset and a PDF page by asset and page', () => {
    expect(assetKey('a1')).toBe('a1');
    expect(assetKey('a1', 3)).toBe('a1#page-3');
  });
});
