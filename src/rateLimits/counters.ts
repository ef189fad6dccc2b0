import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { LimiterStore } from '../store/limiterStore.js';

/** Counts hits per key; each key names one time window, so a count only ever grows. */
export interface HitCounter {
  /** Adds one hit to `key` and answers the total so far, this hit included. */
  hit(key: string): Promise<number>;
}

/**
 * A counter whose keys (under `name`) are forgotten `windowSeconds` after their first hit, in
 * the shared limiter store (Redis, or this process). `penalty` adds points and never refuses
 * (unlike `consume`): the caller compares the count with a limit that depends on the plan,
 * so one counter serves every plan.
 */
export function hitCounter(store: LimiterStore, name: string, windowSeconds: number): HitCounter {
  const limiter: RateLimiterAbstract = store.limiter({ name, points: 1, durationSeconds: windowSeconds });
  return {
    async hit(key) {
      const result = await limiter.penalty(key, 1);
      return result.consumedPoints;
    },
  };
}
