/**
 * What one instance of the service tells the others (multi-instance mode): signals that
 * change what the others hold in memory (their caches, their sockets). Each instance applies a
 * change to itself directly and publishes it; `subscribe` hands over only the other instances'
 * signals. Alone, an instance has no one to tell: `soloChannel` drops what it is given.
 */
export interface InstanceChannel<Signal> {
  publish(signal: Signal): void;
  /** Calls `handler` with each signal another instance published. */
  subscribe(handler: (signal: Signal) => void): void;
}

/** Opens the named channels of a deployment; one connection pair carries them all. */
export interface InstanceChannels {
  channel<Signal>(name: string): InstanceChannel<Signal>;
  /** Resolves once every channel subscribed so far hears the other instances. */
  ready(): Promise<void>;
  /**
   * Calls `listener` when the link to the other instances comes back after it was lost:
   * signals sent meanwhile were missed, so what they would have dropped must go now.
   */
  onReconnect(listener: () => void): void;
  /**
   * Whether this instance is the first of the deployment to claim `key` in the last `ttlMs`:
   * work every instance finds due at about the same time (a session's timer tick) is done by
   * the one that claims it. Alone, an instance always is.
   */
  claimOnce(key: string, ttlMs: number): Promise<boolean>;
  /** Rejects when the other instances cannot be reached now. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The channels of a single instance: nobody to tell, nothing to hear. */
export const soloChannels: InstanceChannels = {
  channel: () => ({ publish: () => {}, subscribe: () => {} }),
  ready: async () => {},
  onReconnect: () => {},
  claimOnce: async () => true,
  ping: async () => {},
  close: async () => {},
};
