import { describe, expect, it } from 'vitest';
import { placeComponent, uniqueComponentName } from '../helpers/components.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { manifestJson, zipOf } from '../helpers/zipBuilder.js';
import { asBearer, MISSING_ID, newDocumentedBoard, DocumentedApi } from './documentedApi.js';
import { RESPONSE_SUITES } from './openApiTestKit.js';

/**
 * Every operation of the Agents and Components tags, called on the real server: each answer's
 * status is one the document lists for it, and its body validates against that status's schema
 * with no undocumented field (documentedApi.ts).
 */
const TAGS = RESPONSE_SUITES['responsesAgentsComponents.test.ts']!;
const suite = serverForSuite();
// The suite's server is a stand-in until beforeAll starts it; the API reads it per call.
const api = new DocumentedApi(suite.server);

const newBoard = (body: Record<string, unknown> = {}) => newDocumentedBoard(api, body);

const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };

describe('agents answer as documented', () => {
  it('creates, lists, reads, changes, pauses, resumes, resets and deletes an agent', async () => {
    const { boardId, guest } = await newBoard();
    const instructions = { description: 'Greets', triggers: [{ event: 'object:created', action: 'send_notification', params: { message: 'Welcome' } }] };
    const created = await api.call('POST /boards/{boardId}/agents', { params: { boardId }, body: { name: 'Greeter', persona: 'custom', instructions, budgetTokens: 1000 } });
    expect(created.status).toBe(201);
    const agentId = created.body.id as string;
    const ids = { boardId, agentId };
    await suite.server.api('POST', `/boards/${boardId}/objects`, { type: 'sticky', data: { text: 'hello' }, position: { x: 0, y: 0 } });
    await suite.server.app.agents.settled();
    expect((await api.call('GET /boards/{boardId}/agents/{agentId}/actions', { params: ids, query: { limit: '10' } })).body).not.toHaveLength(0);
    expect((await api.call('GET /boards/{boardId}/agents/{agentId}/stats', { params: ids })).status).toBe(200);
    expect((await api.call('GET /boards/{boardId}/agents', { params: { boardId } })).body).toHaveLength(1);
    expect((await api.call('GET /boards/{boardId}/agents/{agentId}', { params: ids })).status).toBe(200);
    expect((await api.call('PATCH /boards/{boardId}/agents/{agentId}', { params: ids, body: { priority: 3, budgetTokens: null } })).status).toBe(200);
    expect((await api.call('POST /boards/{boardId}/agents/{agentId}/pause', { params: ids })).body.status).toBe('paused');
    expect((await api.call('POST /boards/{boardId}/agents/{agentId}/pause', { params: ids })).status).toBe(400);
    expect((await api.call('POST /boards/{boardId}/agents/{agentId}/resume', { params: ids })).body.status).toBe('active');
    expect((await api.call('POST /boards/{boardId}/agents/{agentId}/resume', { params: ids })).status).toBe(400);
    expect((await api.call('POST /boards/{boardId}/agents/{agentId}/reset', { params: ids })).status).toBe(200);

    expect((await api.call('POST /boards/{boardId}/agents', { params: { boardId }, body: { persona: 'custom', instructions: {} } })).status).toBe(400);
    expect((await api.call('POST /boards/{boardId}/agents', { params: { boardId }, body: { name: 'G', persona: 'custom', instructions: {} }, ...asBearer(guest) })).status).toBe(403);
    expect((await api.call('GET /boards/{boardId}/agents', { params: { boardId: MISSING_ID } })).status).toBe(404);
    expect((await api.call('PATCH /boards/{boardId}/agents/{agentId}', { params: ids, body: { priority: 11 } })).status).toBe(400);
    expect((await api.call('GET /boards/{boardId}/agents/{agentId}/actions', { params: ids, query: { limit: '0' } })).status).toBe(400);
    expect((await api.call('GET /boards/{boardId}/agents/{agentId}/stats', { params: { boardId, agentId: MISSING_ID } })).status).toBe(404);
    expect((await api.call('POST /boards/{boardId}/agents/{agentId}/reset', { params: ids, ...asBearer(guest) })).status).toBe(403);
    expect((await api.call('DELETE /boards/{boardId}/agents/{agentId}', { params: ids })).status).toBe(204);
    expect((await api.call('GET /boards/{boardId}/agents/{agentId}', { params: ids })).status).toBe(404);
    expect((await api.call('DELETE /boards/{boardId}/agents/{agentId}', { params: ids })).status).toBe(404);
  });

  it('answers MCP as documented', async () => {
    const { boardId, guest } = await newBoard();
    const created = await api.call('POST /boards/{boardId}/agents', { params: { boardId }, body: { name: 'Assistant', persona: 'custom', instructions: {} } });
    const ids = { boardId, agentId: created.body.id as string };
    const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const tools = await api.call('POST /boards/{boardId}/agents/{agentId}/mcp', { params: ids, body: listTools, headers: MCP_ACCEPT });
    expect(tools.body.result.tools.length).toBeGreaterThan(0);
    const notification = { jsonrpc: '2.0', method: 'notifications/initialized' };
    expect((await api.call('POST /boards/{boardId}/agents/{agentId}/mcp', { params: ids, body: notification, headers: MCP_ACCEPT })).status).toBe(202);
    expect((await api.call('POST /boards/{boardId}/agents/{agentId}/mcp', { params: ids, body: listTools })).status).toBe(406);
    expect((await api.call('POST /boards/{boardId}/agents/{agentId}/mcp', { params: ids, body: listTools, ...asBearer(guest), headers: { ...MCP_ACCEPT, authorization: `Bearer ${guest}` } })).status).toBe(403);
    expect((await api.call('GET /boards/{boardId}/agents/{agentId}/mcp', { params: ids })).status).toBe(405);
    expect((await api.call('DELETE /boards/{boardId}/agents/{agentId}/mcp', { params: ids })).status).toBe(405);
  });

  it('generates objects and serves presets as documented', async () => {
    const { boardId, guest } = await newBoard();
    expect((await api.call('POST /boards/{boardId}/ai/generate', { params: { boardId }, body: { prompt: 'Ideas for a picnic', count: 2 } })).status).toBe(201);
    expect((await api.call('POST /boards/{boardId}/ai/generate', { params: { boardId }, body: { prompt: 'x' }, ...asBearer(guest) })).status).toBe(403);
    expect((await api.call('POST /boards/{boardId}/ai/generate', { params: { boardId }, body: {} })).status).toBe(400);
    expect((await api.call('GET /agent-presets')).body).toHaveLength(5);
    expect((await api.call('GET /agent-presets/{persona}', { params: { persona: 'tutor' } })).status).toBe(200);
    expect((await api.call('GET /agent-presets/{persona}', { params: { persona: 'pirate' } })).status).toBe(404);
  });
});

