import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createBoard, expectOk, serverForSuite, tokenOf, type CreatedBoard } from '../helpers/fixtures.js';
import { eventually } from '../helpers/testServer.js';

/** An external assistant works on a board through MCP (the SDK's own client), as one agent. */
const suite = serverForSuite();
const { server } = suite;
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function agentOf(board: CreatedBoard, fields: Record<string, unknown> = {}) {
  const created = await server.api('POST', `/boards/${board.board_uuid}/agents`, { name: 'Assistant', persona: 'custom', instructions: {}, ...fields });
  expect(created.status).toBe(201);
  return created.body as { id: string };
}

async function mcpClient(board: CreatedBoard, agentId: string, headers: Record<string, string> = { 'x-api-key': server.apiKey }): Promise<Client> {
  const url = new URL(`${server.url}/api/v1/boards/${board.board_uuid}/agents/${agentId}/mcp`);
  const client = new Client({ name: 'test-assistant', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  clients.push(client);
  return client;
}

describe('MCP', () => {
  it('lists the action registry as tools with read-only and destructive hints', async () => {
    const board = await createBoard(server, 'MCP');
    const client = await mcpClient(board, (await agentOf(board)).id);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ['list_objects', 'create_object', 'update_object', 'delete_object', 'move_objects', 'send_notification', 'generate_hint', 'summarize']) {
      expect(byName.has(name), name).toBe(true);
    }
    expect(byName.get('list_objects')!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.get('delete_object')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get('create_object')!.inputSchema).toMatchObject({ type: 'object', properties: { data: { type: 'object' } } });
    expect(JSON.stringify(byName.get('create_object')!.inputSchema)).not.toContain('freeJson');
  });

  it('creates an object a socket client receives, logged in the agent’s action log', async () => {
    const board = await createBoard(server, 'MCP');
    const agent = await agentOf(board);
    const socket = suite.connect(tokenOf(board.access_links.guest), board.board_uuid);
    await socket.synced();
    const client = await mcpClient(board, agent.id);
    const result = await client.callTool({ name: 'create_object', arguments: { type: 'sticky_note', data: { text: 'from the assistant' }, position: { x: 40, y: 40 } } });
    expect(result.isError).toBe(false);
    const objectId = (result.structuredContent as { objectId: string }).objectId;
    await eventually(() => expect(socket.doc.getMap('objects').has(objectId)).toBe(true));
    expect((socket.doc.getMap('objects').get(objectId) as any).get('created_by')).toBe(`agent:${agent.id}`);

    const listed = await client.callTool({ name: 'list_objects', arguments: {} });
    expect((listed.structuredContent as any).objects.map((object: any) => object.id)).toContain(objectId);
    await server.app.agents.settled();
    const log = await expectOk(server, 'GET', `/boards/${board.board_uuid}/agents/${agent.id}/actions`);
    expect(log[0]).toMatchObject({ triggerEventType: 'mcp:tool', actionType: 'create_object', success: true });
  });

  it('answers a refused call as a tool error, and the board is unchanged', async () => {
    const board = await createBoard(server, 'MCP');
    const client = await mcpClient(board, (await agentOf(board)).id);
    const result = await client.callTool({ name: 'delete_object', arguments: { objectId: 'no-such-object' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/not found/i);
    const bad = await client.callTool({ name: 'create_object', arguments: { position: { x: 'left' } } });
    expect(bad.isError).toBe(true);
  });

  it('accepts the host token, refuses a guest (403) and another organization', async () => {
    const board = await createBoard(server, 'MCP');
    const agent = await agentOf(board);
    const host = await mcpClient(board, agent.id, { authorization: `Bearer ${tokenOf(board.access_links.host)}` });
    expect((await host.listTools()).tools.length).toBeGreaterThan(10);
    await expect(mcpClient(board, agent.id, { authorization: `Bearer ${tokenOf(board.access_links.guest)}` })).rejects.toThrow(/403/);
    const other = await server.newOrganization();
    await expect(mcpClient(board, agent.id, { 'x-api-key': other.apiKey })).rejects.toThrow(/403/);
    const plain = await fetch(`${server.url}/api/v1/boards/${board.board_uuid}/agents/${agent.id}/mcp`, { headers: { 'x-api-key': server.apiKey } });
    expect(plain.status).toBe(405);
  });
});

describe('ai/generate', () => {
  it('creates notes from a prompt through generate_content', async () => {
    const board = await createBoard(server, 'Generate');
    const generated = await server.api('POST', `/boards/${board.board_uuid}/ai/generate`, { prompt: 'apples, pears, plums', style: 'list', position: { x: 100, y: 100 } });
    expect(generated.status).toBe(201);
    expect(generated.body).toMatchObject({ engine: 'rules' });
    expect(generated.body.objectIds).toHaveLength(3);
    expect(generated.body.tokensUsed).toBeGreaterThan(0);
    const objects = (await expectOk(server, 'GET', `/boards/${board.board_uuid}`)).state.objects;
    expect(objects.map((object: any) => object.data.text).sort()).toEqual(['apples', 'pears', 'plums']);
  });

  it('refuses a missing prompt (400) and a guest (403)', async () => {
    const board = await createBoard(server, 'Generate');
    expect((await server.api('POST', `/boards/${board.board_uuid}/ai/generate`, { style: 'list' })).status).toBe(400);
    const guest = { authorization: `Bearer ${tokenOf(board.access_links.guest)}`, 'x-api-key': '' };
    expect((await server.api('POST', `/boards/${board.board_uuid}/ai/generate`, { prompt: 'ideas' }, guest)).status).toBe(403);
  });
});
