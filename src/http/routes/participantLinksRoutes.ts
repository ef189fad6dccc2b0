import { Router, type RequestHandler } from 'express';
import { callerOf } from '../boardCaller.js';
import { validateBody } from '../validate.js';
import { presentParticipantLink, type ParticipantLinks } from '../../boards/participantLinks.js';
import { issueParticipantLinkSchema, type IssueParticipantLinkInput } from '../../boards/participantLinksSchemas.js';

/**
 * Personal links, mounted at /api/v1/boards: `…/<board_uuid>/participant-links`. `boardAuth`
 * accepts the organization's API key or a board token; only a host may use these routes.
 */
export function participantLinksRoutes(links: ParticipantLinks, boardAuth: RequestHandler): Router {
  const router = Router();

  router.post('/:boardId/participant-links', boardAuth, validateBody(issueParticipantLinkSchema), async (req, res) => {
    const { link, created } = await links.issue(callerOf(res), String(req.params.boardId), req.body as IssueParticipantLinkInput);
    res.status(created ? 201 : 200).json(presentParticipantLink(link));
  });

  router.get('/:boardId/participant-links', boardAuth, async (req, res) => {
    res.json((await links.list(callerOf(res), String(req.params.boardId))).map(presentParticipantLink));
  });

  router.delete('/:boardId/participant-links/:userId', boardAuth, async (req, res) => {
    await links.revoke(callerOf(res), String(req.params.boardId), String(req.params.userId));
    res.status(204).end();
  });

  return router;
}
