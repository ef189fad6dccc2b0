import type { Request, RequestHandler, Response } from 'express';
import { AppError, errors } from '../errors.js';
import { secretsEqual } from '../organizations/credentials.js';
import type { ApiKeyPrincipal, Organization, OrganizationService } from '../organizations/organizationService.js';
import type { UserTokenVerifier } from '../users/userTokens.js';

/**
 * Runs on every call authenticated by an API key, after the key is known: rate limits and
 * usage metering plug in here. Throwing an AppError refuses the call; a policy may also set
 * response headers (rate-limit headers).
 */
export type ApiCallPolicy = (principal: ApiKeyPrincipal, req: Request, res: Response) => Promise<void>;

/**
 * Removal date announced for the bearer-header scheme of API calls (by March 2026), the
 * same date `POST /boards/create` announces. The scheme keeps working past
 * it: removing it is the operator's decision, and clients are warned on every call until then.
 */
const BEARER_API_KEY_SUNSET = 'Sun, 01 Mar 2026 00:00:00 GMT';

/** The value of `Authorization: Bearer <value>`, if the request carries one. */
export function bearerToken(req: Request): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(req.header('authorization') ?? '')?.[1];
}

/** Authenticates API keys (`X-API-Key`) and applies the API-call policies to each call. */
export class ApiKeyAuthenticator {
  constructor(
    private readonly organizations: OrganizationService,
    private readonly policies: ApiCallPolicy[] = [],
  ) {}

  /** The presented API key, if the request carries one. */
  presentedKey(req: Request): string | undefined {
    return req.header('x-api-key') || undefined;
  }

  /** Authenticates `key`, runs the policies, and leaves the organization in `res.locals`. */
  async authenticate(key: string, req: Request, res: Response): Promise<Organization> {
    const principal = await this.organizations.authenticateKey(key);
    if (!principal) throw errors.unauthorized('Invalid API key');
    for (const policy of this.policies) await policy(principal, req, res);
    res.locals.organization = principal.organization;
    res.locals.apiKeyId = principal.apiKeyId;
    return principal.organization;
  }

  /**
   * The deprecated scheme: an API key sent as `Authorization: Bearer <key>`. It authenticates
   * like `X-API-Key`, and the answer announces the scheme's deprecation and sunset.
   */
  async authenticateBearer(key: string, req: Request, res: Response): Promise<Organization> {
    const organization = await this.authenticate(key, req, res);
    res.setHeader('Deprecation', 'true');
    res.setHeader('Sunset', BEARER_API_KEY_SUNSET);
    return organization;
  }

  /** Middleware: requires an API key (`X-API-Key`, or the deprecated bearer header). */
  required(): RequestHandler {
    return async (req, res, next) => {
      try {
        const key = this.presentedKey(req);
        const bearer = bearerToken(req);
        if (key) await this.authenticate(key, req, res);
        else if (bearer) await this.authenticateBearer(bearer, req, res);
        else throw errors.unauthorized('Missing X-API-Key header');
        next();
      } catch (error) {
        next(error);
      }
    };
  }
}

/** The organization authenticated by an API key (or a user's token where a route allows one). */
export function organizationOf(res: Response): Organization {
  const organization = res.locals.organization as Organization | undefined;
  if (!organization) throw new Error('an authentication middleware must run before this handler');
  return organization;
}

/** Three base64url segments; an API key never has this shape (no dots). */
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/;

/**
 * Middleware for routes an organization may call with its API key or one of its users with
 * an access token: `X-API-Key` (policies run), `Authorization: Bearer <JWT>`, or the
 * deprecated `Authorization: Bearer <API key>`. Leaves `res.locals.organization`, and
 * `res.locals.user` for a JWT.
 */
export function requireOrganizationCredential(apiKeys: ApiKeyAuthenticator, userTokens: UserTokenVerifier): RequestHandler {
  return async (req, res, next) => {
    const key = apiKeys.presentedKey(req);
    const bearer = bearerToken(req);
    if (key) await apiKeys.authenticate(key, req, res);
    else if (!bearer) throw errors.unauthorized('Missing X-API-Key header or bearer token');
    else if (JWT_SHAPE.test(bearer)) await authenticateUser(userTokens, bearer, res);
    else await apiKeys.authenticateBearer(bearer, req, res);
    next();
  };
}

async function authenticateUser(userTokens: UserTokenVerifier, token: string, res: Response): Promise<void> {
  try {
    const { user, organization } = await userTokens.verify(token);
    res.locals.organization = organization;
    res.locals.user = user;
  } catch (error) {
    // RFC 6750: tells the client to refresh or log in again rather than retry as is.
    if (error instanceof AppError && error.kind === 'unauthorized') res.setHeader('WWW-Authenticate', 'Bearer error="invalid_token"');
    throw error;
  }
}

/**
 * Guards the operator's admin API with `Authorization: Bearer $ADMIN_TOKEN`. Without an
 * ADMIN_TOKEN the admin API does not exist (404), so it cannot be probed.
 */
export function requireAdmin(adminToken: string | undefined): RequestHandler {
  return (req, _res, next) => {
    if (!adminToken) return next(errors.notFound(`Route ${req.method} ${req.path}`));
    const header = req.header('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match?.[1] || !secretsEqual(match[1], adminToken)) return next(errors.unauthorized('Invalid admin token'));
    next();
  };
}
