import { Router, type RequestHandler } from 'express';
import { componentDataSchema, type ComponentDataInput, type ComponentDataService } from '../../components/dataProvider.js';
import { callerOf } from '../boardCaller.js';
import { validateBody } from '../validate.js';

/**
 * Components' data requests (tutorial flow), mounted at /api/v1/boards. `boardAuth` accepts the
 * organization's API key or any board access token of the board, host or guest.
 */
export function componentDataRoutes(data: ComponentDataService, boardAuth: RequestHandler): Router {
  const router = Router();

  router.post('/:boardId/component-data', boardAuth, validateBody(componentDataSchema), async (req, res) => {
    const answer = await data.request(callerOf(res), String(req.params.boardId), req.body as ComponentDataInput);
    // The answer may be one participant's data: no shared cache keeps it.
    res.set('Cache-Control', 'no-store').json(answer);
  });

  return router;
}
