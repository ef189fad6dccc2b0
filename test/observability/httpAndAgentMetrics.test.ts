import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createBoard, serverForSuite } from '../helpers/fixtures.js';
import { request } from '../helpers/testServer.js';
import { scrape, type Scrape } from './scrape.js';

/** HTTP latency labelled by route pattern (never by URL), and agent runs counted as they are logged. */
const { server } = serverForSuite({ env: { AGENT_TICK_MS: '3600000' } });

const HTTP = 'whiteboard_http_request_duration_seconds_count';
const metrics = () => scrape(server.url);
const requests = (s: Scrape, method: string, route: string, status: string) => s.value(HTTP, { method, route, status });

describe('HTTP latency', () => {
  it('is labelled with the route pattern, method and status, not the URL', async () => {
    const board = await createBoard(server, 'Routes');
    const before = await metrics();
    expect((await server.api('GET', `/boards/${board.board_uuid}`)).status).toBe(200);
    expect((await server.api('GET', '/boards/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await server.api('PATCH', `/boards/${board.board_uuid}`, { title: 'Renamed' })).status).toBe(200);
    const after = await metrics();
    expect(requests(after, 'GET', '/api/v1/boards/:boardId', '200') - requests(before, 'GET', '/api/v1/boards/:boardId', '200')).toBe(1);
    // The 404 is answered by the error handler, after the route's router was left.
    expect(requests(after, 'GET', '/api/v1/boards/:boardId', '404') - requests(before, 'GET', '/api/v1/boards/:boardId', '404')).toBe(1);
    expect(requests(after, 'PATCH', '/api/v1/boards/:boardId', '200') - requests(before, 'PATCH', '/api/v1/boards/:boardId', '200')).toBe(1);
    for (const route of after.labelValues(HTTP, 'route')) expect(route).not.toContain(board.board_uuid);
  });

  it('gives paths no route matches one label, however many there are', async () => {
    const before = await metrics();
    const routesBefore = before.labelValues(HTTP, 'route');
    const paths = Array.from({ length: 50 }, (_, i) => `/${randomBytes(6).toString('hex')}/${i}${i % 2 ? '/api/v1/boards' : ''}`);
    for (const path of paths) expect((await request(server.url, 'GET', path)).status).toBe(404);
    for (const path of paths.slice(0, 10)) expect((await request(server.url, 'GET', `/api/v1${path}`)).status).toBe(404);
    const after = await metrics();
    const added = [...after.labelValues(HTTP, 'route')].filter((route) => !routesBefore.has(route));
    expect(added.filter((route) => route !== 'unmatched')).toEqual([]);
    expect(requests(after, 'GET', 'unmatched', '404') - requests(before, 'GET', 'unmatched', '404')).toBe(60);
    const series = after.samples.filter((sample) => sample.name === HTTP).length;
    expect(series - before.samples.filter((sample) => sample.name === HTTP).length).toBeLessThanOrEqual(1);
  });

  it('leaves the probes and /metrics out', async () => {
    const before = await metrics();
    await request(server.url, 'GET', '/health');
    await metrics();
    const after = await metrics();
    expect(after.samples.filter((sample) => sample.name === HTTP).reduce((sum, sample) => sum + sample.value, 0)).toBe(
      before.samples.filter((sample) => sample.name === HTTP).reduce((sum, sample) => sum + sample.value, 0),
    );
  });
});

describe('agents', () => {
  it('count actions by outcome and the tokens their runs spent, as the action log records them', async () => {
    const board = await createBoard(server, 'Agents');
    const trigger = (action: string, params: Record<string, unknown>) => ({ event: 'object:created', condition: "object.type == 'go'", action, params });
    const created = await server.api('POST', `/boards/${board.board_uuid}/agents`, {
      name: 'Helper',
      persona: 'custom',
      maxActionsPerMinute: 60,
      // One run that acts (with tokens, on the rule engine) and one refused (no such frame).
      instructions: { triggers: [trigger('evaluate_answer', { expected: '42' }), trigger('move_to_frame', { frameId: '00000000-0000-4000-8000-000000000000' })] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const before = await metrics();
    expect((await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'go', data: { text: '42' }, position: { x: 0, y: 0 } })).status).toBe(201);
    await server.app.agents.settled();
    const log = (await server.api('GET', `/boards/${board.board_uuid}/agents/${created.body.id}/actions?limit=50`)).body as Array<Record<string, any>>;
    const after = await metrics();
    const actions = (outcome: string) => after.value('whiteboard_agent_actions_total', { outcome }) - before.value('whiteboard_agent_actions_total', { outcome });
    expect(log.map((entry) => [entry.shouldAct, entry.success]).sort()).toEqual([[false, false], [true, true]]);
    expect({ succeeded: actions('succeeded'), failed: actions('failed'), refused: actions('refused') }).toEqual({ succeeded: 1, failed: 0, refused: 1 });
    const tokens = log.reduce((sum, entry) => sum + (entry.tokensUsed as number), 0);
    expect(tokens).toBeGreaterThan(0);
    expect(after.value('whiteboard_agent_tokens_total') - before.value('whiteboard_agent_tokens_total')).toBe(tokens);
  });
});
