import { Router } from 'express';
import { componentDataSchema, type ComponentDataInput, type ComponentDataService } from '../../components/dataProvider.js';
import { callerOf } from '../boardCaller.js';
import { route, type BoardScope } from '../routeSteps.js';

/**
 * Components' data requests (tutorial flow), mounted at /api/v1/boards. `scope.credential` accepts
 * the organization's API key or any board access token of the board, host or guest.
 */
export function componentDataRoutes(data: ComponentDataService, scope: BoardScope): Router {
  const router = Router();

  router.post('/:boardId/component-data', ...route({ credential: scope.credential, access: scope.board, body: componentDataSchema }, async (req, res) => {
    const answer = await data.request(callerOf(res), String(req.params.boardId), req.body as ComponentDataInput);
    // The answer may be one participant's data: no shared cache keeps it.
    res.set('Cache-Control', 'no-store').json(answer);
  }));

  return router;
}
