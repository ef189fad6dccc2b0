import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/testServer.js';

describe('smoke', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('creates and reads a board', async () => {
    const created = await server.api('POST', '/boards', { title: 'A', initial_objects: [{ type: 't', data: {}, position: { x: 1, y: 2 } }] });
    expect(created.status).toBe(201);
    const read = await server.api('GET', `/boards/${created.body.board_uuid}`);
    expect(read.body.state.objects).toHaveLength(1);
  });
});
