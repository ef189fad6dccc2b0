import { afterAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { TYPES_REFRESH_MS } from '../../src/objectTypes/typeCache.js';
import { eventually, request, startTestServer, type TestServer } from '../helpers/testServer.js';

/**
 * Several instances share one database: a type registered through one applies on the
 * others once their cached set of the organization's types is older than TYPES_REFRESH_MS.
 */

const servers: TestServer[] = [];

afterAll(async () => {
  // The second instance borrows the first one's database, so it stops first.
  for (const server of servers.reverse()) await server.close();
});

it('a type registered on one instance is enforced on another within the refresh interval', async () => {
  const clock = new ManualClock(new Date('2031-05-04T10:00:00.000Z'));
  const first = await startTestServer({ clock });
  servers.push(first);
  const second = await startTestServer({ clock, database: first.database });
  servers.push(second);
  const call = (server: TestServer, method: string, path: string, body?: unknown) =>
    request(server.url, method, `/api/v1${path}`, body, { 'x-api-key': first.apiKey });

  const board = await call(second, 'POST', '/boards', { title: 'Shared' });
  const objects = `/boards/${board.body.board_uuid}/objects`;
  const invalid = { type: 'quiz', data: { points: 'many' }, position: { x: 0, y: 0 } };
  // The second instance has read the organization's (empty) set of types.
  expect((await call(second, 'POST', objects, invalid)).status).toBe(201);

  const schema = { type: 'object', required: ['question'], properties: { question: { type: 'string', maxLength: 100 }, points: { type: 'integer' } } };
  expect((await call(first, 'POST', '/object-types', { typeName: 'quiz', displayName: 'Quiz', category: 'test', schema })).status).toBe(201);
  expect((await call(first, 'POST', objects, invalid)).status).toBe(422);

  clock.advance(TYPES_REFRESH_MS);
  await eventually(async () => (await call(second, 'POST', objects, invalid)).status === 422);
  expect((await call(second, 'POST', objects, { ...invalid, data: { question: 'Fine?', points: 1 } })).status).toBe(201);
});
