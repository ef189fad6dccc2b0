import type { FrameRecord, FrameSet } from '../model/frames.js';
import type { ClientMessage } from '../../../src/realtime/protocol/clientMessages.js';
import { containsPoint, type Camera, type Rect } from '../view/camera.js';

/** At most one location a second: the socket's budget is 10 messages a second, most of it for cursors. */
const LOCATION_INTERVAL_MS = 1000;

export const boundsOf = (frame: FrameRecord): Rect => ({ x: frame.bounds_x, y: frame.bounds_y, width: frame.bounds_width, height: frame.bounds_height });

/**
 * Where a student may look and where the host sees it look: a hard lock holds the view in
 * its frame, a soft lock warns when the view leaves it (hosts are never held), navigation moves
 * the view, and the view's frame and bounds go to the server at most once a second.
 */
export class ViewportRules {
  private lock: { frameId: string; mode: 'soft' | 'hard' } | null = null;
  private lastSentAt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly camera: Camera,
    private readonly frames: FrameSet,
    private readonly options: { isHost: boolean; warning: HTMLElement; send: (message: ClientMessage) => void },
  ) {
    camera.onChange(() => {
      this.checkSoftLock();
      this.reportLocation();
    });
  }

  /** At start: the lock a frame already carries holds a student who arrives late. */
  applyStoredLocks(): void {
    const locked = this.frames.list().find((frame) => frame.lock_mode !== 'none');
    if (locked) this.setLock(locked.id, locked.lock_mode);
  }

  navigate(frameId: string, smooth: boolean): void {
    const frame = this.frames.get(frameId);
    if (frame) this.camera.fit(boundsOf(frame), smooth);
  }

  setLock(frameId: string, mode: FrameRecord['lock_mode']): void {
    if (this.options.isHost) return;
    const frame = this.frames.get(frameId);
    if (mode === 'none' || !frame) {
      if (this.lock?.frameId === frameId || !frame) this.release();
      return;
    }
    this.lock = { frameId, mode };
    this.camera.lockTo(mode === 'hard' ? boundsOf(frame) : null);
    if (mode === 'soft') this.camera.fit(boundsOf(frame), true);
    this.checkSoftLock();
  }

  /** A frame changed or went away: keep holding the view to its current bounds. */
  frameChanged(frameId: string): void {
    if (this.lock?.frameId !== frameId) return;
    const frame = this.frames.get(frameId);
    if (!frame || frame.lock_mode === 'none') return this.release();
    this.setLock(frameId, frame.lock_mode);
  }

  lockedFrame(): string | null {
    return this.lock?.frameId ?? null;
  }

  private release(): void {
    this.lock = null;
    this.camera.lockTo(null);
    this.options.warning.hidden = true;
  }

  private checkSoftLock(): void {
    if (this.lock?.mode !== 'soft') {
      this.options.warning.hidden = true;
      return;
    }
    const frame = this.frames.get(this.lock.frameId);
    const view = this.camera.viewport();
    const centre = { x: view.x + view.width / 2, y: view.y + view.height / 2 };
    this.options.warning.hidden = !frame || containsPoint(boundsOf(frame), centre);
  }

  private reportLocation(): void {
    const wait = LOCATION_INTERVAL_MS - (Date.now() - this.lastSentAt);
    if (wait > 0) {
      this.timer ??= setTimeout(() => this.reportLocation(), wait);
      return;
    }
    this.timer = null;
    this.lastSentAt = Date.now();
    const view = this.camera.viewport();
    const centre = { x: view.x + view.width / 2, y: view.y + view.height / 2 };
    const frame = this.frames.list().find((candidate) => containsPoint(boundsOf(candidate), centre));
    const round = (n: number) => Math.round(n);
    this.options.send({ type: 'participant:location', frameId: frame?.id ?? null, viewportBounds: { x: round(view.x), y: round(view.y), width: round(view.width), height: round(view.height) } });
  }
}
