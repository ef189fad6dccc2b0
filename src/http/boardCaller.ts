import type { Request, RequestHandler, Response } from 'express';
import { participantIdentity, type BoardAccess, type BoardGrant, type ParticipantIdentity } from '../boards/boardAccess.js';
import { boardTokenCaller, organizationCaller, type Caller } from '../boards/caller.js';
import { AppError, errors } from '../errors.js';
import { bearerToken, type ApiKeyAuthenticator } from './auth.js';

/**
 * Authenticates a call on one board. The organization's `X-API-Key` acts as host; a board
 * access token, as `Authorization: Bearer <token>` or `?token=<token>`, acts as the host or
 * guest that token names (for that board only); a bearer that is no board token is tried as
 * an API key (the deprecated bearer scheme). A personal link's token acts as the guest it
 * names. A user id declared with `X-User-Id` (or `?user_id=`) counts next to a host token
 * only (attribution): next to the shared guest link it owns no zone.
 */
export function authenticateBoardCaller(apiKeys: ApiKeyAuthenticator, access: BoardAccess): RequestHandler {
  return async (req, res, next) => {
    const apiKey = apiKeys.presentedKey(req);
    if (apiKey) {
      const organization = await apiKeys.authenticate(apiKey, req, res);
      res.locals.caller = organizationCaller(organization.id);
      return next();
    }
    const bearer = bearerToken(req);
    const token = bearer ?? (typeof req.query.token === 'string' ? req.query.token : undefined);
    if (!token) return next(errors.unauthorized('Missing X-API-Key header or board access token'));
    let grant: BoardGrant;
    try {
      grant = await access.authenticate(token);
    } catch (error) {
      if (!bearer || !isUnauthorized(error)) throw error;
      const organization = await deprecatedBearerKey(apiKeys, bearer, error, req, res);
      res.locals.caller = organizationCaller(organization.id);
      return next();
    }
    access.admit(grant);
    const declared = req.header('x-user-id') ?? (typeof req.query.user_id === 'string' ? req.query.user_id : undefined);
    res.locals.caller = boardTokenCaller(grant, declared || null);
    res.locals.grant = grant;
    next();
  };
}

function isUnauthorized(error: unknown): boolean {
  return error instanceof AppError && error.kind === 'unauthorized';
}

/**
 * A bearer that is no board token may be an API key in the deprecated bearer scheme; when it
 * is neither, the board token's refusal stands.
 */
async function deprecatedBearerKey(apiKeys: ApiKeyAuthenticator, bearer: string, refusal: unknown, req: Request, res: Response) {
  try {
    return await apiKeys.authenticateBearer(bearer, req, res);
  } catch (error) {
    throw isUnauthorized(error) ? refusal : error;
  }
}

/**
 * Who a board token's holder is shown as (`GET /boards/<id>/me`): a personal link's user, or
 * the display name declared next to a shared link (`X-User-Id`, `X-User-Name`); null for the API key.
 */
export function identityOf(req: Request, res: Response): ParticipantIdentity | null {
  const grant = res.locals.grant as BoardGrant | undefined;
  if (!grant) return null;
  const declared = (header: string, query: string) => req.header(header) || (typeof req.query[query] === 'string' ? (req.query[query]) : null);
  return participantIdentity(grant, {
    userId: declared('x-user-id', 'user_id'),
    userName: declared('x-user-name', 'user_name'),
    externalUserId: null,
    externalSource: null,
  });
}

/** What the caller presented: the browser client asks for a session participant when it holds the shared guest link. */
export type Credential = 'api_key' | 'host_link' | 'guest_link' | 'personal_link' | 'session';

export function credentialOf(res: Response): Credential {
  const grant = res.locals.grant as BoardGrant | undefined;
  if (!grant) return 'api_key';
  if (grant.user) return grant.user.kind === 'session' ? 'session' : 'personal_link';
  return grant.role === 'host' ? 'host_link' : 'guest_link';
}

/** The caller authenticated by `authenticateBoardCaller` (or `requireApiKey`). */
export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (caller) return caller;
  const organization = res.locals.organization as { id: string } | undefined;
  if (!organization) throw new Error('an authentication middleware must run before this handler');
  return organizationCaller(organization.id);
}
