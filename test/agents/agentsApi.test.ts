import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createBoard, expectOk, postFrame, serverForSuite, tokenOf } from '../helpers/fixtures.js';

/** The Agents API (docs/agents.md): every endpoint, its defaults and its errors, over real HTTP. */
const { server } = serverForSuite();

const tutor = {
  name: 'Tutor',
  persona: 'tutor',
  instructions: {
    description: 'Helps with fractions',
    goals: ['Understand fractions'],
    rules: ['Never give the answer'],
    triggers: [{ event: 'object:created', condition: "object.type == 'answer'", action: 'evaluate_answer', params: { expected: '3/4' } }],
    schedule: [{ at: 'every:5min', action: 'summarize' }],
  },
};

async function boardWithAgent(body: Record<string, unknown> = tutor) {
  const board = await createBoard(server, 'Agents');
  const created = await server.api('POST', `/boards/${board.board_uuid}/agents`, body);
  expect(created.status).toBe(201);
  return { board, agent: created.body, path: `/boards/${board.board_uuid}/agents/${created.body.id}` };
}

describe('creating an agent', () => {
  it('answers the full record with every default filled in', async () => {
    const { board, agent } = await boardWithAgent();
    expect(agent).toMatchObject({
      boardUuid: board.board_uuid,
      name: 'Tutor',
      persona: 'tutor',
      status: 'active',
      priority: 5,
      visibility: 'visible',
      isThinking: false,
      maxActionsPerMinute: 10,
      budgetTokens: null,
      spentTokens: 0,
      stats: { actionsCount: 0, tokensSpent: 0, lastActionAt: null },
      scope: { frames: [], objectTypes: [], participants: [] },
      createdBy: 'api-key',
    });
    expect(agent.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(agent.instructions).toEqual(tutor.instructions);
    expect(new Date(agent.createdAt).toISOString()).toBe(agent.createdAt);
  });

  it.each([
    ['name', { ...tutor, name: undefined }, 'name'],
    ['persona', { ...tutor, persona: 'wizard' }, 'persona'],
    ['instructions', { ...tutor, instructions: undefined }, 'instructions'],
    ['a trigger event', { ...tutor, instructions: { triggers: [{ event: 'object:exploded', action: 'summarize' }] } }, 'instructions.triggers.0.event'],
    ['an action', { ...tutor, instructions: { triggers: [{ event: 'object:created', action: 'launch_rocket' }] } }, 'instructions.triggers.0.action'],
    ['a schedule pattern', { ...tutor, instructions: { schedule: [{ at: 'every:5days', action: 'summarize' }] } }, 'instructions.schedule.0.at'],
    ['a condition', { ...tutor, instructions: { triggers: [{ event: 'object:created', condition: 'process.exit()', action: 'summarize' }] } }, 'instructions.triggers.0.condition'],
    ['action params', { ...tutor, instructions: { triggers: [{ event: 'object:created', action: 'send_notification', params: {} }] } }, 'instructions.triggers.0.params.message'],
    ['a name over 100 characters', { ...tutor, name: 'x'.repeat(101) }, 'name'],
    ['a rate over 60', { ...tutor, maxActionsPerMinute: 61 }, 'maxActionsPerMinute'],
    ['a rate under 1', { ...tutor, maxActionsPerMinute: 0 }, 'maxActionsPerMinute'],
    ['a priority over 10', { ...tutor, priority: 11 }, 'priority'],
    ['a visibility', { ...tutor, visibility: 'invisible' }, 'visibility'],
    ['a scope frame of another board', { ...tutor, scope: { frames: [randomUUID()] } }, 'scope.frames.0'],
  ])('refuses a bad %s (400 naming the field)', async (_what, body, field) => {
    const board = await createBoard(server, 'Agents');
    const refused = await server.api('POST', `/boards/${board.board_uuid}/agents`, body);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('Bad Request');
    expect(refused.body.details.map((detail: { field: string }) => detail.field)).toContain(field);
    expect((await server.api('GET', `/boards/${board.board_uuid}/agents`)).body).toEqual([]);
  });

  it('accepts every schedule form and a frame of the board in its scope', async () => {
    const board = await createBoard(server, 'Agents');
    const frame = await postFrame(server, board.board_uuid);
    const schedule = ['every:30sec', 'every:5min', 'every:1hour', 'at:09:00', 'cron:0 9 * * 1-5', '00:10:00'].map((at) => ({ at, action: 'summarize' }));
    const created = await server.api('POST', `/boards/${board.board_uuid}/agents`, { ...tutor, instructions: { schedule }, scope: { frames: [frame.id], objectTypes: ['answer'] } });
    expect(created.status).toBe(201);
    expect(created.body.scope).toEqual({ frames: [frame.id], objectTypes: ['answer'], participants: [] });
  });
});

describe('reading agents', () => {
  it('lists agents without instructions or scope, and gets the full record', async () => {
    const { board, agent, path } = await boardWithAgent();
    const list = await expectOk(server, 'GET', `/boards/${board.board_uuid}/agents`);
    expect(list).toHaveLength(1);
    expect(list[0].id).toBe(agent.id);
    expect(list[0]).not.toHaveProperty('instructions');
    expect(list[0]).not.toHaveProperty('scope');
    expect(await expectOk(server, 'GET', path)).toEqual(agent);
  });

  it('answers 404 for an unknown agent or board, 401 without a credential', async () => {
    const { board } = await boardWithAgent();
    expect((await server.api('GET', `/boards/${board.board_uuid}/agents/${randomUUID()}`)).status).toBe(404);
    expect((await server.api('GET', `/boards/${randomUUID()}/agents`)).status).toBe(404);
    expect((await server.api('GET', `/boards/${board.board_uuid}/agents`, undefined, { 'x-api-key': '' })).status).toBe(401);
  });
});

describe('changing an agent', () => {
  it('changes only the fields given; budgetTokens null means unlimited', async () => {
    const { agent, path } = await boardWithAgent({ ...tutor, budgetTokens: 500 });
    expect(agent.budgetTokens).toBe(500);
    const renamed = await expectOk(server, 'PATCH', path, { name: 'Fraction tutor', priority: 8 });
    expect(renamed).toMatchObject({ name: 'Fraction tutor', priority: 8, budgetTokens: 500, persona: 'tutor', maxActionsPerMinute: 10 });
    expect(renamed.instructions).toEqual(tutor.instructions);
    expect((await expectOk(server, 'PATCH', path, { budgetTokens: null })).budgetTokens).toBeNull();
  });

  it('refuses bad instructions (400) and leaves the agent as it was', async () => {
    const { agent, path } = await boardWithAgent();
    const refused = await server.api('PATCH', path, { instructions: { triggers: [{ event: 'object:created', condition: 'object.type ==', action: 'summarize' }] } });
    expect(refused.status).toBe(400);
    expect(refused.body.details[0].field).toBe('instructions.triggers.0.condition');
    expect((await server.api('PATCH', path, {})).status).toBe(400);
    expect(await expectOk(server, 'GET', path)).toEqual(agent);
  });

  it('pauses and resumes by the status rules', async () => {
    const { path } = await boardWithAgent();
    expect((await server.api('POST', `${path}/resume`)).status).toBe(400);
    expect((await expectOk(server, 'POST', `${path}/pause`)).status).toBe('paused');
    const again = await server.api('POST', `${path}/pause`);
    expect(again.status).toBe(400);
    expect(again.body.message).toMatch(/already paused/);
    expect((await expectOk(server, 'POST', `${path}/resume`)).status).toBe('active');
  });

  it('resets working memory, keeping instructions and status', async () => {
    const { agent, path } = await boardWithAgent();
    await expectOk(server, 'POST', `${path}/pause`);
    const reset = await expectOk(server, 'POST', `${path}/reset`);
    expect(reset).toMatchObject({ status: 'paused', instructions: agent.instructions });
  });

  it('deletes an agent with its history (204, then 404)', async () => {
    const { path } = await boardWithAgent();
    expect((await server.api('DELETE', path)).status).toBe(204);
    expect((await server.api('GET', path)).status).toBe(404);
    expect((await server.api('GET', `${path}/actions`)).status).toBe(404);
    expect((await server.api('DELETE', path)).status).toBe(404);
  });
});

describe('action log and statistics of a new agent', () => {
  it('answers an empty log and zero statistics', async () => {
    const { path } = await boardWithAgent({ ...tutor, budgetTokens: 1000 });
    expect(await expectOk(server, 'GET', `${path}/actions`)).toEqual([]);
    expect(await expectOk(server, 'GET', `${path}/stats`)).toEqual({
      actionsCount: 0,
      tokensSpent: 0,
      lastActionAt: null,
      successRate: 0,
      averageLatencyMs: 0,
      actionsByType: {},
      budgetRemaining: 1000,
      budgetPercentUsed: 0,
    });
  });

  it('refuses a bad page (400)', async () => {
    const { path } = await boardWithAgent();
    expect((await server.api('GET', `${path}/actions?limit=0`)).status).toBe(400);
    expect((await server.api('GET', `${path}/actions?offset=-1`)).status).toBe(400);
    expect((await server.api('GET', `${path}/actions?limit=abc`)).status).toBe(400);
  });
});

describe('who may manage agents', () => {
  it("accepts the host's board token and refuses a guest's (403)", async () => {
    const board = await createBoard(server, 'Agents');
    const host = { authorization: `Bearer ${tokenOf(board.access_links.host)}`, 'x-api-key': '' };
    const guest = { authorization: `Bearer ${tokenOf(board.access_links.guest)}`, 'x-api-key': '' };
    const created = await server.api('POST', `/boards/${board.board_uuid}/agents`, tutor, host);
    expect(created.status).toBe(201);
    expect((await server.api('GET', `/boards/${board.board_uuid}/agents`, undefined, host)).status).toBe(200);
    expect((await server.api('GET', `/boards/${board.board_uuid}/agents`, undefined, guest)).status).toBe(403);
    expect((await server.api('POST', `/boards/${board.board_uuid}/agents`, tutor, guest)).status).toBe(403);
    expect((await server.api('DELETE', `/boards/${board.board_uuid}/agents/${created.body.id}`, undefined, guest)).status).toBe(403);
  });

  it("never shows one organization another's agents (403)", async () => {
    const { board, path } = await boardWithAgent();
    const other = await server.newOrganization();
    const headers = { 'x-api-key': other.apiKey };
    expect((await server.api('GET', `/boards/${board.board_uuid}/agents`, undefined, headers)).status).toBe(403);
    expect((await server.api('GET', path, undefined, headers)).status).toBe(403);
    expect((await server.api('PATCH', path, { name: 'Mine' }, headers)).status).toBe(403);
    expect((await server.api('DELETE', path, undefined, headers)).status).toBe(403);
    expect((await expectOk(server, 'GET', path)).name).toBe('Tutor');
  });

  it("does not find an agent through another board's path (404)", async () => {
    const { agent } = await boardWithAgent();
    const elsewhere = await createBoard(server, 'Agents');
    expect((await server.api('GET', `/boards/${elsewhere.board_uuid}/agents/${agent.id}`)).status).toBe(404);
  });
});

describe('presets', () => {
  it('lists a ready-to-use preset per persona, each creatable as it is', async () => {
    const presets = await server.api('GET', '/agent-presets');
    expect(presets.status).toBe(200);
    expect(presets.body.map((preset: { persona: string }) => preset.persona)).toEqual(['tutor', 'moderator', 'timer', 'facilitator', 'custom']);
    const board = await createBoard(server, 'Presets');
    for (const preset of presets.body) {
      const one = await expectOk(server, 'GET', `/agent-presets/${preset.persona}`);
      expect(one).toEqual(preset);
      const { name, persona, instructions, maxActionsPerMinute, priority } = preset;
      const created = await server.api('POST', `/boards/${board.board_uuid}/agents`, { name, persona, instructions, maxActionsPerMinute, priority });
      expect(created.status, `${persona}: ${JSON.stringify(created.body)}`).toBe(201);
    }
  });

  it('answers 404 for an unknown persona and 401 without a key', async () => {
    expect((await server.api('GET', '/agent-presets/wizard')).status).toBe(404);
    expect((await server.api('GET', '/agent-presets', undefined, { 'x-api-key': '' })).status).toBe(401);
  });
});
