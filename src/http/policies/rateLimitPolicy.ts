import type { ApiRateLimits } from '../../rateLimits/apiRateLimits.js';
import type { ApiCallPolicy } from '../auth.js';

/**
 * Counts each API-key call against the key's rate limits and reports the tightest window in
 * `X-RateLimit-*` headers, on refused calls too; an exceeded window refuses the call (429).
 */
export function rateLimitPolicy(limits: ApiRateLimits): ApiCallPolicy {
  return async ({ apiKeyId, organization }, _req, res) => {
    const standing = await limits.count(apiKeyId, organization.plan);
    if (!standing) return;
    res.setHeader('X-RateLimit-Limit', String(standing.limit));
    res.setHeader('X-RateLimit-Remaining', String(standing.remaining));
    res.setHeader('X-RateLimit-Reset', String(standing.resetSeconds));
    if (standing.refusal) throw standing.refusal;
  };
}
