import { Router, type RequestHandler } from 'express';
import type { RequestHandler as Middleware } from 'express';
import { callerOf, credentialOf, identityOf } from '../boardCaller.js';
import { participantColor } from '../../boards/participantColor.js';
import { validateQuery } from '../validate.js';
import { CREDENTIAL_ONLY, route, type BoardScope } from '../routeSteps.js';
import type { BoardService } from '../../boards/boardService.js';
import { requireHost } from '../../boards/caller.js';
import { presentBoard, presentCreated, presentListItem } from '../../boards/presenter.js';
import type { Board } from '../../boards/board.js';
import type { ObjectService } from '../../objects/objectService.js';
import type { LiveDocuments } from '../../boards/ports.js';
import type { FrameService } from '../../frames/frameService.js';
import {
  byOwnerQuerySchema,
  createBoardSchema,
  getBoardQuerySchema,
  listBoardsQuerySchema,
  listElementsQuerySchema,
  objectInputSchema,
  objectPatchSchema,
  updateBoardSchema,
  type BoardStatus,
  type CreateBoardInput,
  type ElementsQuery,
  type ObjectInput,
  type ObjectPatch,
  type UpdateBoardInput,
} from '../../boards/schemas.js';

/** Removal date of the deprecated `POST /boards/create` path, announced in its `Sunset` header. */
const CREATE_ALIAS_SUNSET = 'Sun, 01 Mar 2026 00:00:00 GMT';

/** How the Boards API authenticates: organization-wide routes, and routes on one board. */
export interface BoardRouteAuth {
  /** `X-API-Key` only (creating and listing boards). */
  organization: Middleware;
  /** `X-API-Key`, or a board access token for that board, and the board's access checks. */
  board: BoardScope;
}

/** The Boards API, mounted at /api/v1/boards. */
export function boardRoutes(boards: BoardService, objects: ObjectService, documents: LiveDocuments, frames: FrameService, auth: BoardRouteAuth): Router {
  const router = Router();
  boardCollectionRoutes(router, boards, documents, frames, auth);

  router.get('/:boardId', auth.board.credential, validateQuery(getBoardQuerySchema), async (req, res) => {
    const { includeObjects, includeParticipants } = res.locals.query as { includeObjects: boolean; includeParticipants: boolean };
    const caller = callerOf(res);
    const board = await boards.get(caller, req.params.boardId as string);
    const objects = includeObjects ? await frames.objectsVisibleTo(caller, board) : undefined;
    const links = boards.accessLinks(board);
    // A guest never sees the host link (it would make it a host).
    const visibleLinks = caller.role === 'host' ? links : { guest: links.guest };
    const participants = await frames.participantsVisibleTo(caller, board);
    const components = await boards.pinnedComponents(board);
    const objectsCount = objects?.length ?? (await frames.objectsCountVisibleTo(caller, board));
    res.json(presentBoard(board, await boards.details(board), visibleLinks, { objects, objectsCount, participants, includeParticipants, components }));
  });

  // Who the caller is on this board: what the browser client shows as "you".
  router.get('/:boardId/me', auth.board.credential, async (req, res) => {
    const caller = callerOf(res);
    const board = await boards.get(caller, req.params.boardId as string);
    const identity = identityOf(req, res);
    const userId = identity?.userId ?? null;
    res.json({
      board_uuid: board.id,
      title: board.title,
      role: caller.role,
      user_id: userId,
      user_name: identity?.userName ?? null,
      user_type: identity?.userType ?? 'organization',
      credential: credentialOf(res),
      color: participantColor(userId ?? 'anonymous'),
      created_at: board.createdAt.toISOString(),
      expires_at: board.expiresAt.toISOString(),
    });
  });
  router.get('/:boardId/access-links', auth.board.credential, async (req, res) => {
    const board = await boards.get(callerOf(res), req.params.boardId as string);
    requireHost(callerOf(res), 'see the access links');
    res.json({ board_uuid: board.id, access_links: boards.accessLinks(board) });
  });

  router.patch('/:boardId', ...route({ credential: auth.board.credential, access: auth.board.host('change the board'), body: updateBoardSchema }, async (req, res) => {
    const board = await boards.update(callerOf(res), req.params.boardId as string, req.body as UpdateBoardInput);
    res.json({
      board_uuid: board.id,
      title: board.title,
      status: board.lifecycle.status,
      updated_at: board.updatedAt.toISOString(),
      expires_at: board.expiresAt.toISOString(),
      webhook_url: board.webhookUrl,
      config: board.config,
      ...(board.issuedWebhookSecret ? { webhook_secret: board.issuedWebhookSecret } : {}),
    });
  }));

  boardLifecycleRoutes(router, boards, auth);
  boardObjectRoutes(router, objects, auth);
  return router;
}

