import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, ISO_TIMESTAMP } from '../helpers/assertions.js';
import { eventually, request, startTestServer, type TestServer } from '../helpers/testServer.js';

const HOUR_MS = 3_600_000;
const APP_URL = 'https://whiteboard.example.test';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
describe('POST /boards', () => {
  let server: TestServer;
  const eventsOf = (name: string, boardId: string): any[] =>
    server.events.filter((e) => e.name === name && e.payload.board_id === boardId).map((e) => e.payload);
  /** Polls until at least `count` events `name` of a board were published. */
  const waitForEvents = (name: string, boardId: string, count: number) =>
    eventually(() => {
      const found = eventsOf(name, boardId);
      if (found.length < count) throw new Error(`expected ${count} ${name} events, saw ${found.length}`);
      return found;
    });

  beforeAll(async () => {
    server = await startTestServer({ env: { APP_URL } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers 201 with exactly the creation fields of an active board', async () => {
    const res = await server.api('POST', '/boards', { title: 'Lesson 1', external_id: 'ext-1' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      ['access_links', 'board_uuid', 'created_at', 'expires_at', 'external_id', 'status', 'title'].sort(),
    );
    expect(res.body).toEqual({
      board_uuid: expect.stringMatching(UUID),
      title: 'Lesson 1',
      external_id: 'ext-1',
      status: 'active',
      created_at: expect.stringMatching(ISO_TIMESTAMP),
      expires_at: expect.stringMatching(ISO_TIMESTAMP),
      access_links: { host: expect.any(String), guest: expect.any(String) },
    });
  });

  it('expires a board 72 hours after creation by default', async () => {
    const res = await server.api('POST', '/boards', { title: 'Default expiry' });
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(72 * HOUR_MS);
  });

  it('honours a fractional expires_in_hours', async () => {
    const res = await server.api('POST', '/boards', { title: 'Short', expires_in_hours: 1.5 });
    expect(res.status).toBe(201);
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(1.5 * HOUR_MS);
  });

  it('applies the config defaults of 50 participants and anonymous access', async () => {
    const created = await server.api('POST', '/boards', { title: 'Defaults' });
    const read = await server.api('GET', `/boards/${created.body.board_uuid}`);
    expect(read.status).toBe(200);
    expect(read.body.config).toMatchObject({ max_participants: 50, allow_anonymous: true });
  });

  it('places initial objects in state.objects with generated ids and creation times', async () => {
    const initial = [
      { type: 'sticky', data: { text: 'hi' }, position: { x: 10, y: 20 } },
      { type: 'external-component', data: { componentUrl: 'https://c.example/x', props: {} }, position: { x: 0, y: -5.5 }, width: 300, height: 200 },
    ];
    const created = await server.api('POST', '/boards', { title: 'With objects', initial_objects: initial });
    expect(created.status).toBe(201);
    const read = await server.api('GET', `/boards/${created.body.board_uuid}`);
    const objects = read.body.state.objects as any[];
    expect(objects).toHaveLength(2);
    expect(read.body.objects_count).toBe(2);
    for (const input of initial) {
      const object = objects.find((o) => o.type === input.type);
      expect(object).toMatchObject(input);
      expect(object.id).toEqual(expect.any(String));
      expect(object.created_at).toMatch(ISO_TIMESTAMP);
    }
    expect(objects[0].id).not.toBe(objects[1].id);
    expect(objects.find((o) => o.type === 'sticky')).not.toHaveProperty('width');
  });

  it('stores the caller references, webhook URL, external data and tutorial fields and returns them on read', async () => {
    const body = {
      title: 'Tutorial',
      external_id: 'course-42',
      owner_external_id: 'teacher-7',
      webhook_url: 'https://hooks.example.com/boards',
      external_data: { course: { id: 42, name: 'Algebra' }, tags: ['a', 'b'] },
      is_sandbox: true,
      mock_external_data: { students: [{ id: 1 }] },
      data_provider: {
        type: 'webhook',
        webhook_url: 'https://api.example.com/courses/:courseId',
        method: 'GET',
        headers: { Authorization: 'Bearer abc' },
        cache_ttl: 60,
      },
      config: {
        max_participants: 12,
        allow_anonymous: false,
        components: [{ type: 'quiz', url: 'https://cdn.example.com/quiz', version: '1.2.0', props: { q: 3 } }],
      },
    };
    const created = await server.api('POST', '/boards', body);
    expect(created.status).toBe(201);
    const read = await server.api('GET', `/boards/${created.body.board_uuid}`);
    expect(read.body).toMatchObject({
      title: body.title,
      external_id: body.external_id,
      owner_external_id: body.owner_external_id,
      webhook_url: body.webhook_url,
      external_data: body.external_data,
      is_sandbox: true,
      mock_external_data: body.mock_external_data,
      data_provider: body.data_provider,
      config: body.config,
    });
  });

  it('issues distinct host and guest links carrying long tokens, different for every board', async () => {
    const a = await server.api('POST', '/boards', { title: 'Links A' });
    const b = await server.api('POST', '/boards', { title: 'Links B' });
    const tokens: string[] = [];
    for (const board of [a.body, b.body]) {
      for (const role of ['host', 'guest'] as const) {
        const link: string = board.access_links[role];
        expect(link.startsWith(`${APP_URL}/boards/${board.board_uuid}?token=`)).toBe(true);
        const token = new URL(link).searchParams.get('token') ?? '';
        expect(token.length).toBeGreaterThanOrEqual(40);
        tokens.push(token);
      }
    }
    expect(new Set(tokens).size).toBe(4);
  });

  it('publishes board.created with the board summary and both links', async () => {
    const res = await server.api('POST', '/boards', { title: 'Evented', external_id: 'ev-1' });
    const [payload] = await waitForEvents('board.created', res.body.board_uuid, 1);
    expect(payload).toEqual({
      board_id: res.body.board_uuid,
      organization_id: server.organizationId,
      title: 'Evented',
      external_id: 'ev-1',
      host_link: res.body.access_links.host,
      guest_link: res.body.access_links.guest,
      created_at: res.body.created_at,
    });
    expect(eventsOf('board.created', res.body.board_uuid)).toHaveLength(1);
  });

  it('publishes one object.created per initial object', async () => {
    const initial = [
      { type: 'sticky', data: { text: 'one' }, position: { x: 1, y: 1 } },
      { type: 'shape', data: { kind: 'circle' }, position: { x: 2, y: 2 } },
    ];
    const res = await server.api('POST', '/boards', { title: 'Object events', initial_objects: initial });
    const board = await server.api('GET', `/boards/${res.body.board_uuid}`);
    const events = await waitForEvents('object.created', res.body.board_uuid, 2);
    expect(events).toHaveLength(2);
    for (const object of board.body.state.objects as any[]) {
      const event = events.find((e) => e.object_id === object.id);
      expect(event).toEqual({
        board_id: res.body.board_uuid,
        organization_id: server.organizationId,
        object_id: object.id,
        object_type: object.type,
        object_data: object.data,
        version: expect.any(Number),
        created_by: object.created_by ?? null,
      });
      expect(event.version).toBeGreaterThanOrEqual(1);
    }
  });

  describe('rejects an invalid body with 400 and changes nothing', () => {
    const validObject = { type: 'sticky', data: {}, position: { x: 0, y: 0 } };
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['a missing title', { external_id: 'x' }, 'title'],
      ['a title of 256 characters', { title: 'a'.repeat(256) }, 'title'],
      ['a whitespace-only title', { title: '   \t ' }, 'title'],
      ['a non-number expires_in_hours', { title: 'T', expires_in_hours: '5' }, 'expires_in_hours'],
      ['an expires_in_hours of 0', { title: 'T', expires_in_hours: 0 }, 'expires_in_hours'],
      ['a negative expires_in_hours', { title: 'T', expires_in_hours: -3 }, 'expires_in_hours'],
      ['a non-number config.max_participants', { title: 'T', config: { max_participants: 'ten' } }, 'config.max_participants'],
      ['an initial object without type', { title: 'T', initial_objects: [validObject, { data: {}, position: { x: 0, y: 0 } }] }, 'initial_objects.1.type'],
      ['an initial object without data', { title: 'T', initial_objects: [{ type: 't', position: { x: 0, y: 0 } }] }, 'initial_objects.0.data'],
      ['an initial object without position', { title: 'T', initial_objects: [{ type: 't', data: {} }] }, 'initial_objects.0.position'],
      ['an unknown field', { title: 'T', expires_in_hour: 5 }, 'expires_in_hour'],
      ['a webhook_url that is not a URL', { title: 'T', webhook_url: 'not a url' }, 'webhook_url'],
    ];

    it.each(cases)('rejects %s', async (_name, body, field) => {
      const before = await server.api('GET', '/boards');
      const createdBefore = server.events.filter((e) => e.name === 'board.created').length;
      const res = await server.api('POST', '/boards', body);
      expectErrorBody(res, { statusCode: 400, error: 'Bad Request', path: '/api/v1/boards', field });
      const after = await server.api('GET', '/boards');
      expect(after.body).toHaveLength(before.body.length);
      expect(server.events.filter((e) => e.name === 'board.created')).toHaveLength(createdBefore);
    });
  });

  it('rejects malformed JSON with 400 and a string message', async () => {
    const res = await server.api('POST', '/boards', '{"title": "broken",', { 'content-type': 'application/json' });
    expectErrorBody(res, { statusCode: 400, error: 'Bad Request', path: '/api/v1/boards' });
  });

  it('rejects a body over 10 MB with 413', async () => {
    const before = await server.api('GET', '/boards');
    const res = await server.api('POST', '/boards', { title: 'Huge', external_data: { blob: 'x'.repeat(10 * 1024 * 1024 + 1) } });
    expectErrorBody(res, { statusCode: 413, error: 'Payload Too Large', path: '/api/v1/boards' });
    expect((await server.api('GET', '/boards')).body).toHaveLength(before.body.length);
  });

  it('answers 401 without an X-API-Key header and creates nothing', async () => {
    const before = await server.api('GET', '/boards');
    const res = await request(server.url, 'POST', '/api/v1/boards', { title: 'No key' });
    expectErrorBody(res, { statusCode: 401, error: 'Unauthorized', path: '/api/v1/boards' });
    expect((await server.api('GET', '/boards')).body).toHaveLength(before.body.length);
  });

  it('answers 401 for a wrong API key and creates nothing', async () => {
    const before = await server.api('GET', '/boards');
    const res = await server.api('POST', '/boards', { title: 'Wrong key' }, { 'x-api-key': `${server.apiKey}x` });
    expectErrorBody(res, { statusCode: 401, error: 'Unauthorized', path: '/api/v1/boards' });
    expect((await server.api('GET', '/boards')).body).toHaveLength(before.body.length);
    expect((await server.api('GET', '/boards')).body.some((b: any) => b.title === 'Wrong key')).toBe(false);
  });

  it('still creates boards through the deprecated POST /boards/create, announcing its deprecation', async () => {
    const res = await server.api('POST', '/boards/create', { title: 'Legacy', external_id: 'legacy-1', expires_in_hours: 2 });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      ['access_links', 'board_uuid', 'created_at', 'expires_at', 'external_id', 'status', 'title'].sort(),
    );
    expect(res.body).toMatchObject({ title: 'Legacy', external_id: 'legacy-1', status: 'active' });
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(2 * HOUR_MS);
    expect(res.headers.get('deprecation')).toBe('true');
    expect(new Date(res.headers.get('sunset') ?? '').toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(res.headers.get('link')).toBe('</api/v1/boards>; rel="successor-version"');
    const read = await server.api('GET', `/boards/${res.body.board_uuid}`);
    expect(read.status).toBe(200);
    expect(read.body.title).toBe('Legacy');
  });

  it('validates bodies on the deprecated path like on POST /boards', async () => {
    const res = await server.api('POST', '/boards/create', { title: '' });
    expect(res.status).toBe(400);
    expect(res.body.path).toBe('/api/v1/boards/create');
    expect(res.body.details.map((d: { field: string }) => d.field)).toContain('title');
    expect(res.headers.get('deprecation')).toBe('true');
  });
});
