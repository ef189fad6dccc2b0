/** A rectangle in board pixels. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

const MIN_ZOOM = 0.1;
const MAX_ZOOM = 4;

/**
 * What part of the board the screen shows: the board point at the screen's top-left and the
 * zoom. A hard-locked frame bounds it, whatever moved it (wheel, drag, pinch, keys, a resize, a
 * fit): on an axis where the frame is larger than the view the view stays inside the frame, on
 * an axis where it is smaller the frame stays centred, and the view is never zoomed out past
 * the zoom at which the whole frame fits.
 */
export class Camera {
  x = 0;
  y = 0;
  zoom = 1;
  private screen = { width: 1, height: 1 };
  private lock: Rect | null = null;
  private readonly listeners = new Set<() => void>();
  private animation: number | null = null;

  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  resize(width: number, height: number): void {
    // A student shown the whole locked frame still sees all of it after turning the phone.
    const wholeFrame = this.lock !== null && this.zoom <= this.zoomLimits().min * (1 + 1e-9);
    this.screen = { width: Math.max(1, width), height: Math.max(1, height) };
    this.apply(this.x, this.y, wholeFrame ? this.zoomLimits().min : this.zoom);
  }

  /** The board area on screen. */
  viewport(): Rect {
    return { x: this.x, y: this.y, width: this.screen.width / this.zoom, height: this.screen.height / this.zoom };
  }

  toBoard(screenX: number, screenY: number): { x: number; y: number } {
    return { x: this.x + screenX / this.zoom, y: this.y + screenY / this.zoom };
  }

  toScreen(x: number, y: number): { x: number; y: number } {
    return { x: (x - this.x) * this.zoom, y: (y - this.y) * this.zoom };
  }

  panBy(screenDx: number, screenDy: number): void {
    this.stopAnimation();
    this.apply(this.x - screenDx / this.zoom, this.y - screenDy / this.zoom, this.zoom);
  }

  /** Zooms by `factor` keeping the board point under the screen point where it is. */
  zoomAt(factor: number, screenX: number, screenY: number): void {
    this.stopAnimation();
    const anchor = this.toBoard(screenX, screenY);
    const { min, max } = this.zoomLimits();
    const zoom = clamp(this.zoom * factor, min, max);
    this.apply(anchor.x - screenX / zoom, anchor.y - screenY / zoom, zoom);
  }

  /** Shows a rectangle whole, centred; smoothly when asked (at once also ends a glide under way). */
  fit(rect: Rect, smooth: boolean): void {
    this.stopAnimation();
    const margin = 0.92;
    const zoom = clamp(Math.min((this.screen.width / rect.width) * margin, (this.screen.height / rect.height) * margin), MIN_ZOOM, MAX_ZOOM);
    const x = rect.x + rect.width / 2 - this.screen.width / zoom / 2;
    const y = rect.y + rect.height / 2 - this.screen.height / zoom / 2;
    if (!smooth || typeof requestAnimationFrame !== 'function') return this.apply(x, y, zoom);
    this.animate(x, y, zoom);
  }

  /** Holds the view inside a frame (null releases it). */
  lockTo(rect: Rect | null): void {
    this.lock = rect;
    if (rect) this.fit(rect, false);
  }

  isLocked(): boolean {
    return this.lock !== null;
  }

  /** Under a hard lock the least zoom shows the whole frame, even where that is past MAX_ZOOM. */
  private zoomLimits(): { min: number; max: number } {
    if (!this.lock) return { min: MIN_ZOOM, max: MAX_ZOOM };
    const whole = Math.min(this.screen.width / this.lock.width, this.screen.height / this.lock.height);
    return { min: whole, max: Math.max(MAX_ZOOM, whole) };
  }

  private apply(x: number, y: number, zoom: number): void {
    const next = this.lock ? this.hold(x, y, zoom, this.lock) : { x, y, zoom };
    this.x = next.x;
    this.y = next.y;
    this.zoom = next.zoom;
    for (const listener of this.listeners) listener();
  }

  /** The nearest view the locked frame allows, each axis on its own. */
  private hold(x: number, y: number, zoom: number, lock: Rect): { x: number; y: number; zoom: number } {
    const { min, max } = this.zoomLimits();
    const held = clamp(zoom, min, max);
    return {
      x: holdAxis(x, this.screen.width / held, lock.x, lock.width),
      y: holdAxis(y, this.screen.height / held, lock.y, lock.height),
      zoom: held,
    };
  }

  private animate(x: number, y: number, zoom: number): void {
    this.stopAnimation();
    const from = { x: this.x, y: this.y, zoom: this.zoom };
    const started = performance.now();
    const step = (now: number) => {
      const t = Math.min(1, (now - started) / 450);
      const eased = 1 - Math.pow(1 - t, 3);
      this.apply(from.x + (x - from.x) * eased, from.y + (y - from.y) * eased, from.zoom + (zoom - from.zoom) * eased);
      this.animation = t < 1 ? requestAnimationFrame(step) : null;
    };
    this.animation = requestAnimationFrame(step);
  }

  private stopAnimation(): void {
    if (this.animation !== null) cancelAnimationFrame(this.animation);
    this.animation = null;
  }
}

/** Where a view of `span` may start on one axis: inside a larger frame, centred on a smaller one. */
function holdAxis(start: number, span: number, frameStart: number, frameSpan: number): number {
  if (span >= frameSpan) return frameStart + (frameSpan - span) / 2;
  return clamp(start, frameStart, frameStart + frameSpan - span);
}

export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

export function containsPoint(rect: Rect, point: { x: number; y: number }): boolean {
  return point.x >= rect.x && point.x <= rect.x + rect.width && point.y >= rect.y && point.y <= rect.y + rect.height;
}
