import { Router } from 'express';
import { requireAdmin } from '../http/auth.js';
import { validateBody } from '../http/validate.js';
import type { OrganizationService } from './organizationService.js';
import { PLANS, type Plan } from './plans.js';

const createOrganizationSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    plan: { type: 'string', enum: [...PLANS] },
  },
};

const changePlanSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['plan'],
  properties: { plan: { type: 'string', enum: [...PLANS] } },
};

const createUserSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['email', 'password', 'organizationId'],
  properties: {
    email: { type: 'string', format: 'email', maxLength: 320 },
    password: { type: 'string', minLength: 8, maxLength: 1024 },
    organizationId: { type: 'string', minLength: 1 },
    name: { type: 'string', maxLength: 255 },
  },
};

/** The operator's admin API (DESIGN.md section 2), mounted at /api/v1/admin. */
export function adminRoutes(organizations: OrganizationService, adminToken: string | undefined): Router {
  const router = Router();
  router.use(requireAdmin(adminToken));

  router.post('/organizations', validateBody(createOrganizationSchema), async (req, res) => {
    const { name, plan = 'professional' } = req.body as { name: string; plan?: Plan };
    const { organization, apiKey } = await organizations.create({ name, plan });
    res.status(201).json({ ...organization, apiKey });
  });

  router.patch('/organizations/:id', validateBody(changePlanSchema), async (req, res) => {
    const organization = await organizations.changePlan(String(req.params.id), (req.body as { plan: Plan }).plan);
    res.json(organization);
  });

  router.post('/users', validateBody(createUserSchema), async (req, res) => {
    const user = await organizations.createUser(req.body as { email: string; password: string; organizationId: string; name?: string });
    res.status(201).json(user);
  });

  return router;
}
