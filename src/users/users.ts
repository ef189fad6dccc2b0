import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { PrismaClient } from '../store/database.js';
import type { LimiterStore } from '../store/limiterStore.js';
import { serverSecret } from '../store/secrets.js';
import { LoginThrottle } from './loginThrottle.js';
import { UserAccounts } from './userAccounts.js';
import { UserAuthService } from './userAuthService.js';
import { UserTokens } from './userTokens.js';

export interface UsersOptions {
  prisma: PrismaClient;
  clock: Clock;
  logger: Logger;
  /** JWT_SECRET; unset = a key generated on first start and kept in the database. */
  jwtSecret?: string;
  /** Where the login throttle counts (shared with the API rate limits). */
  limiters: LimiterStore;
}

/** Users assembled: their accounts, access tokens, and login and refresh with their throttle. */
export interface Users {
  accounts: UserAccounts;
  tokens: UserTokens;
  auth: UserAuthService;
}

export async function createUsers(options: UsersOptions): Promise<Users> {
  const { prisma, clock, limiters } = options;
  const logger = options.logger.child({ component: 'users' });
  const secret = options.jwtSecret ?? (await serverSecret(prisma, 'jwt-signing-key', clock.now()));
  // Instances of one deployment share its database, hence this id; another deployment on the
  // same Redis (or another test database) counts apart.
  const deployment = (await serverSecret(prisma, 'redis-key-namespace', clock.now())).slice(0, 12);
  const accounts = new UserAccounts({ db: prisma, clock });
  const tokens = new UserTokens({ db: prisma, clock, secret });
  const auth = new UserAuthService({ prisma, clock, accounts, tokens, throttle: new LoginThrottle(limiters, `wb:${deployment}:`), logger });
  return { accounts, tokens, auth };
}
