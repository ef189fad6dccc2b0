import { Router } from 'express';
import { callerOf } from '../boardCaller.js';
import { route, type BoardScope } from '../routeSteps.js';
import { presentParticipantLink, type ParticipantLinks } from '../../boards/participantLinks.js';
import {
  issueParticipantLinkSchema,
  startSessionParticipantSchema,
  type IssueParticipantLinkInput,
  type StartSessionParticipantInput,
} from '../../boards/participantLinksSchemas.js';
import { presentSessionParticipant, type SessionParticipants } from '../../boards/sessionParticipants.js';
import type { BoardGrant } from '../../boards/boardAccess.js';

/**
 * Personal links, mounted at /api/v1/boards: `…/<board_uuid>/participant-links`. `scope.credential`
 * accepts the organization's API key or a board token; only a host may use these routes.
 */
export function participantLinksRoutes(links: ParticipantLinks, sessions: SessionParticipants, scope: BoardScope): Router {
  const router = Router();
  const boardAuth = scope.credential;

  router.post('/:boardId/session-participants', ...route({ credential: boardAuth, access: scope.board, body: startSessionParticipantSchema }, async (req, res) => {
    const grant = (res.locals.grant as BoardGrant | undefined) ?? null;
    const { user_name: userName } = req.body as StartSessionParticipantInput;
    const session = await sessions.start(grant, String(req.params.boardId), userName ?? null);
    res.status(201).json(presentSessionParticipant(session));
  }));

  router.post('/:boardId/participant-links', ...route({ credential: boardAuth, access: scope.host('issue personal links'), body: issueParticipantLinkSchema }, async (req, res) => {
    const { link, created } = await links.issue(callerOf(res), String(req.params.boardId), req.body as IssueParticipantLinkInput);
    res.status(created ? 201 : 200).json(presentParticipantLink(link));
  }));

  router.get('/:boardId/participant-links', boardAuth, async (req, res) => {
    res.json((await links.list(callerOf(res), String(req.params.boardId))).map(presentParticipantLink));
  });

  router.delete('/:boardId/participant-links/:userId', boardAuth, async (req, res) => {
    await links.revoke(callerOf(res), String(req.params.boardId), String(req.params.userId));
    res.status(204).end();
  });

  return router;
}
