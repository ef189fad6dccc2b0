import { Router, type Request } from 'express';
import type { ComponentService } from '../components/componentService.js';
import { FILE_SPEC } from '../components/registryPaths.js';
import { errors } from '../errors.js';

/**
 * What a component file may do once loaded (in the board's `<iframe sandbox="allow-scripts">`,
 * or opened on its own): run its own scripts in an opaque origin (`sandbox allow-scripts`,
 * never `allow-same-origin`), load its own files, reach nothing else (no `connect-src`: data
 * comes through the host page's bridge), and be framed only by the app.
 */
function componentPolicy(appOrigin: string): string {
  return [
    'sandbox allow-scripts',
    "default-src 'none'",
    // Inline scripts and styles run inside the sandbox's opaque origin, which holds nothing of the app's.
    "script-src 'self' 'unsafe-inline'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "media-src 'self' data: blob:",
    "connect-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
    `frame-ancestors ${appOrigin}`,
  ].join('; ');
}

/**
 * `GET {COMPONENTS_URL}/components/files/<name>@<version>/<path>` (also under /api/v1): public,
 * cookie-less, with the component policy on every file, immutable caching for an exact version
 * and a minute for `latest`, ETags, and a deprecation header on deprecated versions.
 */
export function componentFilesRouter(components: ComponentService, appOrigin: () => string): Router {
  const router = Router();
  router.get('/components/files/:spec{/*path}', async (req, res) => {
    const match = FILE_SPEC.exec(String(req.params.spec));
    if (!match) throw errors.notFound('Component file');
    const path = Array.isArray(req.params.path) ? req.params.path.join('/') : '';
    // `name@1.0.0` without its slash would resolve the entry's relative URLs one folder too high.
    if (path === '' && !req.path.endsWith('/')) return void res.redirect(301, `${req.baseUrl}${req.path}/`);
    const file = await components.file(match[1]!, match[2]!, path);
    res.set({
      'Content-Type': file.contentType,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': componentPolicy(appOrigin()),
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': file.exact ? 'public, max-age=31536000, immutable' : 'public, max-age=60',
      ETag: file.etag,
      'X-Component-Version': file.version,
    });
    if (file.deprecation !== null) res.set({ Deprecation: 'true', 'X-Deprecation-Message': asciiHeader(file.deprecation) });
    if (notModified(req, file.etag)) return void res.status(304).end();
    res.send(file.bytes);
  });
  return router;
}

function notModified(req: Request, etag: string): boolean {
  const header = req.header('if-none-match');
  return header !== undefined && header.split(',').some((candidate) => candidate.trim() === etag || candidate.trim() === '*');
}

/** Headers carry Latin-1 only: the message is shortened, then escaped (never cut inside an escape). */
function asciiHeader(text: string): string {
  return encodeURIComponent(text.slice(0, 200));
}
