import { Router } from 'express';
import { actionInputSchema, type ActionInput, type ComponentActions } from '../../components/componentActions.js';
import { storageWriteSchema, type ComponentStorage } from '../../components/componentStorage.js';
import { callerOf, identityOf } from '../boardCaller.js';
import { route, type BoardScope } from '../routeSteps.js';

/**
 * What component objects do on a board, mounted at /api/v1/boards: their storage
 * (`GET …/storage`, `PUT …/storage/:key`) and their custom actions (`POST …/actions`).
 * `scope.credential` accepts the organization's API key or a board access token; the board is
 * checked before a body is read, the object and its component's permissions after.
 */
export function componentObjectRoutes(storage: ComponentStorage, actions: ComponentActions, scope: BoardScope): Router {
  const router = Router();
  const boardAuth = scope.credential;
  const ids = (params: Record<string, unknown>) => [String(params.boardId), String(params.objectId)] as const;

  router.get('/:boardId/objects/:objectId/storage', boardAuth, async (req, res) => {
    res.json(await storage.read(callerOf(res), ...ids(req.params)));
  });

  router.put('/:boardId/objects/:objectId/storage/:key', ...route({ credential: boardAuth, access: scope.board, body: storageWriteSchema }, async (req, res) => {
    const { value } = req.body as { value: unknown };
    res.json(await storage.write(callerOf(res), ...ids(req.params), String(req.params.key), value));
  }));

  router.post('/:boardId/objects/:objectId/actions', ...route({ credential: boardAuth, access: scope.board, body: actionInputSchema }, async (req, res) => {
    const userName = identityOf(req, res)?.userName ?? null;
    res.status(202).json(await actions.perform(callerOf(res), ...ids(req.params), req.body as ActionInput, userName));
  }));

  return router;
}
