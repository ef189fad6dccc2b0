/** The span of a window: the limits it keeps are per minute (an agent's `maxActionsPerMinute`). */
export const WINDOW_MS = 60_000;

/**
 * Sliding one-minute windows of slots, one window per key (an agent's actions): a slot is taken
 * when a run is accepted and stays taken for sixty seconds of the injected clock, so no
 * sixty-second span ever holds more than `limit` slots. One instance keeps them in memory;
 * several keep them in Redis (redisActionWindows.ts), so a limit holds for the deployment.
 */
export interface ActionWindows {
  /** Takes a slot at `now` (ms) if fewer than `limit` were taken in the minute before it. */
  tryTake(key: string, limit: number, now: number): Promise<boolean>;
  /** How many slots are free at `now`. */
  room(key: string, limit: number, now: number): Promise<number>;
  forget(key: string): Promise<void>;
}

/** The windows of one instance, in memory. */
export class LocalActionWindows implements ActionWindows {
  private readonly taken = new Map<string, number[]>();

  async tryTake(key: string, limit: number, now: number): Promise<boolean> {
    return this.tryTakeNow(key, limit, now);
  }

  async room(key: string, limit: number, now: number): Promise<number> {
    return this.roomNow(key, limit, now);
  }

  async forget(key: string): Promise<void> {
    this.taken.delete(key);
  }

  /** `tryTake`, answered at once (the Redis windows count with it while Redis cannot answer). */
  tryTakeNow(key: string, limit: number, now: number): boolean {
    const recent = (this.taken.get(key) ?? []).filter((at) => at > now - WINDOW_MS);
    if (recent.length >= limit) {
      this.taken.set(key, recent);
      return false;
    }
    recent.push(now);
    this.taken.set(key, recent);
    return true;
  }

  roomNow(key: string, limit: number, now: number): number {
    return limit - (this.taken.get(key) ?? []).filter((at) => at > now - WINDOW_MS).length;
  }
}
