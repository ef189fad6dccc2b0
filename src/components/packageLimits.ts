/** What a component ZIP may hold: 10 MB in all, 5 MB per file and 50 files; the other bounds are our own choice. */
export const PACKAGE_LIMITS = {
  /** The uploaded ZIP itself (413 above it, before any byte is inflated). */
  maxBundleBytes: 10 * 1024 * 1024,
  maxFiles: 50,
  /** Entries of the directory, folders included (zip tools add one per folder). */
  maxEntries: 200,
  maxFileBytes: 5 * 1024 * 1024,
  /** All files inflated together. */
  maxTotalBytes: 25 * 1024 * 1024,
  /** Inflated over compressed size for an entry past `ratioFloorBytes`: no honest web asset compresses 100 to 1. */
  maxRatio: 100,
  ratioFloorBytes: 1024 * 1024,
  maxNameBytes: 255,
  maxDepth: 8,
} as const;

export type PackageLimits = typeof PACKAGE_LIMITS;

/** Content types by extension: the only files a component may hold, each served as this type. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
  map: 'application/json; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  md: 'text/plain; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  ico: 'image/x-icon',
  woff: 'font/woff',
  woff2: 'font/woff2',
};

/** The content type of a path, or null when its extension is not allowed. */
export function contentTypeOf(path: string): string | null {
  const dot = path.lastIndexOf('.');
  if (dot < 0 || dot < path.lastIndexOf('/')) return null;
  return CONTENT_TYPES[path.slice(dot + 1).toLowerCase()] ?? null;
}
