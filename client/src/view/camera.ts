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
 * zoom. A hard-locked frame bounds it: the view's centre stays in the frame and the view is
 * never zoomed out past showing the whole frame.
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
    this.screen = { width: Math.max(1, width), height: Math.max(1, height) };
    this.apply(this.x, this.y, this.zoom);
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
    const zoom = clamp(this.zoom * factor, this.minZoom(), MAX_ZOOM);
    this.apply(anchor.x - screenX / zoom, anchor.y - screenY / zoom, zoom);
  }

  /** Shows a rectangle whole, centred; smoothly when asked. */
  fit(rect: Rect, smooth: boolean): void {
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

  private minZoom(): number {
    if (!this.lock) return MIN_ZOOM;
    return Math.min(this.screen.width / this.lock.width, this.screen.height / this.lock.height) * 0.92;
  }

  private apply(x: number, y: number, zoom: number): void {
    let next = { x, y };
    if (this.lock) next = this.constrain(x, y, zoom, this.lock);
    this.x = next.x;
    this.y = next.y;
    this.zoom = zoom;
    for (const listener of this.listeners) listener();
  }

  /** Moves the view so its centre lies in the locked frame. */
  private constrain(x: number, y: number, zoom: number, lock: Rect): { x: number; y: number } {
    const halfWidth = this.screen.width / zoom / 2;
    const halfHeight = this.screen.height / zoom / 2;
    const centreX = clamp(x + halfWidth, lock.x, lock.x + lock.width);
    const centreY = clamp(y + halfHeight, lock.y, lock.y + lock.height);
    return { x: centreX - halfWidth, y: centreY - halfHeight };
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

export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

export function containsPoint(rect: Rect, point: { x: number; y: number }): boolean {
  return point.x >= rect.x && point.x <= rect.x + rect.width && point.y >= rect.y && point.y <= rect.y + rect.height;
}
