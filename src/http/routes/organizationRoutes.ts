import { Router, type RequestHandler } from 'express';
import { errors } from '../../errors.js';
import { organizationOf } from '../auth.js';
import type { OrganizationService } from '../../organizations/organizationService.js';

/**
 * The caller's own organization, mounted at /api/v1/organizations behind a middleware that
 * accepts the organization's API key or a JWT of one of its users.
 */
export function organizationRoutes(organizations: OrganizationService, credential: RequestHandler): Router {
  const router = Router();
  router.use(credential);

  // A list, although a credential names one organization, so a user of several fits later.
  router.get('/', (_req, res) => {
    res.json({ organizations: [organizationOf(res)] });
  });

  router.patch('/:id/regenerate-api-key', async (req, res) => {
    const caller = organizationOf(res);
    // Whether another id exists is not revealed: any other id is simply not the caller's.
    if (req.params.id !== caller.id) throw errors.forbidden('You may only regenerate the API key of your own organization');
    const { organization, apiKey } = await organizations.regenerateApiKey(caller.id);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ ...organization, apiKey });
  });

  return router;
}
