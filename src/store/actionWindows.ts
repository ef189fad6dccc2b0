/** The span of a window: the limits it keeps are per minute (an agent's `maxActionsPerMinute`). */
export const WINDOW_MS = 60_000;

/**
 * Sliding one-minute windows of slots, one window per key (an agent's actions): a slot is taken
 * when a run is accepted and stays taken for sixty seconds of the injected clock, so no
 * sixty-second span ever holds more than `limit` slots. One instance keeps them in memory;
 * several keep them in Redis (redisActionWindows.ts), so a limit holds for the deployment.
 */
export interface ActionWindows {
  /**
   * Takes `slots` slots at `now` (ms) if at most `limit - slots` were taken in the minute before
   * it; otherwise takes none. Checked and taken in one step, whoever else is taking.
   */
  tryTake(key: string, limit: number, now: number, slots?: number): Promise<boolean>;
  forget(key: string): Promise<void>;
}

/** The windows of one instance, in memory. */
export class LocalActionWindows implements ActionWindows {
  private readonly taken = new Map<string, number[]>();

  async tryTake(key: string, limit: number, now: number, slots = 1): Promise<boolean> {
    return this.tryTakeNow(key, limit, now, slots);
  }

  async forget(key: string): Promise<void> {
    this.taken.delete(key);
  }

  /** `tryTake`, answered at once (the Redis windows count with it while Redis cannot answer). */
  tryTakeNow(key: string, limit: number, now: number, slots = 1): boolean {
    const recent = (this.taken.get(key) ?? []).filter((at) => at > now - WINDOW_MS);
    this.taken.set(key, recent);
    if (recent.length + slots > limit) return false;
    for (let slot = 0; slot < slots; slot += 1) recent.push(now);
    return true;
  }
}
