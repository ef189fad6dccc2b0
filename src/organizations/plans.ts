/** The plans an organization can be on (docs/quotas-and-rate-limits.md). */
export const PLANS = ['starter', 'professional', 'business', 'enterprise'] as const;

export type Plan = (typeof PLANS)[number];

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && (PLANS as readonly string[]).includes(value);
}
