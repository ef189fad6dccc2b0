import { afterEach, describe, expect, it } from 'vitest';
import { request, startTestServer, type TestServer } from '../helpers/testServer.js';

/**
 * `GET /ready` names what the instance needs to serve: its database, and with several
 * instances Redis, without which it can load no document and take no seat.
 */
describe('readiness with several instances', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it.skipIf(!process.env.REDIS_URL)('is ready when the database and Redis answer', async () => {
    server = await startTestServer({ env: { REDIS_URL: process.env.REDIS_URL! } });
    const ready = await request(server.url, 'GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', database: 'ok', redis: 'ok' });
  });

  it('is not ready while Redis cannot be reached, and says so', async () => {
    server = await startTestServer({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });
    const ready = await request(server.url, 'GET', '/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'unavailable', database: 'ok', redis: 'unreachable' });
    // Liveness is the process's own: it still answers.
    expect((await request(server.url, 'GET', '/health')).status).toBe(200);
  });

  it('alone, checks its database only', async () => {
    server = await startTestServer();
    expect((await request(server.url, 'GET', '/ready')).body).toEqual({ status: 'ok', database: 'ok' });
  });
});
