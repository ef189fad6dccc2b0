import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Db, PrismaClient } from '../store/database.js';
import type { LoginThrottle } from './loginThrottle.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { normalizeEmail, type UserAccounts } from './userAccounts.js';
import { ACCESS_TOKEN_TTL_SECONDS, type UserTokens } from './userTokens.js';

/** A refresh token lives 30 days from its issue; each use replaces it with a new one. */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** What login and refresh answer (OAuth 2 token response, its token named `accessToken` as the API documents it). */
export interface TokenResponse {
  accessToken: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

export interface UserAuthDependencies {
  prisma: PrismaClient;
  clock: Clock;
  accounts: UserAccounts;
  tokens: UserTokens;
  throttle: LoginThrottle;
  logger: Logger;
}

const LOGIN_REFUSED = 'Invalid email or password';
const REFRESH_REFUSED = 'Invalid or expired refresh token';

function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * User sessions: login with email and password, and refresh-token rotation. Each login
 * starts a family of refresh tokens; each refresh spends one token of the family and issues
 * the next. A spent token presented again means it was copied, so the whole family is revoked.
 */
export class UserAuthService {
  /** Checked when the email is unknown, so an unknown email costs as much as a wrong password. */
  private readonly dummyHash: Promise<string>;

  constructor(private readonly deps: UserAuthDependencies) {
    this.dummyHash = hashPassword(randomBytes(16).toString('hex'));
  }

  /** 401 with one message for an unknown email and a wrong password; 429 when throttled. */
  async login(email: string, password: string, ip: string | undefined): Promise<TokenResponse> {
    const { prisma, throttle, clock, accounts } = this.deps;
    const account = normalizeEmail(email);
    await throttle.admit(account, ip);
    const user = await accounts.credentialsByEmail(account);
    const valid = await verifyPassword(password, user?.passwordHash ?? (await this.dummyHash));
    if (!user || !valid) throw errors.unauthorized(LOGIN_REFUSED);
    await throttle.succeeded(account, ip);
    // Housekeeping: the user's expired tokens can no longer be used nor reused.
    await prisma.refreshToken.deleteMany({ where: { userId: user.id, expiresAt: { lte: clock.now() } } });
    const refreshToken = await this.storeRefreshToken(prisma, user.id, randomUUID());
    return this.respond(user, refreshToken);
  }

  /** Spends a refresh token and answers new tokens; 401 for an unknown, spent or expired one. */
  async refresh(token: string): Promise<TokenResponse> {
    const { prisma, clock } = this.deps;
    const now = clock.now();
    const row = await prisma.refreshToken.findUnique({ where: { tokenHash: hashRefreshToken(token) }, include: { user: true } });
    if (!row) throw errors.unauthorized(REFRESH_REFUSED);
    if (row.revokedAt) return this.reused(row);
    if (row.expiresAt <= now) throw errors.unauthorized(REFRESH_REFUSED);
    const next = await prisma.$transaction(async (tx) => {
      // Conditional, so of two concurrent refreshes with one token only one spends it.
      const spent = await tx.refreshToken.updateMany({ where: { id: row.id, revokedAt: null }, data: { revokedAt: now } });
      return spent.count === 1 ? this.storeRefreshToken(tx, row.userId, row.familyId) : null;
    });
    if (!next) return this.reused(row);
    return this.respond(row.user, next);
  }

  private async reused(row: { familyId: string; userId: string }): Promise<never> {
    const revoked = await this.deps.prisma.refreshToken.updateMany({
      where: { familyId: row.familyId, revokedAt: null },
      data: { revokedAt: this.deps.clock.now() },
    });
    this.deps.logger.warn({ user_id: row.userId, family_id: row.familyId, revoked: revoked.count }, 'spent refresh token presented again; session revoked');
    throw errors.unauthorized(REFRESH_REFUSED);
  }

  private async storeRefreshToken(db: Db, userId: string, familyId: string): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = this.deps.clock.now();
    await db.refreshToken.create({
      data: {
        id: randomUUID(),
        userId,
        tokenHash: hashRefreshToken(token),
        expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_MS),
        createdAt: now,
        familyId,
      },
    });
    return token;
  }

  private async respond(user: { id: string; organizationId: string }, refreshToken: string): Promise<TokenResponse> {
    return {
      accessToken: await this.deps.tokens.issue(user),
      refresh_token: refreshToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_SECONDS,
    };
  }
}
