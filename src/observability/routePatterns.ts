/** The label of requests no route matched: static files, unknown paths, probes of the address space. */
export const UNMATCHED_ROUTE = 'unmatched';

/** What Express 5's router keeps of a layer (as test/openapi/expressRoutes.ts reads it too). */
interface Layer {
  rawPath?: unknown;
  route?: { path: unknown };
  handle: { stack?: Layer[] };
}

/** An Express app as far as its routes go: its router's stack (typed loosely: @types/express describes Express 4's layers). */
export interface RoutedApp {
  router: { stack: readonly object[] };
}

/**
 * The full path pattern (`/api/v1/boards/:boardId`) of the route that handled a request.
 * Express leaves the matched route on `req.route`, but its `path` is relative to the router
 * it sits in, and `req.baseUrl` holds the raw mount path (and is put back when an error
 * leaves the router). So the app's routes are walked once, and each route object maps to
 * its full pattern: a label is a lookup, and never a piece of the URL.
 */
export class RoutePatterns {
  private patterns: WeakMap<object, string> | null = null;

  constructor(private readonly app: RoutedApp) {}

  of(req: object): string {
    const route = (req as { route?: unknown }).route;
    if (typeof route !== 'object' || route === null) return UNMATCHED_ROUTE;
    // Built at the first request: every route is registered before the server listens.
    this.patterns ??= patternsOf(this.app.router.stack as Layer[], '', new WeakMap());
    return this.patterns.get(route) ?? UNMATCHED_ROUTE;
  }
}

function patternsOf(stack: Layer[], prefix: string, into: WeakMap<object, string>): WeakMap<object, string> {
  for (const layer of stack) {
    if (layer.route) {
      // A router mounted twice keeps its first prefix.
      if (!into.has(layer.route)) into.set(layer.route, joined(prefix, pathText(layer.route.path)));
    } else if (layer.handle.stack && typeof layer.rawPath === 'string') {
      patternsOf(layer.handle.stack, joined(prefix, layer.rawPath), into);
    }
  }
  return into;
}

/** A route's path as written (several paths or a regular expression: their source). */
function pathText(path: unknown): string {
  return Array.isArray(path) ? path.map(String).join('|') : String(path);
}

function joined(prefix: string, path: string): string {
  const base = prefix === '/' ? '' : prefix;
  return path === '/' ? base || '/' : `${base}${path}`;
}
