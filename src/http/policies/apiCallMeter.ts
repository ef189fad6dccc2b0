import type { QuotaService } from '../../quotas/quotaService.js';
import type { ApiCallPolicy } from '../auth.js';

/**
 * Counts every API-key call against `api_calls_daily`; past the day's limit calls get 402.
 * Reading the quota itself is free: an organization that used up its calls can still see
 * where it stands and when it resets.
 */
export function meterApiCalls(quotas: QuotaService): ApiCallPolicy {
  return async ({ organization }, req) => {
    if (req.method === 'GET' && req.baseUrl.endsWith('/quota')) return;
    await quotas.consume(organization, 'api_calls_daily');
  };
}
