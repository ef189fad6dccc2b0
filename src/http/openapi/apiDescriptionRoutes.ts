import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Router, type Response } from 'express';
import { lazy } from '../../util/lazy.js';
import { openApiDocument } from './openApiDocument.js';

/** Where the swagger-ui-dist package keeps its built files. */
const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
/** The files of the package the page loads; nothing else of it is served (its own index.html points at a demo API). */
const SWAGGER_UI_ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png'];

export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/docs';

/**
 * The page's policy: its own origin only, no inline script or style (Swagger UI styles elements
 * through the DOM, which the policy allows). `validatorUrl: null` below keeps it from asking an
 * outside validator for a badge, so nothing is fetched from anywhere else.
 */
const PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  // Asked again each time (answered 304 while unchanged), so an upgraded package reaches every browser.
  'Cache-Control': 'no-cache',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Whiteboard service API</title>
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/docs.js"></script>
</body>
</html>
`;

/** A file of its own rather than an inline script, so the page's policy needs no `'unsafe-inline'` for scripts. */
const START_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(OPENAPI_PATH)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const serializedDocument = lazy(() => JSON.stringify(openApiDocument()));

/** `GET /api/v1/openapi.json` (public) and the interactive docs page at `/docs`, served from swagger-ui-dist. */
export function apiDescriptionRoutes(): Router {
  const router = Router();
  router.get(OPENAPI_PATH, (_req, res) => {
    // Public and credential-free: tools on other origins (editors, generators) may read it.
    res.set({ 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
    res.type('application/json').send(serializedDocument());
  });
  router.get(DOCS_PATH, (_req, res) => send(res, 'text/html; charset=utf-8', PAGE));
  router.get(`${DOCS_PATH}/docs.js`, (_req, res) => send(res, 'text/javascript; charset=utf-8', START_SCRIPT));
  for (const asset of SWAGGER_UI_ASSETS) {
    router.get(`${DOCS_PATH}/${asset}`, (_req, res, next) => {
      res.sendFile(asset, { root: SWAGGER_UI_DIR, headers: PAGE_HEADERS, cacheControl: false }, (error) => error && next(error));
    });
  }
  return router;
}

function send(res: Response, type: string, content: string): void {
  res.set(PAGE_HEADERS).type(type).send(content);
}
