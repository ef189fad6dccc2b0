import { beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/assertions.js';
import { publishComponent, uniqueComponentName } from '../helpers/components.js';
import { createBoard, serverForSuite, tokenOf } from '../helpers/fixtures.js';
import { request } from '../helpers/testServer.js';
import { loadDocument, operationsOf } from '../openapi/openApiTestKit.js';

/**
 * A caller is told what it may not reach before anything about what it sent.
 * Every operation of the published API that reads a JSON body from a resource-scoped path (a
 * board, its frames, agents and objects; a component version; a webhook subscription) is called
 * with another organization's API key and a body that is invalid or not even JSON: the answer
 * is the refusal (403 or 404) in the API's error body, never a 400. The owner sending the same
 * body gets the 400, so the bodies do reach validation when the caller may.
 */
const { server } = serverForSuite();

/** Bodies no route accepts: the wrong JSON type, and text that is not JSON. */
const INVALID_BODIES = { 'a JSON array': '[1, 2]', 'malformed JSON': '{"title": ' } as const;

/** `METHOD /path/{param}` of every operation that reads a JSON body on a path naming a resource, with an API key among its credentials. */
function resourceOperationsWithBodies(): string[] {
  return [...operationsOf(loadDocument())]
    .filter(([key, operation]) => key.includes('{') && operation.requestBody?.content?.['application/json'])
    .filter(([, operation]) => (operation.security as Array<Record<string, unknown>>).some((requirement) => 'ApiKey' in requirement))
    .map(([key]) => key);
}

let params: Record<string, string>;
let zoneId: string;
let guestToken: string;
let otherKey: string;

beforeAll(async () => {
  const board = await createBoard(server, 'Refusals');
  const boardId = board.board_uuid;
  guestToken = tokenOf(board.access_links.guest);
  const made = async (path: string, body: unknown) => {
    const res = await server.api('POST', path, body);
    if (res.status >= 300) throw new Error(`setup: POST ${path} answered ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string };
  };
  const frame = await made(`/boards/${boardId}/frames`, { name: 'Frame' });
  zoneId = (await made(`/boards/${boardId}/frames`, { name: 'Zone', bounds_x: 5_000, assigned_user_id: 'student-1' })).id;
  const agent = await made(`/boards/${boardId}/agents`, { name: 'Tutor', persona: 'tutor', instructions: {} });
  const object = await made(`/boards/${boardId}/objects`, { type: 'sticky', data: { text: 'hi' }, position: { x: 0, y: 0 } });
  const subscription = await made('/webhooks/subscriptions', { url: 'https://hooks.invalid/refusals' });
  const name = uniqueComponentName('refusals');
  await publishComponent(server, name, '1.0.0');
  params = { boardId, frameId: frame.id, agentId: agent.id, objectId: object.id, key: 'score', subscriptionId: subscription.id, name, version: '1.0.0' };
  otherKey = (await server.newOrganization()).apiKey;
});

/** The operation's path with the fixtures' ids in it; a parameter without a fixture fails the test (a new kind of route needs one). */
function pathOf(operation: string, overrides: Record<string, string> = {}): { method: string; path: string } {
  const [method, template] = operation.split(' ') as [string, string];
  const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = overrides[name] ?? params[name];
    if (value === undefined) throw new Error(`${operation}: no fixture for {${name}}`);
    return value;
  });
  return { method, path: `/api/v1${path}` };
}

const send = (operation: string, body: string, headers: Record<string, string>, overrides?: Record<string, string>) => {
  const { method, path } = pathOf(operation, overrides);
  return request(server.url, method, path, body, { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers });
};

describe('another organization gets the refusal, whatever body it sends', () => {
  /** A few operations the walk must include, so that a change in the document cannot empty it unnoticed. */
  const WALKED = [
    'PATCH /boards/{boardId}',
    'PATCH /boards/{boardId}/frames/{frameId}',
    'PATCH /boards/{boardId}/agents/{agentId}',
    'POST /boards/{boardId}/ai/generate',
    'PUT /boards/{boardId}/objects/{objectId}/storage/{key}',
    'PATCH /components/{name}/{version}',
    'PATCH /webhooks/subscriptions/{subscriptionId}',
  ];

  for (const [what, body] of Object.entries(INVALID_BODIES)) {
    it(`answers 403 or 404, never 400, to ${what} on every such operation; the owner gets the 400`, async () => {
      const operations = resourceOperationsWithBodies();
      expect(operations).toEqual(expect.arrayContaining(WALKED));
      for (const operation of operations) {
        const { path } = pathOf(operation);
        const refused = await send(operation, body, { 'x-api-key': otherKey });
        expect([403, 404], `${operation} answered ${refused.status} ${JSON.stringify(refused.body)}`).toContain(refused.status);
        expectErrorBody(refused, { statusCode: refused.status, error: refused.status === 403 ? 'Forbidden' : 'Not Found', path });
        // MCP reads any JSON and answers its own JSON-RPC errors: only text that is not JSON is the service's 400 there.
        if (operation.endsWith('/mcp') && body === INVALID_BODIES['a JSON array']) continue;
        const owner = await send(operation, body, { 'x-api-key': server.apiKey });
        expect(owner.status, `${operation} as the owner`).toBe(400);
      }
    });
  }
});

describe("a guest gets the host-only routes' 403, whatever body it sends", () => {
  /** The operations only a host may call (with the zone for the frame change: a zone is changed by the host only). */
  const HOST_ONLY: Array<[string, Record<string, string>?]> = [
    ['PATCH /boards/{boardId}'],
    ['POST /boards/{boardId}/participant-links'],
    ['POST /boards/{boardId}/agents'],
    ['PATCH /boards/{boardId}/agents/{agentId}'],
    ['POST /boards/{boardId}/agents/{agentId}/mcp'],
    ['POST /boards/{boardId}/ai/generate'],
    ['POST /boards/{boardId}/frames/{frameId}/assign'],
    ['POST /boards/{boardId}/zones/bulk-assign'],
    ['PATCH /boards/{boardId}/frames/{frameId}', { frameId: 'zone' }],
  ];

  it.each(HOST_ONLY)('%s', async (operation, overrides) => {
    const ids: Record<string, string> = overrides?.frameId === 'zone' ? { frameId: zoneId } : {};
    for (const body of Object.values(INVALID_BODIES)) {
      const res = await send(operation, body, { authorization: `Bearer ${guestToken}` }, ids);
      expectErrorBody(res, { statusCode: 403, error: 'Forbidden', path: pathOf(operation, ids).path });
    }
  });
});
