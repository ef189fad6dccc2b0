import type { Express } from 'express';
import { describe, expect, it, vi } from 'vitest';
import { OPERATIONS } from '../../src/http/openapi/openApiDocument.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { apiOperations, registeredRoutes, shapeOf, undocumentedRoutes, unservedOperations, type RegisteredRoute } from './expressRoutes.js';
import { loadDocument, RESPONSE_SUITES } from './openApiTestKit.js';

/**
 * The document describes exactly the routes the running app registers under /api/v1, and each
 * operation's request body and query are the very schemas its route validates with. The app is
 * the one the service builds (createHttpApp is wrapped to keep it), and every validator the
 * routes create is remembered with its schema (validate.ts is wrapped).
 */
const captured = vi.hoisted(() => ({ apps: [] as unknown[], validators: new Map<unknown, { kind: 'body' | 'query'; schema: unknown }>() }));

vi.mock('../../src/http/httpApp.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/http/httpApp.js')>();
  return {
    ...original,
    createHttpApp: (parts: Parameters<typeof original.createHttpApp>[0]) => {
      const app = original.createHttpApp(parts);
      captured.apps.push(app);
      return app;
    },
  };
});

vi.mock('../../src/http/validate.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/http/validate.js')>();
  const remembered = (kind: 'body' | 'query', make: typeof original.validateBody) => (schema: Parameters<typeof make>[0]) => {
    const handler = make(schema);
    captured.validators.set(handler, { kind, schema });
    return handler;
  };
  return { ...original, validateBody: remembered('body', original.validateBody), validateQuery: remembered('query', original.validateQuery) };
});

serverForSuite();
const routes = (): RegisteredRoute[] => registeredRoutes(captured.apps[0] as Express);

/** The schema a route validates its body or query with, if any. */
function validated(route: RegisteredRoute, kind: 'body' | 'query'): unknown {
  return route.handlers.map((handler) => captured.validators.get(handler)).find((validator) => validator?.kind === kind)?.schema;
}

describe('every route is documented, and every documented operation is served', () => {
  it('finds the routes of the running app', () => {
    expect(captured.apps).toHaveLength(1);
    expect(apiOperations(routes()).size).toBeGreaterThan(60);
  });

  it('documents every route registered under /api/v1', () => {
    expect(undocumentedRoutes(routes(), loadDocument())).toEqual([]);
  });

  it('serves every documented operation', () => {
    expect(unservedOperations(routes(), loadDocument())).toEqual([]);
  });

  it('notices a route the document leaves out', () => {
    const document = loadDocument();
    delete document.paths['/boards/{boardId}/frames/{frameId}/clone'];
    delete document.paths['/quota'].get;
    expect(undocumentedRoutes(routes(), document).sort()).toEqual(['GET /quota', 'POST /boards/{}/frames/{}/clone']);
  });

  it('names an operation per method and path only once', () => {
    const keys = OPERATIONS.map((spec) => `${spec.method} ${shapeOf(spec.path)}`);
    expect(keys.filter((key, index) => keys.indexOf(key) !== index)).toEqual([]);
  });

  it('lets a response suite drive every tag', () => {
    const tags = (loadDocument().tags as Array<{ name: string }>).map((tag) => tag.name);
    expect(Object.values(RESPONSE_SUITES).flat().sort()).toEqual([...tags].sort());
  });
});

describe('request schemas come from the routes', () => {
  const served = () => apiOperations(routes());
  const routeOf = (spec: (typeof OPERATIONS)[number]) => served().get(`${spec.method.toUpperCase()} ${shapeOf(spec.path)}`) ?? served().get(`_ALL ${shapeOf(spec.path)}`);

  it("publishes each route's body schema, the same object the route validates with", () => {
    const mismatched = OPERATIONS.filter((spec) => validated(routeOf(spec)!, 'body') !== spec.body?.schema);
    expect(mismatched.map((spec) => `${spec.method} ${spec.path}`)).toEqual([]);
  });

  it("publishes each route's query schema as its query parameters", () => {
    const mismatched = OPERATIONS.filter((spec) => validated(routeOf(spec)!, 'query') !== spec.query);
    expect(mismatched.map((spec) => `${spec.method} ${spec.path}`)).toEqual([]);
  });
});
