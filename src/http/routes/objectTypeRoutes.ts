import { Router } from 'express';
import { organizationOf } from '../auth.js';
import { validateBody } from '../validate.js';
import type { ObjectTypeService } from '../../objectTypes/objectTypeService.js';
import { registerObjectTypeSchema, type RegisterObjectTypeInput } from '../../objectTypes/schemas.js';

/**
 * The object-type endpoints, mounted at /api/v1/object-types behind `requireApiKey`.
 * Registering is the only write: a type cannot be changed or removed (409 on a second POST).
 */
export function objectTypeRoutes(objectTypes: ObjectTypeService): Router {
  const router = Router();
  const org = (res: Parameters<typeof organizationOf>[0]) => organizationOf(res).id;

  router.post('/', validateBody(registerObjectTypeSchema), async (req, res) => {
    res.status(201).json(await objectTypes.register(org(res), req.body as RegisterObjectTypeInput));
  });
  router.get('/', async (_req, res) => {
    res.json(await objectTypes.list(org(res)));
  });
  router.get('/:typeName', async (req, res) => {
    res.json(await objectTypes.get(org(res), String(req.params.typeName)));
  });
  return router;
}
