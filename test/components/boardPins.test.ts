import { describe, expect, it } from 'vitest';
import type { ApiResponse } from '../helpers/testServer.js';
import { publishComponent, uniqueComponentName } from '../helpers/components.js';
import { createBoard, serverForSuite } from '../helpers/fixtures.js';

/** A board's `config.components[]` pins only what the registry can serve. */
describe('boards pinning registry components', () => {
  const { server } = serverForSuite();

  const boardWith = (components: unknown[]) => server.api('POST', '/boards', { title: 'Pinned', config: { components } });

  /** A 400 in the API's error body naming the entry, and no board made. */
  const expectRefused = (answer: ApiResponse, field: string, message: RegExp) => {
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.details).toEqual([{ field, message: expect.stringMatching(message) }]);
    expect(answer.body.board_uuid).toBeUndefined();
  };

  it('accepts a published version, by its file URL, its relative path or latest with a version', async () => {
    const name = uniqueComponentName();
    const published = await publishComponent(server, name, '1.0.0');
    const answer = await boardWith([
      { type: 'widget', url: published.url },
      { type: 'widget', url: `/components/files/${name}@1.0.0/index.html` },
      { type: 'widget', url: `/api/v1/components/files/${name}@latest/`, version: '1.0.0' },
      { type: 'widget', url: `/components/files/${name}@latest/` },
    ]);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  });

  it('refuses a version that is not published, naming the entry', async () => {
    const name = uniqueComponentName();
    const published = await publishComponent(server, name, '1.0.0');
    const answer = await boardWith([{ type: 'widget', url: published.url }, { type: 'widget', url: published.url.replace('@1.0.0', '@2.0.0') }]);
    expectRefused(answer, 'config.components.1.url', /2\.0\.0.*not published/);
    const unknown = await boardWith([{ type: 'widget', url: `/components/files/${uniqueComponentName('nobody')}@1.0.0/` }]);
    expectRefused(unknown, 'config.components.0.url', /not published/);
  });

  it('refuses a deleted version, on create and on update, and latest once every version is deleted', async () => {
    const name = uniqueComponentName();
    const published = await publishComponent(server, name, '1.0.0');
    const board = await createBoard(server, 'Pinned', { config: { components: [{ type: 'widget', url: published.url }] } });
    expect((await server.api('DELETE', `/components/${name}/1.0.0`)).status).toBe(204);

    expectRefused(await boardWith([{ type: 'widget', url: published.url }]), 'config.components.0.url', /deleted/);
    const update = await server.api('PATCH', `/boards/${board.board_uuid}`, { config: { components: [{ type: 'widget', url: published.url }] } });
    expectRefused(update, 'config.components.0.url', /deleted/);
    expectRefused(await boardWith([{ type: 'widget', url: `/components/files/${name}@latest/` }]), 'config.components.0.url', /every version/);
  });

  it('refuses an entry whose version disagrees with its URL', async () => {
    const name = uniqueComponentName();
    const published = await publishComponent(server, name, '1.0.0');
    const answer = await boardWith([{ type: 'widget', url: published.url, version: '1.2.0' }]);
    expectRefused(answer, 'config.components.0.url', /1\.2\.0/);
  });

  it('leaves URLs of other origins to the egress rules', async () => {
    const answer = await boardWith([{ type: 'widget', url: 'https://widgets.example.com/components/files/anything@9.9.9/' }]);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  });
});