async function publishForm(name: string, version: string, apiKey: string | null, manifest: Record<string, unknown> = {}): Promise<FormData> {
  const zip = await zipOf([
    { name: 'manifest.json', content: manifestJson({ name, version, ...manifest }) },
    { name: 'index.html', content: `<!doctype html><p>${name}</p>` },
  ]);
  const form = new FormData();
  form.append('bundle', new Blob([new Uint8Array(zip)]), `${name}.zip`);
  if (apiKey) form.append('apiKey', apiKey);
  return form;
}

describe('components answer as documented', () => {
  it('publishes, lists, serves, deprecates and deletes a component version', async () => {
    const name = uniqueComponentName();
    const key = suite.server.apiKey;
    const published = await api.call('POST /components/publish', { anonymous: true, rawBody: await publishForm(name, '1.0.0', key) });
    expect(published.status).toBe(200);
    expect((await api.call('POST /components/publish', { anonymous: true, rawBody: await publishForm(name, '1.0.0', key) })).status).toBe(409);
    expect((await api.call('POST /components/publish', { anonymous: true, rawBody: await publishForm(name, '1.0.1', null) })).status).toBe(401);
    const keyOnly = new FormData();
    keyOnly.append('apiKey', key);
    expect((await api.call('POST /components/publish', { anonymous: true, rawBody: keyOnly })).status).toBe(400);
    expect((await api.call('GET /components')).body.components).toHaveLength(1);
    const spec = `${name}@1.0.0`;
    expect((await api.call('GET /components/files/{spec}', { params: { spec } })).status).toBe(301);
    const file = await api.call('GET /components/files/{spec}/{path}', { params: { spec, path: 'index.html' } });
    expect(file.status).toBe(200);
    const etag = file.headers.get('etag')!;
    expect((await api.call('GET /components/files/{spec}/{path}', { params: { spec, path: 'index.html' }, headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await api.call('GET /components/files/{spec}/{path}', { params: { spec, path: 'missing.js' } })).status).toBe(404);
    expect((await api.call('GET /components/files/{spec}', { params: { spec: 'not a spec' } })).status).toBe(404);
    const version = { name, version: '1.0.0' };
    expect((await api.call('PATCH /components/{name}/{version}', { params: version, body: { deprecated: true, message: 'Use 2.0.0' } })).status).toBe(200);
    expect((await api.call('PATCH /components/{name}/{version}', { params: version, body: {} })).status).toBe(400);
    expect((await api.call('PATCH /components/{name}/{version}', { params: { name, version: '9.9.9' }, body: { deprecated: false } })).status).toBe(404);
    expect((await api.call('DELETE /components/{name}/{version}', { params: version })).status).toBe(204);
    expect((await api.call('GET /components/files/{spec}/{path}', { params: { spec, path: 'index.html' } })).status).toBe(410);
    expect((await api.call('DELETE /components/{name}/{version}', { params: version })).status).toBe(404);
    const other = await suite.server.newOrganization();
    expect((await api.call('POST /components/publish', { anonymous: true, rawBody: await publishForm(name, '2.0.0', other.apiKey) })).status).toBe(403);
  });

  it('answers a component object’s manifest, storage, actions and data as documented', async () => {
    const name = uniqueComponentName();
    const storage = { schema: { votes: { type: 'number', default: 0 } } };
    const published = await api.call('POST /components/publish', { anonymous: true, rawBody: await publishForm(name, '1.0.0', suite.server.apiKey, { storage }) });
    const componentUrl = published.body.component.url as string;
    const { boardId, guest } = await newBoard({ is_sandbox: true, mock_external_data: { scores: [1, 2] } });
    const objectId = await placeComponent(suite.server, boardId, componentUrl);
    const ids = { boardId, objectId };
    expect((await api.call('GET /boards/{boardId}/component-manifest', { params: { boardId }, query: { url: componentUrl } })).body.name).toBe(name);
    expect((await api.call('GET /boards/{boardId}/objects/{objectId}/storage', { params: ids })).body.values).toEqual({ votes: 0 });
    expect((await api.call('PUT /boards/{boardId}/objects/{objectId}/storage/{key}', { params: { ...ids, key: 'votes' }, body: { value: 3 } })).body.value).toBe(3);
    expect((await api.call('POST /boards/{boardId}/objects/{objectId}/actions', { params: ids, body: { action_id: 'vote', action_metadata: { choice: 'a' } } })).status).toBe(202);
    expect((await api.call('POST /boards/{boardId}/component-data', { params: { boardId }, body: { object_id: objectId, params: { week: 3 } } })).body.source).toBe('mock');

    expect((await api.call('GET /boards/{boardId}/component-manifest', { params: { boardId } })).status).toBe(400);
    expect((await api.call('GET /boards/{boardId}/component-manifest', { params: { boardId }, query: { url: `${suite.server.url}/components/files/nothing@1.0.0/index.html` } })).status).toBe(404);
    expect((await api.call('PUT /boards/{boardId}/objects/{objectId}/storage/{key}', { params: { ...ids, key: 'votes' }, body: { value: 1 }, ...asBearer(guest) })).status).toBe(403);
    expect((await api.call('PUT /boards/{boardId}/objects/{objectId}/storage/{key}', { params: { ...ids, key: 'votes' }, body: {} })).status).toBe(400);
    expect((await api.call('GET /boards/{boardId}/objects/{objectId}/storage', { params: { boardId, objectId: MISSING_ID } })).status).toBe(404);
    expect((await api.call('POST /boards/{boardId}/objects/{objectId}/actions', { params: ids, body: {} })).status).toBe(400);
    const plain = await newBoard();
    expect((await api.call('POST /boards/{boardId}/component-data', { params: { boardId: plain.boardId }, body: {} })).status).toBe(404);
  });
});

describe('the document covers what these tags answer', () => {
  it('refuses every operation that needs a credential without one', async () => {
    const statuses = await api.callEachWithoutCredential(TAGS);
    // Publishing reads the form for its `apiKey` first, so a request that is no form is refused as such.
    expect(statuses.get('POST /components/publish')).toBe(400);
    statuses.delete('POST /components/publish');
    expect(statuses.size).toBeGreaterThan(0);
    expect([...statuses].filter(([, status]) => status !== 401)).toEqual([]);
  });

  it('drove every operation of its tags to a documented answer and a documented refusal', () => {
    expect(api.neverAnswered(TAGS)).toEqual([]);
    expect(api.neverRefused(TAGS)).toEqual([]);
  });
});
