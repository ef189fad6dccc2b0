import express, { Router, type Express } from 'express';
import type { Logger } from '../logger.js';
import { errorHandler, notFoundHandler } from './errorBody.js';
import { apiDescriptionRoutes } from './openapi/apiDescriptionRoutes.js';
import { rejectUnreadablePath } from './pathGuard.js';
import { requestContext } from './requestContext.js';

export interface HttpAppParts {
  logger: Logger;
  now: () => Date;
  /** Mounted at /api/v1. */
  api: Router;
  /** The browser client's pages and assets (http/boardPage.ts), outside /api/v1. */
  pages: Router;
}

/** The Express app: request ids and logs, the API, and the one error renderer (probes come first: probes.ts). */
export function createHttpApp({ logger, now, api, pages }: HttpAppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(requestContext(logger));
  app.use(rejectUnreadablePath);
  // No body is parsed here: each route reads its own once its credential and access are
  // checked (routeSteps.ts, validate.ts, jsonBody.ts).

  // `GET /api/v1/openapi.json` and the docs page at `/docs`: public, before the API's credentials.
  app.use(apiDescriptionRoutes());
  app.use('/api/v1', api);
  app.use(pages);
  app.use(notFoundHandler);
  app.use(errorHandler(logger, now));
  return app;
}
