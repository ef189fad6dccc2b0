import { Router } from 'express';
import { requireHost } from '../../boards/caller.js';
import { callerOf } from '../boardCaller.js';
import { route, type Access, type BoardScope } from '../routeSteps.js';
import { validateQuery } from '../validate.js';
import { presentFrame } from '../../frames/frame.js';
import type { FrameService } from '../../frames/frameService.js';
import { isZone } from '../../frames/zonePermissions.js';
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
 * The "Frames and zones" endpoints, mounted at /api/v1/boards. `scope.credential` accepts the
 * organization's API key or a board access token (see http/boardCaller.ts).
 */
export function frameRoutes(frames: FrameService, scope: BoardScope): Router {
  const router = Router();
  const boardAuth = scope.credential;
  const ids = (params: Record<string, unknown>) => [String(params.boardId), String(params.frameId)] as const;
  /** The frame, as far as the caller may see it (404 past a zone hidden from it). */
  const visibleFrame: Access = (caller, params) => frames.get(caller, ...ids(params));
  /** The frame to change: a zone is changed by the host only (403 to anyone else). */
  const changeable: Access = async (caller, params) => {
    if (isZone(await frames.get(caller, ...ids(params)))) requireHost(caller, 'change a zone');
  };
  /** Assignments are the host's, on a frame the board has. */
  const assignable: Access = async (caller, params) => {
    await scope.host('assign zones')(caller, params);
    await visibleFrame(caller, params);
  };

  router.post('/:boardId/frames', ...route({ credential: boardAuth, access: scope.board, body: createFrameSchema }, async (req, res) => {
    const frame = await frames.create(callerOf(res), String(req.params.boardId), req.body as CreateFrameInput);
    res.status(201).json(presentFrame(frame));
  }));

  router.get('/:boardId/frames', boardAuth, validateQuery(listFramesQuerySchema), async (req, res) => {
    const list = await frames.list(callerOf(res), String(req.params.boardId), res.locals.query as { includeArchived: boolean; assigned?: boolean });
    res.json(list.map(presentFrame));
  });

  router.get('/:boardId/frames/:frameId', boardAuth, async (req, res) => {
    res.json(presentFrame(await frames.get(callerOf(res), ...ids(req.params))));
  });

  router.patch('/:boardId/frames/:frameId', ...route({ credential: boardAuth, access: changeable, body: updateFrameSchema }, async (req, res) => {
    res.json(presentFrame(await frames.update(callerOf(res), ...ids(req.params), req.body as FrameFieldsInput)));
  }));

  router.delete('/:boardId/frames/:frameId', boardAuth, async (req, res) => {
    const frame = await frames.archive(callerOf(res), ...ids(req.params));
    res.json({ message: `Frame ${frame.id} archived; its objects were kept` });
  });

  router.post('/:boardId/frames/:frameId/clone', ...route({ credential: boardAuth, access: visibleFrame, body: cloneFrameSchema }, async (req, res) => {
    res.status(201).json(presentFrame(await frames.clone(callerOf(res), ...ids(req.params), req.body as { offsetX?: number; offsetY?: number; name?: string })));
  }));

  router.post('/:boardId/frames/:frameId/assign', ...route({ credential: boardAuth, access: assignable, body: assignSchema }, async (req, res) => {
    res.json(presentFrame(await frames.assign(callerOf(res), ...ids(req.params), req.body as AssignInput)));
  }));

  router.post('/:boardId/frames/:frameId/unassign', boardAuth, async (req, res) => {
    res.json(presentFrame(await frames.unassign(callerOf(res), ...ids(req.params))));
  });

  router.post('/:boardId/zones/bulk-assign', ...route({ credential: boardAuth, access: scope.host('assign zones'), body: bulkAssignSchema }, async (req, res) => {
    res.json(await frames.bulkAssign(callerOf(res), String(req.params.boardId), req.body as BulkAssignInput));
  }));

  return router;
}
