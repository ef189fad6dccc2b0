import { Router } from 'express';
import { organizationOf } from '../auth.js';
import { CREDENTIAL_ONLY, route, type Access } from '../routeSteps.js';
import { validateQuery } from '../validate.js';
import {
  createSubscriptionSchema,
  listDeliveriesQuerySchema,
  updateSubscriptionSchema,
  type CreateSubscriptionInput,
  type DeliveryStatus,
  type UpdateSubscriptionInput,
} from '../../webhooks/schemas.js';
import type { SubscriptionService } from '../../webhooks/subscriptionService.js';

/** The webhook endpoints, mounted at /api/v1/webhooks behind `requireApiKey`. */
export function webhookRoutes(subscriptions: SubscriptionService): Router {
  const router = Router();
  const org = (res: Parameters<typeof organizationOf>[0]) => organizationOf(res).id;
  /** The organization's own subscription (404 for any other). */
  const subscription: Access = (caller, params) => subscriptions.get(caller.organizationId, String(params.id));

  router.post('/subscriptions', ...route({ access: CREDENTIAL_ONLY, body: createSubscriptionSchema }, async (req, res) => {
    res.status(201).json(await subscriptions.create(organizationOf(res), req.body as CreateSubscriptionInput));
  }));
  router.get('/subscriptions', async (_req, res) => {
    res.json(await subscriptions.list(org(res)));
  });
  router.get('/subscriptions/:id', async (req, res) => {
    res.json(await subscriptions.get(org(res), String(req.params.id)));
  });
  router.patch('/subscriptions/:id', ...route({ access: subscription, body: updateSubscriptionSchema }, async (req, res) => {
    res.json(await subscriptions.update(org(res), String(req.params.id), req.body as UpdateSubscriptionInput));
  }));
  router.delete('/subscriptions/:id', async (req, res) => {
    await subscriptions.delete(org(res), String(req.params.id));
    res.status(204).end();
  });
  router.get('/subscriptions/:id/stats', async (req, res) => {
    res.json(await subscriptions.stats(org(res), String(req.params.id)));
  });
  router.get('/deliveries', validateQuery(listDeliveriesQuerySchema), async (_req, res) => {
    const filter = res.locals.query as { subscription_id?: string; status?: DeliveryStatus; limit: number };
    res.json(await subscriptions.deliveries(org(res), filter));
  });
  return router;
}
