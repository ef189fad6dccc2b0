import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/assertions.js';
import { request, startTestServer, type TestServer } from '../helpers/testServer.js';

/** JSON text of an object nested `depth` levels deep (`{"a":{"a":…}}`), built without recursion. */
function deepJsonText(depth: number, leaf = '1'): string {
  return '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
}

/** A value nested `depth` levels deep, built without recursion. */
function deepValue(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = 1; level < depth; level += 1) value = { a: value };
  return value;
}

describe('hostile REST input is refused at the edge and changes nothing', () => {
  let server: TestServer;
  let boardId: string;
  let guestToken: string;
  const guest = () => ({ authorization: `Bearer ${guestToken}` });
  const raw = (method: string, path: string, text: string, headers: Record<string, string> = {}) =>
    request(server.url, method, `/api/v1${path}`, text, { 'x-api-key': server.apiKey, 'content-type': 'application/json', ...headers });
  const objectCount = async () => {
    const res = await server.api('GET', `/boards/${boardId}`);
    expect(res.status).toBe(200);
    return (res.body.state.objects as unknown[]).length;
  };
  const boardCount = async () => ((await server.api('GET', '/boards')).body as unknown[]).length;

  beforeAll(async () => {
    server = await startTestServer();
    const created = await server.api('POST', '/boards', { title: 'Hardening' });
    boardId = created.body.board_uuid;
    guestToken = new URL(created.body.access_links.guest).searchParams.get('token')!;
  });
  afterAll(async () => {
    await server.close();
  });

  describe('free-form JSON values are bounded', () => {
    it('refuses object data nested 5,000 levels deep from a guest, stores nothing, and the board stays readable', async () => {
      const before = await objectCount();
      const body = `{"type":"sticky","position":{"x":1,"y":2},"data":${deepJsonText(5_000)}}`;
      const res = await raw('POST', `/boards/${boardId}/objects`, body, guest());
      expectErrorBody(res, { statusCode: 400, error: 'Bad Request', field: 'data' });
      expect(await objectCount()).toBe(before);
      const duplicate = await server.api('POST', `/boards/${boardId}/duplicate`);
      expect(duplicate.status).toBe(201);
    });

    it('refuses data one level past the bound and accepts data at the bound', async () => {
      const tooDeep = await server.api('POST', `/boards/${boardId}/objects`, { type: 'sticky', position: { x: 0, y: 0 }, data: deepValue(33) });
      expectErrorBody(tooDeep, { statusCode: 400, error: 'Bad Request', field: 'data' });
      expect(tooDeep.body.details[0].message).toMatch(/deeper than 32 levels/);
      const atBound = await server.api('POST', `/boards/${boardId}/objects`, { type: 'sticky', position: { x: 0, y: 0 }, data: deepValue(32) });
      expect(atBound.status).toBe(201);
      const read = await server.api('GET', `/boards/${boardId}`);
      expect(read.body.state.objects.find((o: { id: string }) => o.id === atBound.body.id).data).toEqual(deepValue(32));
    });

    it.each([
      ['external_data', (deep: string) => `{"title":"t","external_data":${deep}}`],
      ['mock_external_data', (deep: string) => `{"title":"t","mock_external_data":${deep}}`],
      // A pinned component's props are bounded with the whole config, which every access check reads.
      ['config', (deep: string) => `{"title":"t","config":{"components":[{"type":"timer","props":${deep}}]}}`],
      ['initial_objects.1.data', (deep: string) => `{"title":"t","initial_objects":[{"type":"a","position":{"x":0,"y":0},"data":{}},{"type":"a","position":{"x":0,"y":0},"data":${deep}}]}`],
    ])('refuses a 5,000-deep %s on board creation and creates no board', async (field, bodyWith) => {
      const before = await boardCount();
      const res = await raw('POST', '/boards', bodyWith(deepJsonText(5_000)));
      expectErrorBody(res, { statusCode: 400, error: 'Bad Request', field });
      expect(await boardCount()).toBe(before);
    });

    // One string is bounded by the value's size only (bodyLimits.test.ts).
    it('refuses too many keys and oversized values inside data', async () => {
      const wide = Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`k${i}`, i]));
      const tooWide = await server.api('POST', `/boards/${boardId}/objects`, { type: 'note', position: { x: 0, y: 0 }, data: wide });
      expectErrorBody(tooWide, { statusCode: 400, error: 'Bad Request', field: 'data' });
      const big = { parts: Array.from({ length: 20 }, () => 'y'.repeat(60_000)) };
      const tooBig = await server.api('POST', `/boards/${boardId}/objects`, { type: 'note', position: { x: 0, y: 0 }, data: big });
      expectErrorBody(tooBig, { statusCode: 400, error: 'Bad Request', field: 'data' });
      expect(tooBig.body.details[0].message).toMatch(/larger than 1048576 bytes/);
    });
  });

  describe('stored numbers are bounded', () => {
    const frames = async () => {
      const res = await server.api('GET', `/boards/${boardId}/frames`);
      expect(res.status).toBe(200);
      return res.body as Array<{ name: string }>;
    };

    it.each([
      ['order', '9007199254740993'],
      ['order', '1e308'],
      ['order', '2147483648'],
      ['bounds_x', '1e308'],
      ['bounds_width', '1e300'],
      ['bounds_y', '-1e10'],
    ])('refuses %s = %s from a guest and stores no frame', async (field, value) => {
      const before = (await frames()).length;
      const res = await raw('POST', `/boards/${boardId}/frames`, `{"name":"f","${field}":${value}}`, guest());
      expectErrorBody(res, { statusCode: 400, error: 'Bad Request', field });
      expect((await frames()).length).toBe(before);
      expect((await server.api('GET', `/boards/${boardId}`)).status).toBe(200);
    });

    it('accepts the largest order and coordinates, and reads them back exactly', async () => {
      const res = await server.api('POST', `/boards/${boardId}/frames`, { name: 'edge', order: 2_147_483_647, bounds_x: -1e9, bounds_y: 1e9 - 100 });
      expect(res.status).toBe(201);
      const read = await server.api('GET', `/boards/${boardId}/frames/${res.body.id}`);
      expect(read.body).toMatchObject({ order: 2_147_483_647, bounds_x: -1e9, bounds_y: 1e9 - 100 });
    });

    it('refuses a clone whose offset would carry it past the bound, and stores no copy', async () => {
      const source = await server.api('POST', `/boards/${boardId}/frames`, { name: 'far', bounds_x: 9e8 });
      const before = (await frames()).length;
      const res = await server.api('POST', `/boards/${boardId}/frames/${source.body.id}/clone`, { offsetX: 5e8 });
      expectErrorBody(res, { statusCode: 400, error: 'Bad Request', field: 'offsetX' });
      expect((await frames()).length).toBe(before);
    });

    it('refuses object positions and sizes beyond the bound', async () => {
      const res = await server.api('POST', `/boards/${boardId}/objects`, { type: 'a', data: {}, position: { x: 1e308, y: 0 } });
      expectErrorBody(res, { statusCode: 400, error: 'Bad Request', field: 'position.x' });
    });
  });

  describe('validation errors are linear and capped', () => {
    it('answers 40,000 empty bulk-assign entries at once with a short error, and /health stays responsive', async () => {
      const body = `{"assignments":[${Array.from({ length: 40_000 }, () => '{}').join(',')}]}`;
      let slowestHealthMs = 0;
      let running = true;
      const probe = (async () => {
        while (running) {
          const started = performance.now();
          await fetch(`${server.url}/health`);
          slowestHealthMs = Math.max(slowestHealthMs, performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      const res = await raw('POST', `/boards/${boardId}/zones/bulk-assign`, body);
      running = false;
      await probe;
      expectErrorBody(res, { statusCode: 400, error: 'Bad Request', field: 'assignments' });
      expect(JSON.stringify(res.body).length).toBeLessThan(20_000);
      // Was 105 s before the fix; a regression guard, not a speed target.
      expect(slowestHealthMs).toBeLessThan(2_000);
    });

    it('lists at most 100 problems and counts the rest', async () => {
      // 50 entries (the most allowed), each wrong in several ways.
      const body = { assignments: Array.from({ length: 50 }, (_, i) => ({ frame_id: i, participant_id: [], color: 'red' })) };
      const res = await server.api('POST', `/boards/${boardId}/zones/bulk-assign`, body);
      expectErrorBody(res, { statusCode: 400, error: 'Bad Request', field: 'assignments.0.frame_id' });
      expect(res.body.details.length).toBe(100);
      expect(res.body.message.at(-1)).toMatch(/^…and \d+ more problems$/);
    });
  });

  describe('strings no database stores are refused', () => {
    it.each([
      ['title', '{"title":"\\ud800"}'],
      ['title', '{"title":"tail \\udc00 lone"}'],
      ['title', '{"title":"nul\\u0000byte"}'],
      ['external_id', '{"title":"t","external_id":"\\ud83d"}'],
      ['external_data.note', '{"title":"t","external_data":{"note":"\\ud800"}}'],
    ])('POST /boards refuses a bad %s with 400 and creates nothing', async (field, body) => {
      const before = await boardCount();
      const res = await raw('POST', '/boards', body);
      expectErrorBody(res, { statusCode: 400, error: 'Bad Request', field });
      expect(await boardCount()).toBe(before);
    });

    it('keeps valid surrogate pairs (emoji) intact', async () => {
      const res = await server.api('POST', '/boards', { title: 'Math 🧮 class' });
      expect(res.status).toBe(201);
      expect((await server.api('GET', `/boards/${res.body.board_uuid}`)).body.title).toBe('Math 🧮 class');
    });

    it.each([
      ['frame name', (id: string) => [`/boards/${id}/frames`, '{"name":"\\ud800"}', 'name']],
      ['frame id', (id: string) => [`/boards/${id}/frames`, '{"name":"x","parent_frame_id":"\\u0000"}', 'parent_frame_id']],
      ['assignment id', (id: string) => [`/boards/${id}/zones/bulk-assign`, '{"assignments":[{"frame_id":"\\udfff","user_id":"u"}]}', 'assignments.0.frame_id']],
      ['webhook description', () => ['/webhooks/subscriptions', '{"url":"https://example.com/h","description":"\\ud800"}', 'description']],
      ['object type name', () => ['/object-types', '{"typeName":"t","displayName":"\\ud800","category":"c","schema":{"type":"object"}}', 'displayName']],
    ])('refuses a lone surrogate or NUL in a %s', async (_what, route) => {
      const [path, body, field] = route(boardId) as [string, string, string];
      const res = await raw('POST', path, body);
      expectErrorBody(res, { statusCode: 400, error: 'Bad Request', field });
    });

    it('refuses NUL in a query parameter', async () => {
      const res = await server.api('GET', '/boards/by-owner?externalId=a%00b');
      expectErrorBody(res, { statusCode: 400, error: 'Bad Request', field: 'externalId' });
    });
  });

  describe('bodies that cannot be read answer 400', () => {
    it.each(['gzip', 'deflate', 'br'])('a plain JSON body sent as Content-Encoding: %s', async (encoding) => {
      const res = await raw('POST', '/boards', '{"title":"t"}', { 'content-encoding': encoding });
      expectErrorBody(res, { statusCode: 400, error: 'Bad Request' });
    });
  });

  describe('malformed paths answer 400', () => {
    it.each(['/api/v1/boards/%ff', '/api/v1/quota/%ff', '/api/v1/boards/%', '/api/v1/boards/%ED%A0%80/frames', '/api/v1/boards/a%00b'])(
      'GET %s',
      async (path) => {
        const res = await request(server.url, 'GET', path, undefined, { 'x-api-key': server.apiKey });
        expectErrorBody(res, { statusCode: 400, error: 'Bad Request' });
      },
    );
  });
});
