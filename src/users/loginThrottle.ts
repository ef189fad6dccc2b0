import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { errors } from '../errors.js';
import type { LimiterStore } from '../store/limiterStore.js';

/** How many failed logins are tolerated, per account and per client address, in a window. */
export interface LoginLimits {
  perAccount: { failures: number; windowSeconds: number };
  perAddress: { failures: number; windowSeconds: number };
}

/** 5 per account stops guessing one password; 20 per address stops spraying many accounts. */
export const LOGIN_LIMITS: LoginLimits = {
  perAccount: { failures: 5, windowSeconds: 15 * 60 },
  perAddress: { failures: 20, windowSeconds: 15 * 60 },
};

/**
 * One client controls a whole IPv6 /64 (often a /56), so IPv6 addresses count per /56;
 * IPv4-mapped IPv6 addresses count as the IPv4 address.
 */
export function addressKey(ip: string | undefined): string {
  if (!ip || !ipaddr.isValid(ip)) return 'unknown';
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/56`).toNormalizedString()}/56`;
}

/** Accounts are keyed by a hash of the email, so no address book ends up in Redis. */
function accountKey(email: string): string {
  return createHash('sha256').update(email).digest('hex').slice(0, 32);
}

/**
 * Throttles password guessing. Every attempt is counted before the password is checked (so
 * parallel guesses cannot slip past the limit); a successful login takes its attempt back
 * and clears the account's count.
 */
export class LoginThrottle {
  private readonly accounts: RateLimiterAbstract;
  private readonly addresses: RateLimiterAbstract;

  /** `keyPrefix` keeps this deployment's counts apart from others on the same Redis. */
  constructor(store: LimiterStore, keyPrefix: string, limits: LoginLimits = LOGIN_LIMITS) {
    const { perAccount, perAddress } = limits;
    this.accounts = store.limiter({ name: `${keyPrefix}login-account`, points: perAccount.failures, durationSeconds: perAccount.windowSeconds });
    this.addresses = store.limiter({ name: `${keyPrefix}login-address`, points: perAddress.failures, durationSeconds: perAddress.windowSeconds });
  }

  /** Counts an attempt on `email` from `ip`; 429 (with `retryAfter`) once either limit is spent. */
  async admit(email: string, ip: string | undefined): Promise<void> {
    const outcomes = await Promise.allSettled([this.accounts.consume(accountKey(email)), this.addresses.consume(addressKey(ip))]);
    const refusals: RateLimiterRes[] = [];
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') continue;
      if (!(outcome.reason instanceof RateLimiterRes)) throw outcome.reason;
      refusals.push(outcome.reason);
    }
    if (refusals.length === 0) return;
    const retryAfter = Math.max(1, Math.ceil(Math.max(...refusals.map((refusal) => refusal.msBeforeNext)) / 1000));
    throw errors.tooManyRequests('Too many failed login attempts; try again later', retryAfter);
  }

  /** A successful login: the account starts afresh and the address gets its attempt back. */
  async succeeded(email: string, ip: string | undefined): Promise<void> {
    await Promise.all([this.accounts.delete(accountKey(email)), this.addresses.reward(addressKey(ip), 1)]);
  }
}
