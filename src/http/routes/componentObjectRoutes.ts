import { Router, type RequestHandler } from 'express';
import { actionInputSchema, type ActionInput, type ComponentActions } from '../../components/componentActions.js';
import { storageWriteSchema, type ComponentStorage } from '../../components/componentStorage.js';
import { callerOf, identityOf } from '../boardCaller.js';
import { validateBody } from '../validate.js';

/**
 * What component objects do on a board, mounted at /api/v1/boards: their storage
 * (`GET …/storage`, `PUT …/storage/:key`) and their custom actions (`POST …/actions`).
 * `boardAuth` accepts the organization's API key or a board access token.
 */
export function componentObjectRoutes(storage: ComponentStorage, actions: ComponentActions, boardAuth: RequestHandler): Router {
  const router = Router();
  const ids = (params: Record<string, unknown>) => [String(params.boardId), String(params.objectId)] as const;

  router.get('/:boardId/objects/:objectId/storage', boardAuth, async (req, res) => {
    res.json(await storage.read(callerOf(res), ...ids(req.params)));
  });

  router.put('/:boardId/objects/:objectId/storage/:key', boardAuth, validateBody(storageWriteSchema), async (req, res) => {
    const { value } = req.body as { value: unknown };
    res.json(await storage.write(callerOf(res), ...ids(req.params), String(req.params.key), value));
  });

  router.post('/:boardId/objects/:objectId/actions', boardAuth, validateBody(actionInputSchema), async (req, res) => {
    const userName = identityOf(req, res)?.userName ?? null;
    res.status(202).json(await actions.perform(callerOf(res), ...ids(req.params), req.body as ActionInput, userName));
  });

  return router;
}
