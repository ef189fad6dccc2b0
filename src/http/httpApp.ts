import express, { Router, type Express } from 'express';
import type { Logger } from '../logger.js';
import { errorHandler, notFoundHandler } from './errorBody.js';
import { rejectUnreadablePath } from './pathGuard.js';
import { requestContext } from './requestContext.js';

/** Largest JSON body the API accepts (SPEC Limits: 10 MB). */
export const JSON_BODY_LIMIT = '10mb';

export interface HttpAppParts {
  logger: Logger;
  now: () => Date;
  /** Mounted at /api/v1. */
  api: Router;
  /** `GET /health`; `GET /ready` also checks the database. */
  checkDatabase: () => Promise<void>;
  /** The browser client's pages and assets (http/boardPage.ts), outside /api/v1. */
  pages: Router;
}

/** The Express app: request ids and logs, JSON parsing, the API, and the one error renderer. */
export function createHttpApp({ logger, now, api, checkDatabase, pages }: HttpAppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // Probes first, without a request id, a request log line, the path guard or the body parser:
  // an orchestrator probes every few seconds, and those were a quarter to a third of a probe's
  // CPU (docs/decisions.md, issue 15, third round).
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/ready', async (_req, res) => {
    try {
      await checkDatabase();
      res.json({ status: 'ok', database: 'ok' });
    } catch (error) {
      logger.error({ err: error }, 'readiness check failed');
      res.status(503).json({ status: 'unavailable', database: 'unreachable' });
    }
  });
  app.use(requestContext(logger));
  app.use(rejectUnreadablePath);
  app.use(express.json({ limit: JSON_BODY_LIMIT, type: ['application/json', 'application/*+json'] }));

  app.use('/api/v1', api);
  app.use(pages);
  app.use(notFoundHandler);
  app.use(errorHandler(logger, now));
  return app;
}
