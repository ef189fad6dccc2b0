import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { request, startTestServer, type TestServer } from '../helpers/testServer.js';
import { parseExposition, scrape } from './scrape.js';

/** Who may read `GET /metrics`, and whose metrics it shows. */
const TOKEN = 'metrics-token-for-the-tests-0123456789';
const { server } = serverForSuite({ env: { METRICS_TOKEN: TOKEN } });

describe('METRICS_TOKEN', () => {
  it('is read from the environment, unset by default', () => {
    expect(loadConfig({ METRICS_TOKEN: 'abc' }).metricsToken).toBe('abc');
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: '' }).metricsToken).toBeUndefined();
  });

  it('when set, a scrape without it or with another token is refused with 401', async () => {
    const attempts: Array<Record<string, string>> = [{}, { authorization: 'Bearer wrong-token' }, { authorization: `Basic ${TOKEN}` }, { authorization: `Bearer ${TOKEN}x` }];
    for (const headers of attempts) {
      const refused = await request(server.url, 'GET', '/metrics', undefined, headers);
      expect(refused.status, JSON.stringify(headers)).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(refused.body).toMatchObject({ statusCode: 401, error: 'Unauthorized', path: '/metrics' });
      expect(JSON.stringify(refused.body)).not.toContain('whiteboard_');
    }
  });

  it('when set, a scrape with it is answered, GET and HEAD', async () => {
    const scraped = await scrape(server.url, { authorization: `Bearer ${TOKEN}` });
    expect(scraped.type.get('whiteboard_realtime_sockets_open')).toBe('gauge');
    const head = await fetch(`${server.url}/metrics`, { method: 'HEAD', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    // The probes are not behind it.
    expect((await request(server.url, 'GET', '/health')).status).toBe(200);
  });
});

describe('several apps in one process', () => {
  let other: TestServer;
  beforeAll(async () => {
    other = await startTestServer();
  });
  afterAll(async () => {
    await other?.close();
  });

  it('each has its own registry: one app’s requests do not show in the other’s metrics', async () => {
    const count = async (on: TestServer, headers: Record<string, string> = {}) =>
      (await scrape(on.url, headers)).value('whiteboard_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/boards', status: '200' });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const [mineBefore, otherBefore] = [await count(server, auth), await count(other)];
    for (let i = 0; i < 3; i += 1) expect((await server.api('GET', '/boards')).status).toBe(200);
    expect(await count(server, auth)).toBe(mineBefore + 3);
    expect(await count(other)).toBe(otherBefore);
    // Without METRICS_TOKEN the other app serves its metrics openly.
    const open = await request<string>(other.url, 'GET', '/metrics');
    expect(open.status).toBe(200);
    expect(parseExposition(open.body).type.get('whiteboard_http_request_duration_seconds')).toBe('histogram');
  });
});
