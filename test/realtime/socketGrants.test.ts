import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { SOCKET_GRANT_TTL_MS } from '../../src/boards/boardAccess.js';
import { createBoard, serverForSuite, type CreatedBoard } from '../helpers/fixtures.js';
import { connectBoardClient, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually, request, startTestServer, type TestServer } from '../helpers/testServer.js';

// Sockets trust a shared link's grant from memory for a few seconds (boards/boardAccess.ts).
// These tests pin down what that may and may not cost: a change made on this instance reaches
// the very next socket; one made by another instance on the same database shows within the TTL.

const clock = new ManualClock(new Date('2031-05-01T08:00:00.000Z'));
const ADMIN_TOKEN = `admin-${randomBytes(16).toString('hex')}`;
const { server, clients } = serverForSuite({ clock, env: { ADMIN_TOKEN } });
const FORBIDDEN = { code: 4403, reason: 'forbidden' };
const INVALID_TOKEN = { code: 1008, reason: 'invalid-token' };

function connect(board: CreatedBoard, role: 'host' | 'guest', params: Record<string, string> = {}, on: TestServer = server): BoardClient {
  const client = connectBoardClient({ url: on.socketUrl(board.access_links[role], params), name: board.board_uuid });
  clients.push(client);
  return client;
}

/** Whether a socket got in (synced) or was closed, and how. */
async function outcome(client: BoardClient): Promise<'synced' | { code: number; reason: string }> {
  await eventually(() => client.provider.isSynced || client.closes.length > 0, 10_000);
  return client.closes[0] ?? 'synced';
}

describe('changes made on this instance', () => {
  it('refuses the next anonymous guest at once when the board stops allowing them', async () => {
    const board = await createBoard(server, 'Grants');
    expect(await outcome(connect(board, 'guest'))).toBe('synced');
    const changed = await server.api('PATCH', `/boards/${board.board_uuid}`, { config: { allow_anonymous: false } });
    expect(changed.status).toBe(200);
    expect(await outcome(connect(board, 'guest'))).toEqual(FORBIDDEN);
    expect(await outcome(connect(board, 'host'))).toBe('synced');
  });

  it('refuses the links of a deleted board at once', async () => {
    const board = await createBoard(server, 'Grants');
    expect(await outcome(connect(board, 'guest'))).toBe('synced');
    expect((await server.api('DELETE', `/boards/${board.board_uuid}`)).status).toBe(204);
    expect(await outcome(connect(board, 'guest'))).toEqual(INVALID_TOKEN);
  });

  it('refuses the links of an expired board the moment its time is up, cached or not', async () => {
    const board = await createBoard(server, 'Grants', { expires_in_hours: 1 });
    expect(await outcome(connect(board, 'guest'))).toBe('synced');
    clock.advance(3_600_000);
    expect(await outcome(connect(board, 'guest'))).toEqual(INVALID_TOKEN);
  });

  it('applies a plan upgrade to the next join: the 26th guest of a starter board gets in once the plan is professional', async () => {
    const org = await server.newOrganization('starter');
    const created = await server.api('POST', '/boards', { title: 'Full class', config: { max_participants: 50 } }, { 'x-api-key': org.apiKey });
    const board = created.body as CreatedBoard;
    for (let index = 0; index < 25; index += 1) expect(await outcome(connect(board, 'guest', { user_id: `student-${index}` }))).toBe('synced');
    expect(await outcome(connect(board, 'guest', { user_id: 'student-25' }))).toEqual({ code: 4402, reason: 'quota-exceeded' });

    const upgraded = await request(server.url, 'PATCH', `/api/v1/admin/organizations/${org.organizationId}`, { plan: 'professional' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(upgraded.status).toBe(200);
    expect(await outcome(connect(board, 'guest', { user_id: 'student-26' }))).toBe('synced');
  });
});

describe('changes made by another instance on the same database', () => {
  let other: TestServer;
  beforeAll(async () => {
    other = await startTestServer({ clock, database: server.database });
  });
  afterAll(async () => {
    await other?.stop();
  });

  it('reach this instance within the grant TTL', async () => {
    const board = await createBoard(server, 'Grants');
    expect(await outcome(connect(board, 'guest'))).toBe('synced');
    const changed = await request(other.url, 'PATCH', `/api/v1/boards/${board.board_uuid}`, { config: { allow_anonymous: false } }, { 'x-api-key': server.apiKey });
    expect(changed.status).toBe(200);
    // The other instance applies it at once; this one still trusts what it read.
    expect(await outcome(connect(board, 'guest', {}, other))).toEqual(FORBIDDEN);
    expect(await outcome(connect(board, 'guest'))).toBe('synced');
    clock.advance(SOCKET_GRANT_TTL_MS);
    expect(await outcome(connect(board, 'guest'))).toEqual(FORBIDDEN);
  });
});
