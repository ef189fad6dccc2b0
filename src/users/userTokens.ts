import type { JWTPayload } from 'jose';
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import type { Organization } from '../organizations/organizationService.js';
import type { Plan } from '../organizations/plans.js';
import type { Db } from '../store/database.js';
import { lazy } from '../util/lazy.js';

/** jose is loaded by the first token issued or checked (user logins; API keys need none of it). */
const joseModule = lazy(() => import('jose'));

/** Access tokens live 15 minutes; clients renew them with their refresh token. */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;

const ALGORITHM = 'HS256';
const ISSUER = 'whiteboard';
const AUDIENCE = 'whiteboard-api';
/** Tolerated difference between the signer's and the verifier's clocks (several instances). */
const CLOCK_TOLERANCE_SECONDS = 60;

/** A user authenticated by an access token (JWT). */
export interface AuthenticatedUser {
  id: string;
  email: string;
  organizationId: string;
}

/** Verifies user access tokens: the port the HTTP edge authenticates users through. */
export interface UserTokenVerifier {
  /** The user and its organization (plan read now), or a 401 AppError for a bad or expired token. */
  verify(token: string): Promise<{ user: AuthenticatedUser; organization: Organization }>;
}

export interface UserTokensDependencies {
  db: Db;
  clock: Clock;
  /** The HS256 key: JWT_SECRET, or the secret generated and kept in the database. */
  secret: string;
}

/**
 * Signs and verifies user access tokens: HS256 JWTs with `sub` (user id), `org`
 * (organization id), `iat`, `exp`, and a fixed issuer and audience. Only HS256 is accepted,
 * so `alg: none` and algorithm confusion are refused before any claim is read.
 */
export class UserTokens implements UserTokenVerifier {
  private readonly key: Uint8Array;

  constructor(private readonly deps: UserTokensDependencies) {
    this.key = new TextEncoder().encode(deps.secret);
  }

  /** A new access token for `user`, valid {@link ACCESS_TOKEN_TTL_SECONDS} from now. */
  async issue(user: { id: string; organizationId: string }): Promise<string> {
    const now = this.deps.clock.now();
    const { SignJWT } = await joseModule();
    return new SignJWT({ org: user.organizationId })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setSubject(user.id)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(new Date(now.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000))
      .sign(this.key);
  }

  /**
   * The user of a valid token and its organization, read now: a deleted user's tokens stop
   * working at once, and a plan change shows on the next call.
   */
  async verify(token: string): Promise<{ user: AuthenticatedUser; organization: Organization }> {
    const claims = await this.claims(token);
    const row = await this.deps.db.user.findUnique({ where: { id: claims.sub }, include: { organization: true } });
    if (!row || row.organizationId !== claims.org) throw errors.unauthorized('Invalid access token');
    const { id, name, plan } = row.organization;
    return {
      user: { id: row.id, email: row.email, organizationId: row.organizationId },
      organization: { id, name, plan: plan as Plan },
    };
  }

  private async claims(token: string): Promise<JWTPayload & { sub: string; org: string }> {
    const { errors: jose, jwtVerify } = await joseModule();
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: [ALGORITHM],
        issuer: ISSUER,
        audience: AUDIENCE,
        requiredClaims: ['exp', 'iat', 'sub', 'org'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        currentDate: this.deps.clock.now(),
      });
      if (typeof payload.sub !== 'string' || typeof payload.org !== 'string') throw errors.unauthorized('Invalid access token');
      return payload as JWTPayload & { sub: string; org: string };
    } catch (error) {
      if (error instanceof jose.JWTExpired) throw errors.unauthorized('Access token has expired');
      if (error instanceof jose.JOSEError) throw errors.unauthorized('Invalid access token');
      throw error;
    }
  }
}
