import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { uniqueComponentName, publishComponent } from '../helpers/components.js';
import { serverForSuite, tokenOf, type CreatedBoard } from '../helpers/fixtures.js';
import { addObject, connectBoardClient, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';

/**
 * `external-component` objects (docs/components.md): `data.componentUrl` names a
 * published version of this registry, `data.props` matches the manifest's `props` (defaults
 * filled in over REST), the size lies within `dimensions`, and a role the manifest does not
 * let write props cannot change them — over REST and over sockets alike.
 */

const { server, clients } = serverForSuite();

/** A rating component: a label, a bounded number of stars, a colour from a list; 320×180 to 640×360. */
const RATING = {
  props: {
    label: { type: 'string', default: 'Rate it' },
    stars: { type: 'number', default: 5, minimum: 1, maximum: 10 },
    color: { type: 'string', default: 'gold', enum: ['gold', 'blue'] },
  },
  dimensions: { width: 320, height: 180, minWidth: 320, minHeight: 180, maxWidth: 640, maxHeight: 360 },
};

async function publishRating(manifest: Record<string, unknown> = {}) {
  const name = uniqueComponentName('rating');
  const published = await publishComponent(server, name, '1.0.0', { manifest: { ...RATING, ...manifest } });
  return { name, url: published.url };
}

async function newBoard(): Promise<CreatedBoard> {
  const created = await server.api('POST', '/boards', { title: `Components ${randomUUID().slice(0, 8)}` });
  expect(created.status).toBe(201);
  return created.body as CreatedBoard;
}

const componentObject = (url: string, extra: Record<string, unknown> = {}) => ({
  type: 'external-component',
  data: { componentUrl: url, props: {} },
  position: { x: 100, y: 100 },
  ...extra,
});

async function connect(link: string, board: CreatedBoard, userId: string): Promise<BoardClient> {
  const client = connectBoardClient({ url: server.socketUrl(link, { user_id: userId }), name: board.board_uuid });
  clients.push(client);
  await client.saved();
  return client;
}

function invalidObject(client: BoardClient) {
  return client.messages.find((message) => message.type === 'write-rejected' && message.reason === 'invalid-object');
}

describe('over REST', () => {
  it('fills in the default props and size of the manifest', async () => {
    const { url } = await publishRating();
    const board = await newBoard();
    const created = await server.api('POST', `/boards/${board.board_uuid}/objects`, componentObject(url, { data: { componentUrl: url, props: { stars: 3 } } }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ width: 320, height: 180, data: { componentUrl: url, props: { label: 'Rate it', stars: 3, color: 'gold' } } });
    const stored = await server.api('GET', `/boards/${board.board_uuid}/objects/${created.body.id}`);
    expect(stored.body.data.props).toEqual({ label: 'Rate it', stars: 3, color: 'gold' });
  });

  it('refuses props that break the manifest, naming each field, and stores nothing', async () => {
    const { url } = await publishRating();
    const board = await newBoard();
    const refused = await server.api('POST', `/boards/${board.board_uuid}/objects`, componentObject(url, { data: { componentUrl: url, props: { stars: 11, color: 'red', label: 7 } } }));
    expect(refused.status).toBe(422);
    const fields = (refused.body.details as Array<{ field: string }>).map((detail) => detail.field).sort();
    expect(fields).toEqual(['data.props.color', 'data.props.label', 'data.props.stars']);
    expect((await server.api('GET', `/boards/${board.board_uuid}?includeObjects=true`)).body.state.objects).toEqual([]);
  });

  it('refuses a size outside the dimensions, and any other size of a component that is not resizable', async () => {
    const { url } = await publishRating();
    const fixed = await publishRating({ dimensions: { width: 400, height: 300, minWidth: 200, minHeight: 150, resizable: false } });
    const board = await newBoard();
    const path = `/boards/${board.board_uuid}/objects`;
    expect((await server.api('POST', path, componentObject(url, { width: 641, height: 200 }))).body.details).toEqual([{ field: 'width', message: "must be <= 640 (the component's maximum)" }]);
    expect((await server.api('POST', path, componentObject(url, { width: 400, height: 100 }))).status).toBe(422);
    expect((await server.api('POST', path, componentObject(url, { width: 640, height: 360 }))).status).toBe(201);
    expect((await server.api('POST', path, componentObject(fixed.url, { width: 401, height: 300 }))).body.details[0].field).toBe('width');
    expect((await server.api('POST', path, componentObject(fixed.url, { width: 400, height: 300 }))).status).toBe(201);
  });

  // A registry URL naming no published version is kept (test/components/unpublishedComponents.test.ts).
  it('refuses a URL of elsewhere that is not http(s)', async () => {
    const board = await newBoard();
    const path = `/boards/${board.board_uuid}/objects`;
    for (const url of ['javascript:alert(1)', 'ftp://files.example/widget.html', '/widget.html', 'https://user:pw@cdn.example/w.html']) {
      const refused = await server.api('POST', path, componentObject(url));
      expect({ url, status: refused.status }).toEqual({ url, status: 422 });
      expect(refused.body.details[0].field).toBe('data.componentUrl');
    }
    // A component an integrator hosts elsewhere has no manifest here: only its props must be an object.
    const hosted = await server.api('POST', path, componentObject('https://cdn.example.com/timer', { data: { componentUrl: 'https://cdn.example.com/timer', props: { seconds: 60 } } }));
    expect(hosted.status).toBe(201);
    expect((await server.api('POST', path, componentObject('https://cdn.example.com/timer', { data: { componentUrl: 'https://cdn.example.com/timer', props: [1] } }))).status).toBe(422);
    expect((await server.api('POST', path, { type: 'external-component', data: {}, position: { x: 0, y: 0 } })).body.details[0]).toMatchObject({ field: 'data.componentUrl' });
  });

  it('lets only a role the manifest allows change props: guests by default may not, but may move the object', async () => {
    const { url } = await publishRating();
    const board = await newBoard();
    const created = await server.api('POST', `/boards/${board.board_uuid}/objects`, componentObject(url));
    const guest = { authorization: `Bearer ${tokenOf(board.access_links.guest)}`, 'x-api-key': '' };
    const path = `/boards/${board.board_uuid}/objects/${created.body.id}`;
    const changed = await server.api('PATCH', path, { data: { componentUrl: url, props: { stars: 2 } } }, guest);
    expect(changed.status).toBe(422);
    expect(changed.body.details).toEqual([{ field: 'data.props', message: 'may be changed only by a role the component lets write them (guest may not)' }]);
    expect((await server.api('PATCH', path, { position: { x: 300, y: 300 } }, guest)).status).toBe(200);
    expect((await server.api('PATCH', path, { data: { componentUrl: url, props: { stars: 2 } } })).status).toBe(200);

    const open = await publishRating({ permissions: { props: { host: ['*'], guest: ['read', 'write'] } } });
    const other = await server.api('POST', `/boards/${board.board_uuid}/objects`, componentObject(open.url));
    expect((await server.api('PATCH', `/boards/${board.board_uuid}/objects/${other.body.id}`, { data: { componentUrl: open.url, props: { stars: 2 } } }, guest)).status).toBe(200);
  });
});

describe('after the version is deleted', () => {
  it('keeps objects already running it, refuses new ones, and boards pinning it show an error body', async () => {
    const { name, url } = await publishRating();
    const board = (
      await server.api('POST', '/boards', { title: 'Pinned', config: { components: [{ type: 'rating', url, version: '1.0.0' }] } })
    ).body as CreatedBoard;
    const created = await server.api('POST', `/boards/${board.board_uuid}/objects`, componentObject(url));
    const manifestPath = `/boards/${board.board_uuid}/component-manifest?url=${encodeURIComponent(url)}`;
    const described = await server.api('GET', manifestPath);
    expect(described.status).toBe(200);
    expect(described.body).toMatchObject({ name, version: '1.0.0', manifest: { dimensions: { width: 320 }, props: { stars: { default: 5 } } } });

    expect((await server.api('DELETE', `/components/${name}/1.0.0`)).status).toBe(204);
    const read = await server.api('GET', `/boards/${board.board_uuid}?includeObjects=true`);
    expect(read.body.config.components[0]).toEqual({
      type: 'rating',
      url,
      version: '1.0.0',
      error: { statusCode: 410, error: 'Gone', message: `${url} names ${name}@1.0.0, which was deleted` },
    });
    expect(read.body.state.objects.map((object: { id: string }) => object.id)).toEqual([created.body.id]);
    expect((await server.api('GET', manifestPath)).status).toBe(410);
    expect((await server.api('PATCH', `/boards/${board.board_uuid}/objects/${created.body.id}`, { position: { x: 10, y: 10 } })).status).toBe(200);
    const refused = await server.api('POST', `/boards/${board.board_uuid}/objects`, componentObject(url));
    expect(refused.status).toBe(422);
    expect(refused.body.details[0].message).toBe(`names ${name}@1.0.0, which was deleted`);
    const unknown = `/boards/${board.board_uuid}/component-manifest?url=${encodeURIComponent('https://elsewhere.example/x.html')}`;
    expect((await server.api('GET', unknown)).status).toBe(404);
  });
});

describe('over sockets', () => {
  it('undoes an object whose props break the manifest, and lets a valid one through to others', async () => {
    const { url } = await publishRating();
    const board = await newBoard();
    const writer = await connect(board.access_links.host, board, 'teacher');
    const watcher = await connect(board.access_links.guest, board, 'student');
    writer.doc.transact(() => {
      addObject(writer.doc, { id: 'bad', type: 'external-component', data: { componentUrl: url, props: { stars: 99 } } });
      addObject(writer.doc, { id: 'good', type: 'external-component', data: { componentUrl: url, props: { stars: 4 } }, x: 500 });
    });
    await eventually(() => watcher.doc.getMap('objects').has('good'));
    await eventually(() => invalidObject(writer));
    expect(invalidObject(writer)).toMatchObject({ object_ids: ['bad'], details: [{ object_id: 'bad', field: 'data.props.stars', message: 'must be <= 10' }] });
    await eventually(() => !writer.doc.getMap('objects').has('bad'));
    expect(watcher.doc.getMap('objects').has('bad')).toBe(false);
  });

  it("undoes a guest's change of props the manifest does not let guests write, and keeps a host's", async () => {
    const { url } = await publishRating();
    const board = await newBoard();
    const created = await server.api('POST', `/boards/${board.board_uuid}/objects`, componentObject(url));
    const host = await connect(board.access_links.host, board, 'teacher');
    const guest = await connect(board.access_links.guest, board, 'student');
    const propsOf = (client: BoardClient) => ((client.doc.getMap('objects').get(created.body.id) as Y.Map<any>).get('data') as { props: Record<string, unknown> }).props;
    const setStars = (client: BoardClient, stars: number) => {
      const object = client.doc.getMap('objects').get(created.body.id) as Y.Map<any>;
      object.set('data', { componentUrl: url, props: { ...propsOf(client), stars } });
    };
    setStars(guest, 1);
    await eventually(() => invalidObject(guest));
    await eventually(() => propsOf(guest).stars === 5);
    setStars(host, 8);
    await eventually(() => propsOf(guest).stars === 8);
    expect((await server.api('GET', `/boards/${board.board_uuid}/objects/${created.body.id}`)).body.data.props.stars).toBe(8);
  });

  it('undoes a resize of a component that is not resizable, made with the size alone', async () => {
    // The update names neither the type nor the component: the check must come from the object it touches.
    const fixed = await publishRating({ dimensions: { width: 400, height: 300, minWidth: 200, minHeight: 150, resizable: false } });
    const board = await newBoard();
    const created = await server.api('POST', `/boards/${board.board_uuid}/objects`, componentObject(fixed.url, { width: 400, height: 300 }));
    expect(created.status).toBe(201);
    const host = await connect(board.access_links.host, board, 'teacher');
    const objectOf = (client: BoardClient) => client.doc.getMap('objects').get(created.body.id) as Y.Map<any>;
    objectOf(host).set('width', 401);
    await eventually(() => invalidObject(host));
    expect(invalidObject(host)).toMatchObject({ object_ids: [created.body.id], details: [{ object_id: created.body.id, field: 'width' }] });
    await eventually(() => objectOf(host).get('width') === 400);
    expect((await server.api('GET', `/boards/${board.board_uuid}/objects/${created.body.id}`)).body.width).toBe(400);
  });

  it('closes a socket that writes into component storage, which only the server writes, applying nothing', async () => {
    const board = await newBoard();
    const writer = await connect(board.access_links.host, board, 'teacher');
    writer.doc.getMap('componentStorage').set('forged', 'value');
    await eventually(() => writer.closes.length > 0);
    expect(writer.closes[0]).toEqual({ code: 4400, reason: 'invalid-update' });
    const reader = await connect(board.access_links.host, board, 'reader');
    expect(reader.doc.getMap('componentStorage').size).toBe(0);
  });
});
