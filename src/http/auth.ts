import type { RequestHandler, Response } from 'express';
import { errors } from '../errors.js';
import { secretsEqual } from '../organizations/credentials.js';
import type { Organization, OrganizationService } from '../organizations/organizationService.js';

/** Requires `X-API-Key`; the caller's organization is left in `res.locals.organization`. */
export function requireApiKey(organizations: OrganizationService): RequestHandler {
  return async (req, res, next) => {
    const key = req.header('x-api-key');
    if (!key) return next(errors.unauthorized('Missing X-API-Key header'));
    const organization = await organizations.authenticate(key);
    if (!organization) return next(errors.unauthorized('Invalid API key'));
    res.locals.organization = organization;
    next();
  };
}

/** The organization authenticated by `requireApiKey`. */
export function organizationOf(res: Response): Organization {
  const organization = res.locals.organization as Organization | undefined;
  if (!organization) throw new Error('requireApiKey must run before this handler');
  return organization;
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
