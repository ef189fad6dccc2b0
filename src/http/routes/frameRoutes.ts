import { Router, type RequestHandler } from 'express';
import { callerOf } from '../boardCaller.js';
import { validateBody, validateQuery } from '../validate.js';
import { presentFrame } from '../../frames/frame.js';
import type { FrameService } from '../../frames/frameService.js';
import {
  assignSchema,
  bulkAssignSchema,
  cloneFrameSchema,
  createFrameSchema,
  listFramesQuerySchema,
  updateFrameSchema,
  type AssignInput,
  type BulkAssignInput,
  type CreateFrameInput,
  type FrameFieldsInput,
} from '../../frames/schemas.js';

/**
 * The "Frames and zones" endpoints, mounted at /api/v1/boards. `boardAuth` accepts the
 * organization's API key or a board access token (see http/boardCaller.ts).
 */
export function frameRoutes(frames: FrameService, boardAuth: RequestHandler): Router {
  const router = Router();
  const ids = (params: Record<string, unknown>) => [String(params.boardId), String(params.frameId)] as const;

  router.post('/:boardId/frames', boardAuth, validateBody(createFrameSchema), async (req, res) => {
    const frame = await frames.create(callerOf(res), String(req.params.boardId), req.body as CreateFrameInput);
    res.status(201).json(presentFrame(frame));
  });

  router.get('/:boardId/frames', boardAuth, validateQuery(listFramesQuerySchema), async (req, res) => {
    const list = await frames.list(callerOf(res), String(req.params.boardId), res.locals.query as { includeArchived: boolean; assigned?: boolean });
    res.json(list.map(presentFrame));
  });

  router.get('/:boardId/frames/:frameId', boardAuth, async (req, res) => {
    res.json(presentFrame(await frames.get(callerOf(res), ...ids(req.params))));
  });

  router.patch('/:boardId/frames/:frameId', boardAuth, validateBody(updateFrameSchema), async (req, res) => {
    res.json(presentFrame(await frames.update(callerOf(res), ...ids(req.params), req.body as FrameFieldsInput)));
  });

  router.delete('/:boardId/frames/:frameId', boardAuth, async (req, res) => {
    const frame = await frames.archive(callerOf(res), ...ids(req.params));
    res.json({ message: `Frame ${frame.id} archived; its objects were kept` });
  });

  router.post('/:boardId/frames/:frameId/clone', boardAuth, validateBody(cloneFrameSchema), async (req, res) => {
    res.status(201).json(presentFrame(await frames.clone(callerOf(res), ...ids(req.params), req.body as { offsetX?: number; offsetY?: number; name?: string })));
  });

  router.post('/:boardId/frames/:frameId/assign', boardAuth, validateBody(assignSchema), async (req, res) => {
    res.json(presentFrame(await frames.assign(callerOf(res), ...ids(req.params), req.body as AssignInput)));
  });

  router.post('/:boardId/frames/:frameId/unassign', boardAuth, async (req, res) => {
    res.json(presentFrame(await frames.unassign(callerOf(res), ...ids(req.params))));
  });

  router.post('/:boardId/zones/bulk-assign', boardAuth, validateBody(bulkAssignSchema), async (req, res) => {
    res.json(await frames.bulkAssign(callerOf(res), String(req.params.boardId), req.body as BulkAssignInput));
  });

  return router;
}
