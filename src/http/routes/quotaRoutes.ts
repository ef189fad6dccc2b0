import { Router, type RequestHandler } from 'express';
import { AppError } from '../../errors.js';
import { organizationOf } from '../auth.js';
import type { QuotaService } from '../../quotas/quotaService.js';
import { isQuotaType, QUOTA_TYPES } from '../../quotas/quotaTypes.js';

/** `GET /quota` and `GET /quota/<type>`, mounted at /api/v1/quota behind `auth` (API key or user token). */
export function quotaRoutes(quotas: QuotaService, auth: RequestHandler): Router {
  const router = Router();
  router.use(auth);

  router.get('/', async (_req, res) => {
    res.json(await quotas.report(organizationOf(res)));
  });

  router.get('/:type', async (req, res) => {
    const type = String(req.params.type);
    if (!isQuotaType(type)) {
      throw new AppError('bad_request', `Unknown quota type "${type.slice(0, 64)}"`, undefined, { validTypes: [...QUOTA_TYPES] });
    }
    res.json(await quotas.check(organizationOf(res), type));
  });

  return router;
}
