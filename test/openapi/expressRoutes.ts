import type { Express } from 'express';
import { operationsOf, type Document } from './openApiTestKit.js';

/** A route registered in an Express app: its method (`_all` for `router.all`), full path pattern and handlers. */
export interface RegisteredRoute {
  method: string;
  path: string;
  handlers: unknown[];
}

/** What the router package (Express 5) keeps of a layer. */
interface Layer {
  rawPath?: string | RegExp | Array<string | RegExp>;
  route?: { path: string; methods: Record<string, boolean>; stack: Array<{ handle: unknown }> };
  handle: { stack?: Layer[] };
}

/** Every route of the app, walking mounted routers; routes mounted with a regular expression are skipped (none is under /api/v1). */
export function registeredRoutes(app: Express): RegisteredRoute[] {
  return routesIn((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
}

function routesIn(stack: Layer[], prefix: string): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  for (const layer of stack) {
    if (layer.route) {
      const path = joined(prefix, layer.route.path);
      const handlers = layer.route.stack.map((entry) => entry.handle);
      for (const method of Object.keys(layer.route.methods)) routes.push({ method, path, handlers });
    } else if (layer.handle.stack && typeof layer.rawPath === 'string') {
      routes.push(...routesIn(layer.handle.stack, joined(prefix, layer.rawPath)));
    }
  }
  return routes;
}

function joined(prefix: string, path: string): string {
  const base = prefix === '/' ? '' : prefix;
  return path === '/' ? base || '/' : `${base}${path}`;
}

/**
 * The OpenAPI path templates an Express 5 path stands for: `:name` and `*name` become `{name}`,
 * and each optional group `{…}` is expanded to the path without it and with it.
 */
export function templatesOf(path: string): string[] {
  const optional = /\{([^{}]*)\}/.exec(path);
  if (optional) {
    return [...templatesOf(path.replace(optional[0], '')), ...templatesOf(path.replace(optional[0], optional[1]!))];
  }
  const template = path.replace(/[:*](\w+)/g, '{$1}').replace(/(.)\/$/, '$1');
  return [template];
}

/** A template with its parameters unnamed: `/boards/{id}` and `/boards/{boardId}` are one path. */
export const shapeOf = (template: string) => template.replace(/\{[^}]+\}/g, '{}');

const API_PREFIX = '/api/v1';

/** The routes under /api/v1 as documented operation keys (`GET /boards/{}`), with the route behind each. */
export function apiOperations(routes: RegisteredRoute[]): Map<string, RegisteredRoute> {
  const operations = new Map<string, RegisteredRoute>();
  for (const route of routes) {
    if (!route.path.startsWith(`${API_PREFIX}/`)) continue;
    for (const template of templatesOf(route.path.slice(API_PREFIX.length))) operations.set(`${route.method.toUpperCase()} ${shapeOf(template)}`, route);
  }
  return operations;
}

/** Routes of the app the document does not describe (`router.all` needs the path documented with some method). */
export function undocumentedRoutes(routes: RegisteredRoute[], document: Document): string[] {
  const documented = new Set([...operationsOf(document).keys()].map((key) => shapeKey(key)));
  const documentedPaths = new Set(Object.keys(document.paths as object).map(shapeOf));
  return [...apiOperations(routes).keys()].filter((key) => {
    const [method, path] = key.split(' ') as [string, string];
    return method === '_ALL' ? !documentedPaths.has(path) : !documented.has(key);
  });
}

/** Operations of the document no route serves. */
export function unservedOperations(routes: RegisteredRoute[], document: Document): string[] {
  const served = apiOperations(routes);
  return [...operationsOf(document).keys()].filter((key) => {
    const shaped = shapeKey(key);
    return !served.has(shaped) && !served.has(`_ALL ${shaped.split(' ')[1]!}`);
  });
}

const shapeKey = (key: string) => {
  const [method, path] = key.split(' ') as [string, string];
  return `${method} ${shapeOf(path)}`;
};
