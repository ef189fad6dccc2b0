import { Router, type Response } from 'express';
import { loginSchema, refreshSchema, type LoginInput, type RefreshInput } from '../../users/schemas.js';
import type { TokenResponse, UserAuthService } from '../../users/userAuthService.js';
import { validateBody } from '../validate.js';

/** Token answers must not be kept by browsers or proxies (RFC 6749 section 5.1). */
function sendTokens(res: Response, tokens: TokenResponse): void {
  res.setHeader('Cache-Control', 'no-store');
  res.json(tokens);
}

/**
 * User sessions, mounted at /api/v1/auth; no credential needed (the body is the credential).
 * A throttled login's 429 gets its `Retry-After` from the error renderer (http/errorBody.ts).
 */
export function authRoutes(auth: UserAuthService): Router {
  const router = Router();

  router.post('/login', validateBody(loginSchema), async (req, res) => {
    const { email, password } = req.body as LoginInput;
    sendTokens(res, await auth.login(email, password, req.ip));
  });

  router.post('/refresh', validateBody(refreshSchema), async (req, res) => {
    sendTokens(res, await auth.refresh((req.body as RefreshInput).refresh_token));
  });

  return router;
}
