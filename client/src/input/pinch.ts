import type { Camera } from '../view/camera.js';

interface Span {
  distance: number;
  x: number;
  y: number;
}

/**
 * Two fingers on the board zoom and pan it (the page turns off the browser's own pinch so a
 * student's phone does not zoom the toolbar away). While two pointers are down, tools ignore them.
 */
export class Pinch {
  private readonly pointers = new Map<number, { x: number; y: number }>();
  private last: Span | null = null;

  constructor(
    private readonly camera: Camera,
    private readonly local: (event: PointerEvent) => { x: number; y: number },
  ) {}

  /** A pointer went down; true when it starts or joins a pinch. */
  down(event: PointerEvent): boolean {
    this.pointers.set(event.pointerId, this.local(event));
    if (this.pointers.size === 2) this.last = this.span();
    return this.pointers.size >= 2;
  }

  /** A pointer moved; true when the pinch took it. */
  move(event: PointerEvent): boolean {
    if (!this.pointers.has(event.pointerId)) return false;
    this.pointers.set(event.pointerId, this.local(event));
    if (!this.last || this.pointers.size < 2) return false;
    const now = this.span();
    if (this.last.distance > 0 && now.distance > 0) this.camera.zoomAt(now.distance / this.last.distance, now.x, now.y);
    this.camera.panBy(now.x - this.last.x, now.y - this.last.y);
    this.last = now;
    return true;
  }

  /** A pointer went up; true when it ended a pinch (the tool has nothing to finish). */
  up(event: PointerEvent): boolean {
    this.pointers.delete(event.pointerId);
    const pinching = this.last !== null;
    if (this.pointers.size < 2) this.last = null;
    return pinching;
  }

  private span(): Span {
    const [a, b] = [...this.pointers.values()];
    return { distance: Math.hypot(b!.x - a!.x, b!.y - a!.y), x: (a!.x + b!.x) / 2, y: (a!.y + b!.y) / 2 };
  }
}
