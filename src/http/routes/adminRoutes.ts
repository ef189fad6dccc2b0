import { Router } from 'express';
import type { OrganizationService } from '../../organizations/organizationService.js';
import { changePlanSchema, createOrganizationSchema, type ChangePlanInput, type CreateOrganizationInput } from '../../organizations/schemas.js';
import { createUserSchema, type CreateUserInput } from '../../users/schemas.js';
import type { UserAccounts } from '../../users/userAccounts.js';
import { requireAdmin } from '../auth.js';
import { validateBody } from '../validate.js';

/** The operator's admin API (docs/operating.md), mounted at /api/v1/admin. */
export function adminRoutes(organizations: OrganizationService, users: UserAccounts, adminToken: string | undefined): Router {
  const router = Router();
  router.use(requireAdmin(adminToken));

  router.post('/organizations', validateBody(createOrganizationSchema), async (req, res) => {
    const { name, plan = 'professional' } = req.body as CreateOrganizationInput;
    const { organization, apiKey } = await organizations.create({ name, plan });
    res.status(201).json({ ...organization, apiKey });
  });

  router.patch('/organizations/:id', validateBody(changePlanSchema), async (req, res) => {
    const organization = await organizations.changePlan(String(req.params.id), (req.body as ChangePlanInput).plan);
    res.json(organization);
  });

  router.post('/users', validateBody(createUserSchema), async (req, res) => {
    const user = await users.create(req.body as CreateUserInput);
    res.status(201).json(user);
  });

  return router;
}
