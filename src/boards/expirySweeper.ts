import type { Logger } from '../logger.js';
import type { BoardService } from './boardService.js';

/**
 * Expires boards on a timer, so `board.expired` is raised even when nobody reads the
 * board. The time itself comes from the service's clock; only the cadence is real.
 */
export class ExpirySweeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(
    private readonly boards: BoardService,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    if (this.timer || this.intervalMs === 0) return;
    this.timer = setInterval(() => void this.sweep(), this.intervalMs);
    this.timer.unref();
  }

  /** One sweep; overlapping calls share the one in flight. */
  sweep(): Promise<unknown> {
    this.running ??= this.boards
      .expireOverdue()
      .then((count) => {
        if (count > 0) this.logger.info({ expired: count }, 'boards expired');
      })
      .catch((error) => this.logger.error({ err: error }, 'expiry sweep failed'))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
