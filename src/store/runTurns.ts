/**
 * Whose turn it is to work on a key (an agent), for the deployment: one instance at a time,
 * so an agent's runs on two instances follow each other as they do on one, each seeing the
 * spending and memory of the runs before it. Within an instance the caller keeps its own
 * order (the runner's queue); alone, that is all there is (`ownTurns`).
 */
export interface RunTurns {
  /**
   * Waits for the key's turn, then calls `work` with whether another instance had a turn since
   * this one's last: what this instance keeps of the key may then be stale. The turn lasts
   * until `finished(result)` settles, so work whose writes outlive it (a run's log entry)
   * hands over only once they are done. Once `stop` aborts, a wait gives up: the work goes
   * on without a turn (an instance shutting down must not wait for another's).
   */
  take<T>(key: string, work: (othersHadTurns: boolean) => Promise<T>, finished: (result: T) => Promise<unknown>, stop?: AbortSignal): Promise<T>;
  close(): Promise<void>;
}

/** The turns of a single instance: its own order is the only one. */
export const ownTurns: RunTurns = {
  take: (_key, work) => work(false),
  close: async () => {},
};
