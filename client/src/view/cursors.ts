import type { RemoteCursor } from '../session/presence.js';
import type { Camera } from './camera.js';

interface DrawnCursor {
  element: HTMLDivElement;
  /** Where it is drawn and where it is going, in board coordinates. */
  x: number;
  y: number;
  targetX: number;
  targetY: number;
}

/**
 * Other people's cursors over the board. Their positions arrive every 125 ms or so; each
 * cursor glides to the newest one instead of jumping (what perfect-cursors does for tldraw).
 */
export class CursorLayer {
  private readonly drawn = new Map<number, DrawnCursor>();
  private frame: number | null = null;

  constructor(
    private readonly container: HTMLElement,
    private readonly camera: Camera,
  ) {
    camera.onChange(() => this.place());
  }

  update(cursors: RemoteCursor[]): void {
    const seen = new Set<number>();
    for (const cursor of cursors) {
      seen.add(cursor.clientId);
      let drawn = this.drawn.get(cursor.clientId);
      if (!drawn) {
        drawn = { element: cursorElement(), x: cursor.x, y: cursor.y, targetX: cursor.x, targetY: cursor.y };
        this.container.append(drawn.element);
        this.drawn.set(cursor.clientId, drawn);
      }
      drawn.element.dataset.userId = cursor.userId;
      drawn.element.style.setProperty('--color', cursor.color);
      drawn.element.querySelector('.cursor-name')!.textContent = cursor.name;
      drawn.targetX = cursor.x;
      drawn.targetY = cursor.y;
    }
    for (const [clientId, drawn] of this.drawn) {
      if (seen.has(clientId)) continue;
      drawn.element.remove();
      this.drawn.delete(clientId);
    }
    this.frame ??= requestAnimationFrame(() => this.step());
  }

  private step(): void {
    this.frame = null;
    let moving = false;
    for (const drawn of this.drawn.values()) {
      drawn.x += (drawn.targetX - drawn.x) * 0.35;
      drawn.y += (drawn.targetY - drawn.y) * 0.35;
      if (Math.abs(drawn.targetX - drawn.x) + Math.abs(drawn.targetY - drawn.y) > 0.5) moving = true;
      else ({ targetX: drawn.x, targetY: drawn.y } = drawn);
    }
    this.place();
    if (moving) this.frame = requestAnimationFrame(() => this.step());
  }

  private place(): void {
    for (const drawn of this.drawn.values()) {
      const point = this.camera.toScreen(drawn.x, drawn.y);
      drawn.element.style.transform = `translate(${point.x}px, ${point.y}px)`;
    }
  }
}

function cursorElement(): HTMLDivElement {
  const element = document.createElement('div');
  element.className = 'cursor';
  element.innerHTML = '<svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"><path d="M1 1l5 14 2-6 6-2z"/></svg><span class="cursor-name"></span>';
  return element;
}