/** Creating boards and listing the organization's (registered before `/:boardId`, which would take `/by-owner`). */
function boardCollectionRoutes(router: Router, boards: BoardService, documents: LiveDocuments, frames: FrameService, auth: BoardRouteAuth): void {
  const listed = async (list: Board[]) => {
    const counts = await Promise.all(list.map((board) => documents.participantCount(board.id)));
    const objectCounts = await frames.objectsCounts(list);
    return list.map((board, index) => presentListItem(board, { participants: counts[index]!, objects: objectCounts.get(board.id)! }));
  };

  const create: RequestHandler = async (req, res) => {
    const board = await boards.create(callerOf(res), req.body as CreateBoardInput);
    res.status(201).json(presentCreated(board, boards.accessLinks(board)));
  };
  const creating = { credential: auth.organization, access: CREDENTIAL_ONLY, body: createBoardSchema } as const;
  router.post('/', ...route(creating, create));
  router.post(
    '/create',
    (_req, res, next) => {
      res.setHeader('Deprecation', 'true');
      res.setHeader('Sunset', CREATE_ALIAS_SUNSET);
      res.setHeader('Link', '</api/v1/boards>; rel="successor-version"');
      next();
    },
    ...route(creating, create),
  );

  router.get('/', auth.organization, validateQuery(listBoardsQuerySchema), async (_req, res) => {
    const list = await boards.list(callerOf(res), (res.locals.query as { status?: BoardStatus }).status);
    res.json(await listed(list));
  });

  router.get('/by-owner', auth.organization, validateQuery(byOwnerQuerySchema), async (_req, res) => {
    const list = await boards.listByOwner(callerOf(res), (res.locals.query as { externalId: string }).externalId);
    res.json(await listed(list));
  });
}

/** Deleting a board, ending its session, duplicating, archiving and restoring it. */
function boardLifecycleRoutes(router: Router, boards: BoardService, auth: BoardRouteAuth): void {
  router.delete('/:boardId', auth.board.credential, async (req, res) => {
    await boards.delete(callerOf(res), req.params.boardId as string);
    res.status(204).end();
  });

  router.post('/:boardId/end-session', auth.board.credential, async (req, res) => {
    const { board, endedAt } = await boards.endSession(callerOf(res), req.params.boardId as string);
    res.json({
      board_uuid: board.id,
      session_ended_at: endedAt.toISOString(),
      status: board.lifecycle.status,
      message: 'Session ended: all participants were disconnected; new participants may join',
    });
  });

  router.post('/:boardId/duplicate', auth.board.credential, async (req, res) => {
    const board = await boards.duplicate(callerOf(res), req.params.boardId as string);
    res.status(201).json({ ...presentCreated(board, boards.accessLinks(board)), source_board_uuid: req.params.boardId });
  });

  router.patch('/:boardId/archive', auth.board.credential, async (req, res) => {
    const { board, at } = await boards.toggleArchive(callerOf(res), req.params.boardId as string);
    const archived = board.lifecycle.status === 'archived';
    res.json({
      board_uuid: board.id,
      title: board.title,
      status: board.lifecycle.status,
      ...(archived ? { archived_at: at.toISOString() } : { restored_at: at.toISOString() }),
      message: archived ? 'Board archived' : 'Board restored',
    });
  });
}

/** A board's objects one by one, and its elements list. */
function boardObjectRoutes(router: Router, objects: ObjectService, auth: BoardRouteAuth): void {
  router.post('/:boardId/objects', ...route({ credential: auth.board.credential, access: auth.board.board, body: objectInputSchema }, async (req, res) => {
    const object = await objects.add(callerOf(res), req.params.boardId as string, req.body as ObjectInput);
    res.status(201).json(object);
  }));

  router.get('/:boardId/elements', auth.board.credential, validateQuery(listElementsQuerySchema), async (req, res) => {
    const list = await objects.elements(callerOf(res), req.params.boardId as string, res.locals.query as ElementsQuery);
    res.json(list.pagination ? list : list.elements);
  });

  router.get('/:boardId/objects/:objectId', auth.board.credential, async (req, res) => {
    res.json(await objects.get(callerOf(res), req.params.boardId as string, req.params.objectId as string));
  });

  router.patch('/:boardId/objects/:objectId', ...route({ credential: auth.board.credential, access: auth.board.board, body: objectPatchSchema }, async (req, res) => {
    res.json(await objects.update(callerOf(res), req.params.boardId as string, req.params.objectId as string, req.body as ObjectPatch));
  }));

  router.delete('/:boardId/objects/:objectId', auth.board.credential, async (req, res) => {
    await objects.remove(callerOf(res), req.params.boardId as string, req.params.objectId as string);
    res.status(204).end();
  });
}
