import type { Response } from 'express';
import type { Clock } from '../clock.js';
import type { RateLimitConfig } from '../config.js';
import { AppError } from '../errors.js';
import type { ApiCallPolicy } from '../http/auth.js';
import type { Plan } from '../organizations/plans.js';
import type { LimiterStore } from '../store/limiterStore.js';
import { hitCounter, type HitCounter } from './counters.js';

/** Plans on the premium hourly limit; starter and professional are "standard" (SPEC Limits). */
const PREMIUM_PLANS: ReadonlySet<Plan> = new Set<Plan>(['business', 'enterprise']);

/** One of the spec's two rate-limit statements, as a fixed window aligned on the epoch. */
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

export interface ApiRateLimitDependencies {
  config: RateLimitConfig;
  /** Where the counters live: Redis with REDIS_URL, so every instance shares them. */
  limiters: LimiterStore;
  clock: Clock;
}

/**
 * Both rate-limit statements of the spec hold at once (DESIGN 4): `perMinute` per key, and
 * `perHour` or `perHourPremium` per key by plan. Windows are fixed and aligned on the
 * epoch, so every instance agrees on when a window resets. Every call counts, refused
 * ones included, so hammering a 429 does not come for free.
 */
export function apiRateLimits({ config, limiters, clock }: ApiRateLimitDependencies): ApiCallPolicy {
  const enabled = [config.perMinute, config.perHour, config.perHourPremium].some((limit) => limit > 0);
  if (!enabled) return async () => {};
  const windows: Window[] = [
    { unit: 'minute', ms: 60_000, counter: hitCounter(limiters, `${config.keyPrefix}minute`, 60), limitFor: () => config.perMinute },
    {
      unit: 'hour',
      ms: 3_600_000,
      counter: hitCounter(limiters, `${config.keyPrefix}hour`, 3_600),
      limitFor: (plan) => (PREMIUM_PLANS.has(plan) ? config.perHourPremium : config.perHour),
    },
  ];

  return async (principal, _req, res) => {
    const nowMs = clock.now().getTime();
    const applicable = windows.filter((window) => window.limitFor(principal.organization.plan) > 0);
    if (applicable.length === 0) return;
    const states = await Promise.all(
      applicable.map(async (window): Promise<WindowState> => {
        const index = Math.floor(nowMs / window.ms);
        const count = await window.counter.hit(`${principal.apiKeyId}:${index}`);
        return { unit: window.unit, limit: window.limitFor(principal.organization.plan), count, resetMs: (index + 1) * window.ms };
      }),
    );
    setRateLimitHeaders(res, tightest(states));
    const exceeded = states.filter((state) => state.count > state.limit);
    if (exceeded.length > 0) throw tooManyRequests(exceeded, nowMs);
  };
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

function setRateLimitHeaders(res: Response, state: WindowState): void {
  res.setHeader('X-RateLimit-Limit', String(state.limit));
  res.setHeader('X-RateLimit-Remaining', String(remaining(state)));
  res.setHeader('X-RateLimit-Reset', String(Math.ceil(state.resetMs / 1000)));
}

/** A refused call may retry once every exceeded window has reset. */
function tooManyRequests(exceeded: WindowState[], nowMs: number): AppError {
  const worst = exceeded.reduce((latest, state) => (state.resetMs > latest.resetMs ? state : latest));
  const retryAfter = Math.max(1, Math.ceil((worst.resetMs - nowMs) / 1000));
  const message = `Rate limit exceeded: ${worst.limit} requests per ${worst.unit} for this API key; retry in ${retryAfter} s`;
  return new AppError('too_many_requests', message, undefined, { retryAfter });
}
