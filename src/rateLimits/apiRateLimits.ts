import type { Clock } from '../clock.js';
import type { RateLimitConfig } from '../config.js';
import { errors, type AppError } from '../errors.js';
import type { Plan } from '../organizations/plans.js';
import type { LimiterStore } from '../store/limiterStore.js';
import { hitCounter, type HitCounter } from './counters.js';

/** Plans on the premium hourly limit; starter and professional are on the standard one. */
const PREMIUM_PLANS: ReadonlySet<Plan> = new Set<Plan>(['business', 'enterprise']);

/** One of the two API rate limits, as a fixed window aligned on the epoch. */
interface Window {
  unit: 'minute' | 'hour';
  ms: number;
  counter: HitCounter;
  /** Requests allowed per window for a plan; 0 = this window does not apply. */
  limitFor(plan: Plan): number;
}

/** Where one window stands once this call is counted. */
interface WindowState {
  unit: Window['unit'];
  limit: number;
  count: number;
  /** When the window ends and its count starts again from zero (epoch ms). */
  resetMs: number;
}

/** Where a key stands once a call is counted: its tightest window, and the refusal if any window is exceeded. */
export interface RateLimitStanding {
  limit: number;
  remaining: number;
  /** When the tightest window resets (epoch seconds). */
  resetSeconds: number;
  /** The 429 to answer, when a window is exceeded. */
  refusal: AppError | null;
}

export interface ApiRateLimitDependencies {
  config: RateLimitConfig;
  /** Where the counters live: Redis with REDIS_URL, so every instance shares them. */
  limiters: LimiterStore;
  clock: Clock;
}

/**
 * Both API rate limits hold at once (docs/quotas-and-rate-limits.md): `perMinute` per key, and
 * `perHour` or `perHourPremium` per key by plan. Windows are fixed and aligned on the
 * epoch, so every instance agrees on when a window resets. Every call counts, refused
 * ones included, so hammering a 429 does not come for free.
 */
export class ApiRateLimits {
  private readonly windows: Window[];
  private readonly clock: Clock;

  constructor({ config, limiters, clock }: ApiRateLimitDependencies) {
    this.clock = clock;
    const enabled = [config.perMinute, config.perHour, config.perHourPremium].some((limit) => limit > 0);
    this.windows = enabled
      ? [
          { unit: 'minute', ms: 60_000, counter: hitCounter(limiters, `${config.keyPrefix}minute`, 60), limitFor: () => config.perMinute },
          {
            unit: 'hour',
            ms: 3_600_000,
            counter: hitCounter(limiters, `${config.keyPrefix}hour`, 3_600),
            limitFor: (plan) => (PREMIUM_PLANS.has(plan) ? config.perHourPremium : config.perHour),
          },
        ]
      : [];
  }

  /** Counts one call of the key `apiKeyId`; null when no limit applies to `plan`. */
  async count(apiKeyId: string, plan: Plan): Promise<RateLimitStanding | null> {
    const nowMs = this.clock.now().getTime();
    const applicable = this.windows.filter((window) => window.limitFor(plan) > 0);
    if (applicable.length === 0) return null;
    const states = await Promise.all(
      applicable.map(async (window): Promise<WindowState> => {
        const index = Math.floor(nowMs / window.ms);
        const count = await window.counter.hit(`${apiKeyId}:${index}`);
        return { unit: window.unit, limit: window.limitFor(plan), count, resetMs: (index + 1) * window.ms };
      }),
    );
    const shown = tightest(states);
    const exceeded = states.filter((state) => state.count > state.limit);
    return {
      limit: shown.limit,
      remaining: remaining(shown),
      resetSeconds: Math.ceil(shown.resetMs / 1000),
      refusal: exceeded.length > 0 ? tooManyRequests(exceeded, nowMs) : null,
    };
  }
}

function remaining(state: WindowState): number {
  return Math.max(0, state.limit - state.count);
}

/**
 * The window with the lowest remaining share; on a tie the one that resets later, since
 * that is when the caller can really go on.
 */
function tightest(states: WindowState[]): WindowState {
  return states.reduce((best, state) => {
    const ratio = remaining(state) / state.limit;
    const bestRatio = remaining(best) / best.limit;
    if (ratio < bestRatio || (ratio === bestRatio && state.resetMs > best.resetMs)) return state;
    return best;
  });
}

/** A refused call may retry once every exceeded window has reset. */
function tooManyRequests(exceeded: WindowState[], nowMs: number): AppError {
  const worst = exceeded.reduce((latest, state) => (state.resetMs > latest.resetMs ? state : latest));
  const retryAfter = Math.max(1, Math.ceil((worst.resetMs - nowMs) / 1000));
  const message = `Rate limit exceeded: ${worst.limit} requests per ${worst.unit} for this API key; retry in ${retryAfter} s`;
  return errors.tooManyRequests(message, retryAfter);
}
