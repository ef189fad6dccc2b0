import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { PrismaClient } from '../store/database.js';
import { serverSecret } from '../store/secrets.js';
import { createLimiterStore } from './limiterStore.js';
import { LoginThrottle } from './loginThrottle.js';
import { UserAuthService } from './userAuthService.js';
import { UserTokens } from './userTokens.js';

export interface UsersOptions {
  prisma: PrismaClient;
  clock: Clock;
  logger: Logger;
  /** JWT_SECRET; unset = a key generated on first start and kept in the database. */
  jwtSecret?: string;
  redisUrl?: string;
}

/** User sessions assembled: access tokens, login and refresh, and the login throttle's store. */
export interface Users {
  tokens: UserTokens;
  auth: UserAuthService;
  close(): Promise<void>;
}

export async function createUsers(options: UsersOptions): Promise<Users> {
  const { prisma, clock, redisUrl } = options;
  const logger = options.logger.child({ component: 'users' });
  const secret = options.jwtSecret ?? (await serverSecret(prisma, 'jwt-signing-key', clock.now()));
  // Instances of one deployment share its database, hence this id; another deployment on the
  // same Redis (or another test database) counts apart.
  const deployment = (await serverSecret(prisma, 'redis-key-namespace', clock.now())).slice(0, 12);
  const limiters = await createLimiterStore({ redisUrl, keyPrefix: `wb:${deployment}:`, logger });
  const tokens = new UserTokens({ db: prisma, clock, secret });
  const auth = new UserAuthService({ prisma, clock, tokens, throttle: new LoginThrottle(limiters), logger });
  return { tokens, auth, close: () => limiters.close() };
}
