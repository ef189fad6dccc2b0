import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, ISO_TIMESTAMP } from '../helpers/assertions.js';
import { eventually, request, startTestServer, type TestServer } from '../helpers/testServer.js';

describe('POST /boards/:id/objects', () => {
  let server: TestServer;
  const newBoard = async (title = 'Objects board') => (await server.api('POST', '/boards', { title })).body.board_uuid as string;
  const readBoard = async (boardId: string) => (await server.api('GET', `/boards/${boardId}`)).body;
  const objectEvents = (boardId: string): any[] =>
    server.events.filter((e) => e.name === 'object.created' && e.payload.board_id === boardId).map((e) => e.payload);
  /** Polls until at least `count` object.created events of a board were published. */
  const waitForObjectEvents = (boardId: string, count: number) =>
    eventually(() => {
      const found = objectEvents(boardId);
      if (found.length < count) throw new Error(`expected ${count} object.created events, saw ${found.length}`);
      return found;
    });

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('answers 201 with the created object', async () => {
    const boardId = await newBoard();
    const input = { type: 'sticky', data: { text: 'hello', color: '#ff0' }, position: { x: 12.5, y: -4 } };
    const res = await server.api('POST', `/boards/${boardId}/objects`, input);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      ...input,
      created_at: expect.stringMatching(ISO_TIMESTAMP),
      created_by: null,
    });
    expect(res.body.id.length).toBeGreaterThan(0);
  });

  it('keeps width and height when given', async () => {
    const boardId = await newBoard();
    const input = {
      type: 'external-component',
      data: { componentUrl: 'https://cdn.example.com/timer', props: { seconds: 60 } },
      position: { x: 100, y: 200 },
      width: 320,
      height: 240,
    };
    const res = await server.api('POST', `/boards/${boardId}/objects`, input);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject(input);
  });

  it('makes the object readable in state.objects of the board', async () => {
    const boardId = await newBoard();
    const res = await server.api('POST', `/boards/${boardId}/objects`, { type: 'shape', data: { kind: 'circle' }, position: { x: 1, y: 2 } });
    const board = await readBoard(boardId);
    expect(board.state.objects).toEqual([res.body]);
    expect(board.objects_count).toBe(1);
  });

  it('increases state.version and objects_count with every object added', async () => {
    const boardId = await newBoard();
    const initial = await readBoard(boardId);
    expect(initial.state.version).toBe(0);
    expect(initial.objects_count).toBe(0);
    for (let n = 1; n <= 3; n++) {
      const res = await server.api('POST', `/boards/${boardId}/objects`, { type: 'sticky', data: { n }, position: { x: n, y: n } });
      expect(res.status).toBe(201);
      const board = await readBoard(boardId);
      expect(board.state.version).toBe(n);
      expect(board.objects_count).toBe(n);
      const listed = (await server.api('GET', '/boards')).body.find((b: any) => b.board_uuid === boardId);
      expect(listed.objects_count).toBe(n);
    }
  });

  it('publishes object.created with the object and the board version', async () => {
    const boardId = await newBoard();
    const res = await server.api('POST', `/boards/${boardId}/objects`, { type: 'sticky', data: { text: 'event' }, position: { x: 0, y: 0 } });
    const [event] = await waitForObjectEvents(boardId, 1);
    expect(event).toEqual({
      board_id: boardId,
      organization_id: server.organizationId,
      object_id: res.body.id,
      object_type: 'sticky',
      object_data: { text: 'event' },
      version: 1,
      created_by: null,
    });
    expect(objectEvents(boardId)).toHaveLength(1);
  });

  describe('rejects an invalid object with 400 and adds nothing', () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['a missing position', { type: 'sticky', data: {} }, 'position'],
      ['a position.x that is not a number', { type: 'sticky', data: {}, position: { x: '10', y: 0 } }, 'position.x'],
      ['a position without y', { type: 'sticky', data: {}, position: { x: 1 } }, 'position.y'],
      ['data that is not an object', { type: 'sticky', data: 'text', position: { x: 0, y: 0 } }, 'data'],
      ['a missing type', { data: {}, position: { x: 0, y: 0 } }, 'type'],
      ['an unknown field', { type: 'sticky', data: {}, position: { x: 0, y: 0 }, colour: 'red' }, 'colour'],
    ];
    let boardId: string;

    beforeAll(async () => {
      boardId = await newBoard('Validation board');
    });

    it.each(cases)('rejects %s', async (_name, body, field) => {
      const res = await server.api('POST', `/boards/${boardId}/objects`, body);
      expectErrorBody(res, { statusCode: 400, error: 'Bad Request', path: `/api/v1/boards/${boardId}/objects`, field });
      const board = await readBoard(boardId);
      expect(board.state).toEqual({ version: 0, objects: [] });
      expect(board.objects_count).toBe(0);
      expect(objectEvents(boardId)).toHaveLength(0);
    });
  });

  it('answers 404 for an unknown board', async () => {
    const path = `/boards/${randomUUID()}/objects`;
    const res = await server.api('POST', path, { type: 'sticky', data: {}, position: { x: 0, y: 0 } });
    expectErrorBody(res, { statusCode: 404, error: 'Not Found', path: `/api/v1${path}` });
  });

  it('answers 401 without an API key and adds nothing', async () => {
    const boardId = await newBoard();
    const path = `/api/v1/boards/${boardId}/objects`;
    const res = await request(server.url, 'POST', path, { type: 'sticky', data: {}, position: { x: 0, y: 0 } });
    expectErrorBody(res, { statusCode: 401, error: 'Unauthorized', path });
    expect((await readBoard(boardId)).objects_count).toBe(0);
  });

  it('lands all of 20 concurrent additions with distinct ids and one version step each', async () => {
    const boardId = await newBoard('Concurrent board');
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        server.api('POST', `/boards/${boardId}/objects`, { type: 'sticky', data: { i }, position: { x: i, y: i } }),
      ),
    );
    for (const res of responses) expect(res.status).toBe(201);
    const ids = new Set(responses.map((res) => res.body.id as string));
    expect(ids.size).toBe(20);
    const board = await readBoard(boardId);
    expect(board.objects_count).toBe(20);
    expect(board.state.version).toBe(20);
    expect(new Set(board.state.objects.map((o: any) => o.id))).toEqual(ids);
    const listed = (await server.api('GET', '/boards')).body.find((b: any) => b.board_uuid === boardId);
    expect(listed.objects_count).toBe(20);
    const events = await waitForObjectEvents(boardId, 20);
    expect(new Set(events.map((e) => e.object_id))).toEqual(ids);
    for (const event of events) expect(event.version).toBeGreaterThanOrEqual(1);
  });
});
