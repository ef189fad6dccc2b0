import { Router, type ErrorRequestHandler, type Response } from 'express';
import { AppError } from '../errors.js';
import { validateBody } from '../http/validate.js';
import { loginSchema, refreshSchema, type LoginInput, type RefreshInput } from './schemas.js';
import type { TokenResponse, UserAuthService } from './userAuthService.js';

/** Token answers must not be kept by browsers or proxies (RFC 6749 section 5.1). */
function sendTokens(res: Response, tokens: TokenResponse): void {
  res.setHeader('Cache-Control', 'no-store');
  res.json(tokens);
}

/** A throttled login says when to come back, in the header as in the body. */
const retryAfterHeader: ErrorRequestHandler = (error, _req, res, next) => {
  const retryAfter = error instanceof AppError ? error.extra?.retryAfter : undefined;
  if (typeof retryAfter === 'number') res.setHeader('Retry-After', String(retryAfter));
  next(error);
};

/** User sessions, mounted at /api/v1/auth; no credential needed (the body is the credential). */
export function authRoutes(auth: UserAuthService): Router {
  const router = Router();

  router.post('/login', validateBody(loginSchema), async (req, res) => {
    const { email, password } = req.body as LoginInput;
    sendTokens(res, await auth.login(email, password, req.ip));
  });

  router.post('/refresh', validateBody(refreshSchema), async (req, res) => {
    sendTokens(res, await auth.refresh((req.body as RefreshInput).refresh_token));
  });

  router.use(retryAfterHeader);
  return router;
}
