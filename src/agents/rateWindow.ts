const MINUTE_MS = 60_000;

/**
 * A sliding one-minute window of action slots per agent: a slot is taken when a run is
 * accepted and stays taken for sixty seconds of the injected clock, so no sixty-second span
 * ever holds more than the agent's `maxActionsPerMinute` runs.
 */
export class RateWindow {
  private readonly taken = new Map<string, number[]>();

  /** Takes a slot at `now` if fewer than `limit` were taken in the minute before it. */
  tryTake(agentId: string, limit: number, now: number): boolean {
    const recent = (this.taken.get(agentId) ?? []).filter((at) => at > now - MINUTE_MS);
    if (recent.length >= limit) {
      this.taken.set(agentId, recent);
      return false;
    }
    recent.push(now);
    this.taken.set(agentId, recent);
    return true;
  }

  /** How many slots are free at `now`. */
  room(agentId: string, limit: number, now: number): number {
    return limit - (this.taken.get(agentId) ?? []).filter((at) => at > now - MINUTE_MS).length;
  }

  forget(agentId: string): void {
    this.taken.delete(agentId);
  }
}
