import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { ISO_TIMESTAMP } from '../helpers/assertions.js';
import { serverForSuite, organizationCaller } from '../helpers/fixtures.js';
import { type ApiResponse } from '../helpers/testServer.js';

const HOUR_MS = 3_600_000;
const clock = new ManualClock(new Date('2026-03-10T12:00:00.000Z'));
const { server } = serverForSuite({ clock });

/** A starter organization (10 active boards) and calls made as it. */
async function starter() {
  const { apiKey, organizationId, api } = await organizationCaller(server, 'starter');
  const create = (body: Record<string, unknown> = {}) => api('POST', '/boards', { title: 'Lesson', ...body });
  const createOk = async (body: Record<string, unknown> = {}): Promise<string> => {
    const created = await create(body);
    expect(created.status).toBe(201);
    return created.body.board_uuid as string;
  };
  const listed = async (query = '') => {
    const list = await api('GET', `/boards${query}`);
    expect(list.status).toBe(200);
    return list.body as Array<{ board_uuid: string; status: string }>;
  };
  const boardsEntry = async () => {
    const check = await api('GET', '/quota/boards');
    expect(check.status).toBe(200);
    return check.body as { allowed: boolean; current: number; limit: number; remaining: number };
  };
  return { apiKey, organizationId, api, create, createOk, listed, boardsEntry };
}

/** A 402 adds quotaType, current, limit and upgradeUrl to the error body. */
function expectBoardsQuotaExceeded(response: ApiResponse, path: string, current = 10, limit = 10): void {
  expect(response.status).toBe(402);
  expect(Object.keys(response.body).sort()).toEqual(['current', 'error', 'limit', 'message', 'path', 'quotaType', 'statusCode', 'timestamp', 'upgradeUrl']);
  expect(response.body).toMatchObject({
    statusCode: 402,
    error: 'Payment Required',
    message: expect.stringMatching(/\S/),
    quotaType: 'boards',
    current,
    limit,
    timestamp: expect.stringMatching(ISO_TIMESTAMP),
    path,
  });
  expect(new URL(response.body.upgradeUrl).protocol).toMatch(/^https?:$/);
}

describe('the boards quota (starter: 10 active boards)', () => {
  it('creates 10 boards and refuses the 11th with 402, creating nothing', async () => {
    const org = await starter();
    for (let index = 0; index < 10; index += 1) await org.createOk({ title: `Board ${index}` });
    expect(await org.boardsEntry()).toMatchObject({ allowed: false, current: 10, limit: 10, remaining: 0 });

    expectBoardsQuotaExceeded(await org.create({ title: 'Eleventh' }), '/api/v1/boards');
    expectBoardsQuotaExceeded(await org.api('POST', '/boards/create', { title: 'Eleventh by the old path' }), '/api/v1/boards/create');
    const list = await org.listed();
    expect(list).toHaveLength(10);
    expect(server.events.filter((event) => event.name === 'board.created' && event.payload.organization_id === org.organizationId)).toHaveLength(10);
  });

  it('frees a slot when a board is archived, and refuses to restore it once the slot is taken', async () => {
    const org = await starter();
    const boards: string[] = [];
    for (let index = 0; index < 10; index += 1) boards.push(await org.createOk());
    const archived = boards[0]!;

    const archive = await org.api('PATCH', `/boards/${archived}/archive`);
    expect(archive.status).toBe(200);
    expect(archive.body.status).toBe('archived');
    expect(await org.boardsEntry()).toMatchObject({ allowed: true, current: 9, remaining: 1 });
    await org.createOk({ title: 'In the freed slot' });

    expectBoardsQuotaExceeded(await org.api('PATCH', `/boards/${archived}/archive`), `/api/v1/boards/${archived}/archive`);
    expect((await org.listed('?status=archived')).map((board) => board.board_uuid)).toEqual([archived]);
    expect(await org.listed()).toHaveLength(10);

    // Once another board is archived, the first can come back.
    expect((await org.api('PATCH', `/boards/${boards[1]}/archive`)).status).toBe(200);
    const restored = await org.api('PATCH', `/boards/${archived}/archive`);
    expect(restored.status).toBe(200);
    expect(restored.body.status).toBe('active');
    expect(await org.boardsEntry()).toMatchObject({ current: 10 });
  });

  it('does not count an expired board', async () => {
    const org = await starter();
    for (let index = 0; index < 9; index += 1) await org.createOk();
    await org.createOk({ title: 'Short-lived', expires_in_hours: 1 });
    expect((await org.create()).status).toBe(402);

    clock.advance(HOUR_MS + 1_000);
    expect(await org.boardsEntry()).toMatchObject({ allowed: true, current: 9 });
    await org.createOk({ title: 'After the expiry' });
    expect((await org.create()).status).toBe(402);
  });

  it('refuses to duplicate a board at the limit', async () => {
    const org = await starter();
    const boards: string[] = [];
    for (let index = 0; index < 10; index += 1) boards.push(await org.createOk());
    expectBoardsQuotaExceeded(await org.api('POST', `/boards/${boards[0]}/duplicate`), `/api/v1/boards/${boards[0]}/duplicate`);
    expect(await org.listed()).toHaveLength(10);

    expect((await org.api('PATCH', `/boards/${boards[0]}/archive`)).status).toBe(200);
    const copy = await org.api('POST', `/boards/${boards[1]}/duplicate`);
    expect(copy.status).toBe(201);
    expect(await org.listed()).toHaveLength(10);
  });

  it('lets exactly 10 of 50 concurrent creations through on a fresh organization', async () => {
    const org = await starter();
    const answers = await Promise.all(Array.from({ length: 50 }, (_, index) => org.create({ title: `Race ${index}` })));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(10);
    expect(statuses.filter((status) => status === 402)).toHaveLength(40);
    for (const refused of answers.filter((answer) => answer.status === 402)) expectBoardsQuotaExceeded(refused, '/api/v1/boards');
    expect(await org.listed()).toHaveLength(10);
    expect(await org.boardsEntry()).toMatchObject({ current: 10 });
  });

  it('lets exactly 1 of 50 concurrent creations through at the limit minus one (R7)', async () => {
    const org = await starter();
    for (let index = 0; index < 9; index += 1) await org.createOk();
    const answers = await Promise.all(Array.from({ length: 50 }, (_, index) => org.create({ title: `Race ${index}` })));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 402)).toHaveLength(49);
    expect(await org.listed()).toHaveLength(10);
  });
});
