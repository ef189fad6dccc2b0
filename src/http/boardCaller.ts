import type { RequestHandler, Response } from 'express';
import type { BoardAccess } from '../boards/boardAccess.js';
import { organizationCaller, type Caller } from '../boards/caller.js';
import { errors } from '../errors.js';
import type { OrganizationService } from '../organizations/organizationService.js';

/**
 * Authenticates a call on one board. The organization's `X-API-Key` acts as host; a board
 * access token, as `Authorization: Bearer <token>` or `?token=<token>`, acts as the host or
 * guest that token names (for that board only). A guest may declare its user id with
 * `X-User-Id` (or `?user_id=`), which zone rights are checked against.
 */
export function authenticateBoardCaller(organizations: OrganizationService, access: BoardAccess): RequestHandler {
  return async (req, res, next) => {
    const apiKey = req.header('x-api-key');
    if (apiKey) {
      const organization = await organizations.authenticate(apiKey);
      if (!organization) return next(errors.unauthorized('Invalid API key'));
      res.locals.organization = organization;
      res.locals.caller = organizationCaller(organization.id);
      return next();
    }
    const bearer = /^Bearer\s+(.+)$/i.exec(req.header('authorization') ?? '')?.[1];
    const token = bearer ?? (typeof req.query.token === 'string' ? req.query.token : undefined);
    if (!token) return next(errors.unauthorized('Missing X-API-Key header or board access token'));
    const grant = await access.authenticate(token);
    const declared = req.header('x-user-id') ?? (typeof req.query.user_id === 'string' ? req.query.user_id : undefined);
    const caller: Caller = {
      organizationId: grant.board.organizationId,
      role: grant.role,
      userId: declared?.slice(0, 255) || null,
      boardId: grant.board.id,
    };
    res.locals.caller = caller;
    next();
  };
}

/** The caller authenticated by `authenticateBoardCaller` (or `requireApiKey`). */
export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (caller) return caller;
  const organization = res.locals.organization as { id: string } | undefined;
  if (!organization) throw new Error('an authentication middleware must run before this handler');
  return organizationCaller(organization.id);
}
