import { getStroke } from 'perfect-freehand';

/**
 * The outline of an ink stroke, shared by the browser client (client/src/view/scene.ts, which
 * bundles this file) and the export renderer, so a stroke has one shape on screen and in an
 * export. Pure: it imports perfect-freehand and nothing else.
 */

/** Pen width when `data.size` is missing or out of range. */
const DEFAULT_SIZE = 6;

/** The path of an ink object's `data`: `points` as `[x, y, pressure, …]` relative to its position, and `size`. */
export function inkStroke(data: Record<string, unknown>): string {
  const flat = Array.isArray(data.points) ? (data.points as unknown[]).filter((n): n is number => typeof n === 'number' && Number.isFinite(n)) : [];
  const points: number[][] = [];
  for (let i = 0; i + 2 < flat.length; i += 3) points.push([flat[i]!, flat[i + 1]!, flat[i + 2]!]);
  const size = typeof data.size === 'number' && data.size > 0 && data.size < 100 ? data.size : DEFAULT_SIZE;
  return strokePath(points, size);
}

/**
 * Points `[x, y, pressure]` smoothed into a filled outline. Pressure shapes the width; a stroke
 * whose every pressure is 0.5 (a mouse, which has none) gets simulated pressure instead.
 */
export function strokePath(points: number[][], size: number): string {
  const outline = getStroke(points, { size, thinning: 0.6, smoothing: 0.5, streamline: 0.5, simulatePressure: points.every((p) => p[2] === 0.5) });
  if (outline.length < 2) return '';
  const [first, ...rest] = outline;
  return `M${first![0].toFixed(1)},${first![1].toFixed(1)}${rest.map(([x, y]) => `L${x.toFixed(1)},${y.toFixed(1)}`).join('')}Z`;
}
