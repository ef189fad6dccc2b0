import { Router, type RequestHandler } from 'express';
import { organizationOf } from '../http/auth.js';
import { validateBody, validateQuery } from '../http/validate.js';
import type { BoardService } from './boardService.js';
import { presentBoard, presentCreated, presentListItem } from './presenter.js';
import type { BoardDocuments } from '../realtime/boardDocuments.js';
import {
  byOwnerQuerySchema,
  createBoardSchema,
  getBoardQuerySchema,
  listBoardsQuerySchema,
  objectInputSchema,
  updateBoardSchema,
  type BoardStatus,
  type CreateBoardInput,
  type ObjectInput,
  type UpdateBoardInput,
} from './schemas.js';

/** Removal date of the deprecated `POST /boards/create` path (SPEC Versioning). */
const CREATE_ALIAS_SUNSET = 'Sun, 01 Mar 2026 00:00:00 GMT';

/** The Boards API, mounted at /api/v1/boards behind `requireApiKey`. */
export function boardRoutes(boards: BoardService, documents: BoardDocuments): Router {
  const router = Router();
  const participantsCount = (id: string) => documents.participants(id).length;

  const create: RequestHandler = async (req, res) => {
    const board = await boards.create(organizationOf(res), req.body as CreateBoardInput);
    res.status(201).json(presentCreated(board, boards.accessLinks(board)));
  };
  router.post('/', validateBody(createBoardSchema), create);
  router.post(
    '/create',
    (_req, res, next) => {
      res.setHeader('Deprecation', 'true');
      res.setHeader('Sunset', CREATE_ALIAS_SUNSET);
      res.setHeader('Link', '</api/v1/boards>; rel="successor-version"');
      next();
    },
    validateBody(createBoardSchema),
    create,
  );

  router.get('/', validateQuery(listBoardsQuerySchema), async (_req, res) => {
    const list = await boards.list(organizationOf(res), res.locals.query.status as BoardStatus | undefined);
    res.json(list.map((board) => presentListItem(board, participantsCount(board.id))));
  });

  router.get('/by-owner', validateQuery(byOwnerQuerySchema), async (_req, res) => {
    const list = await boards.listByOwner(organizationOf(res), res.locals.query.externalId as string);
    res.json(list.map((board) => presentListItem(board, participantsCount(board.id))));
  });

  router.get('/:boardId', validateQuery(getBoardQuerySchema), async (req, res) => {
    const { includeObjects, includeParticipants } = res.locals.query as { includeObjects: boolean; includeParticipants: boolean };
    const board = await boards.get(organizationOf(res), req.params.boardId as string);
    const objects = includeObjects ? await boards.objects(board) : undefined;
    res.json(presentBoard(board, boards.accessLinks(board), { objects, participants: documents.participants(board.id), includeParticipants }));
  });

  router.get('/:boardId/access-links', async (req, res) => {
    const board = await boards.get(organizationOf(res), req.params.boardId as string);
    res.json({ board_uuid: board.id, access_links: boards.accessLinks(board) });
  });

  router.patch('/:boardId', validateBody(updateBoardSchema), async (req, res) => {
    const board = await boards.update(organizationOf(res), req.params.boardId as string, req.body as UpdateBoardInput);
    res.json({
      board_uuid: board.id,
      title: board.title,
      status: board.lifecycle.status,
      updated_at: board.updatedAt.toISOString(),
      expires_at: board.expiresAt.toISOString(),
      webhook_url: board.webhookUrl,
      config: board.config,
    });
  });

  router.delete('/:boardId', async (req, res) => {
    await boards.delete(organizationOf(res), req.params.boardId as string);
    res.status(204).end();
  });

  router.post('/:boardId/end-session', async (req, res) => {
    const { board, endedAt } = await boards.endSession(organizationOf(res), req.params.boardId as string);
    res.json({
      board_uuid: board.id,
      session_ended_at: endedAt.toISOString(),
      status: board.lifecycle.status,
      message: 'Session ended: all participants were disconnected; new participants may join',
    });
  });

  router.post('/:boardId/duplicate', async (req, res) => {
    const board = await boards.duplicate(organizationOf(res), req.params.boardId as string);
    res.status(201).json({ ...presentCreated(board, boards.accessLinks(board)), source_board_uuid: req.params.boardId });
  });

  router.patch('/:boardId/archive', async (req, res) => {
    const { board, at } = await boards.toggleArchive(organizationOf(res), req.params.boardId as string);
    const archived = board.lifecycle.status === 'archived';
    res.json({
      board_uuid: board.id,
      title: board.title,
      status: board.lifecycle.status,
      ...(archived ? { archived_at: at.toISOString() } : { restored_at: at.toISOString() }),
      message: archived ? 'Board archived' : 'Board restored',
    });
  });

  router.post('/:boardId/objects', validateBody(objectInputSchema), async (req, res) => {
    const object = await boards.addObject(organizationOf(res), req.params.boardId as string, req.body as ObjectInput);
    res.status(201).json(object);
  });

  return router;
}
