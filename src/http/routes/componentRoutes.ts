import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { ComponentService } from '../../components/componentService.js';
import { PACKAGE_LIMITS } from '../../components/packageLimits.js';
import { deprecateSchema, type DeprecateInput } from '../../components/schemas.js';
import { errors } from '../../errors.js';
import { organizationOf, type ApiKeyAuthenticator } from '../auth.js';
import type { Caller } from '../../boards/caller.js';
import { callerOf } from '../boardCaller.js';
import { readMultipart } from '../multipart.js';
import { route, type Access } from '../routeSteps.js';
import { validateQuery } from '../validate.js';

/**
 * The component registry's API, mounted at /api/v1/components. Publishing takes the ZIP as
 * `bundle` with the key in the form field `apiKey` (the stated form), or as `package` with
 * the `X-API-Key` header (the other flow); the header, when sent, is checked before the body is read.
 */
export function componentRoutes(components: ComponentService, apiKeys: ApiKeyAuthenticator): Router {
  const router = Router();
  const requireApiKey = apiKeys.required();
  const org = (res: Response) => organizationOf(res).id;
  const ownedVersion: Access = (caller, params) => components.requireOwnedVersion(caller.organizationId, String(params.name), String(params.version));

  router.post('/publish', async (req, res) => {
    const headerKey = apiKeys.presentedKey(req);
    if (headerKey) await apiKeys.authenticate(headerKey, req, res);
    const form = await readMultipart(req, { fileBytes: PACKAGE_LIMITS.maxBundleBytes, fileFields: ['bundle', 'package'] });
    if (!headerKey) await authenticateFormKey(apiKeys, form.fields.get('apiKey'), req, res);
    if (!form.file) throw errors.badRequest('The ZIP is missing: send it as the file field `bundle`');
    res.json(await components.publish(org(res), form.file.bytes));
  });
  router.get('/', requireApiKey, async (_req, res) => {
    res.json(await components.list(org(res)));
  });
  router.patch('/:name/:version', ...route({ credential: requireApiKey, access: ownedVersion, body: deprecateSchema }, async (req, res) => {
    res.json(await components.deprecate(org(res), String(req.params.name), String(req.params.version), req.body as DeprecateInput));
  }));
  router.delete('/:name/:version', requireApiKey, async (req, res) => {
    await components.remove(org(res), String(req.params.name), String(req.params.version));
    res.status(204).end();
  });
  return router;
}

/** The query of `GET /boards/<id>/component-manifest`. */
export const manifestQuerySchema = {
  type: 'object',
  required: ['url'],
  properties: { url: { type: 'string', minLength: 1, maxLength: 2_048 } },
} as const;

/**
 * What a board's page asks about the components its objects run, mounted at /api/v1/boards
 * (any credential of the board): `GET /<id>/component-manifest?url=` answers the version's
 * manifest with its defaults, 404 for one never published, 410 for one its author deleted.
 */
export function boardComponentRoutes(components: ComponentService, boards: { get(caller: Caller, id: string): Promise<unknown> }, boardAuth: RequestHandler): Router {
  const router = Router();
  router.get('/:boardId/component-manifest', boardAuth, validateQuery(manifestQuerySchema), async (req, res) => {
    await boards.get(callerOf(res), String(req.params.boardId));
    res.json(await components.describe((res.locals.query as { url: string }).url));
  });
  return router;
}

async function authenticateFormKey(apiKeys: ApiKeyAuthenticator, key: string | undefined, req: Request, res: Response): Promise<void> {
  if (!key) throw errors.unauthorized('Missing API key: send it as the form field `apiKey` (or the X-API-Key header)');
  await apiKeys.authenticate(key, req, res);
}
