import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type Response } from 'express';
import { errors } from '../errors.js';

/** Where `npm run build` (client/build.mjs) writes the browser client. */
export const DEFAULT_CLIENT_DIR = fileURLToPath(new URL('../../dist/client', import.meta.url));

const BOARD_PATH = /^\/boards\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/?$/i;

/**
 * The page's policy: its own origin only (scripts, styles, the API and the socket), frames
 * from the components origin only (each in its own sandbox, client/src/components), never
 * framed itself, and no referrer, since the page's address carries the board token.
 */
function pageHeaders(componentsOrigin: string): Record<string, string> {
  return {
    'Content-Security-Policy': [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self'",
      `frame-src ${componentsOrigin}`,
      "worker-src 'self'",
      "manifest-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
      "object-src 'none'",
    ].join('; '),
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    // Always asked again, so a new build's page (and its hashed assets) reach every browser.
    'Cache-Control': 'no-cache',
  };
}

export interface BoardPageOptions {
  /** Where `npm run build` wrote the client (default dist/client). */
  clientDir?: string;
  /** The origin of `COMPONENTS_URL` (default: `APP_URL`'s): the only one the page may frame. */
  componentsOrigin: () => string;
}

/**
 * The browser client at the access links (`{APP_URL}/boards/<board_uuid>?token=…`): the page,
 * its hashed assets (cached for a year: a new build has new names) and its service worker.
 * The page is the same for every board: it reads the board and the token from its own address,
 * so the service worker can keep one copy and open any board without a network.
 */
export function boardPageRouter({ clientDir = DEFAULT_CLIENT_DIR, componentsOrigin }: BoardPageOptions): Router {
  const router = Router();
  const built = clientFile(clientDir, 'board.html');
  const serviceWorker = clientFile(clientDir, 'sw.js');
  const sendPage = (res: Response) => {
    const origin = componentsOrigin();
    sendBuilt(res, namingComponentsOrigin(built(), origin), 'text/html; charset=utf-8', pageHeaders(origin));
  };

  router.get(BOARD_PATH, (_req, res) => sendPage(res));
  // The page the service worker keeps for boards opened without a network.
  router.get('/app/board.html', (_req, res) => sendPage(res));
  router.get('/sw.js', (_req, res) => {
    sendBuilt(res, serviceWorker(), 'text/javascript; charset=utf-8', { 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
  });
  router.use(
    '/app/assets',
    express.static(join(clientDir, 'assets'), {
      immutable: true,
      maxAge: '365d',
      index: false,
      fallthrough: true,
      setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
    }),
  );
  return router;
}

/**
 * A built file, read again only when a new build replaced it (a build while the server runs
 * names new hashed assets); null until the client is built (a checkout that never ran `npm run build`).
 */
function clientFile(clientDir: string, name: string): () => string | null {
  let cached: { content: string; modifiedAt: number } | null = null;
  return () => {
    const path = join(clientDir, name);
    const stats = statSync(path, { throwIfNoEntry: false });
    if (!stats) return null;
    if (cached?.modifiedAt !== stats.mtimeMs) cached = { content: readFileSync(path, 'utf8'), modifiedAt: stats.mtimeMs };
    return cached.content;
  };
}

/** The page learns the components origin from itself (it is the same page for every board, and kept offline). */
function namingComponentsOrigin(page: string | null, origin: string): string | null {
  if (page === null) return null;
  const meta = `<meta name="whiteboard-components-origin" content="${origin.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`)}">`;
  return page.replace('</head>', `${meta}\n</head>`);
}

function sendBuilt(res: Response, content: string | null, type: string, headers: Record<string, string>): void {
  if (content === null) throw errors.unavailable('The browser client is not built: run `npm run build`');
  res.set(headers).type(type).send(content);
}
