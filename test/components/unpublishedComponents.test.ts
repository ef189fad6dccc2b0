import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { publishComponent, uniqueComponentName } from '../helpers/components.js';
import { createBoard, serverForSuite, type CreatedBoard, type SuiteServer } from '../helpers/fixtures.js';
import { addObject, connectBoardClient, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';

/**
 * An `external-component` object naming a version this registry does not
 * have (not yet published, or never) is kept as it is written, over REST and sockets; once that
 * version is published, writes to it are checked against its manifest, and objects written
 * before that stay readable. A `componentUrl` must still be a URL anyone may be sent to.
 */

/** A rating component: a label, a bounded number of stars; 320×180 to 640×360. */
const RATING = {
  props: {
    label: { type: 'string', default: 'Rate it' },
    stars: { type: 'number', default: 5, minimum: 1, maximum: 10 },
  },
  dimensions: { width: 320, height: 180, minWidth: 320, minHeight: 180, maxWidth: 640, maxHeight: 360 },
};

const componentObject = (componentUrl: string, props: unknown = {}, extra: Record<string, unknown> = {}) => ({
  type: 'external-component',
  data: { componentUrl, props },
  position: { x: 100, y: 100 },
  ...extra,
});

/** The URL of `name@version`'s entry on the registry's own origin (the board links' origin). */
const registryUrl = (board: CreatedBoard, name: string, version = '1.0.0') => `${new URL(board.access_links.host).origin}/components/files/${name}@${version}/index.html`;

function connect(suite: SuiteServer, board: CreatedBoard, link = board.access_links.host): BoardClient {
  const client = connectBoardClient({ url: suite.server.socketUrl(link, { user_id: 'teacher' }), name: board.board_uuid });
  suite.clients.push(client);
  return client;
}

const refusals = (client: BoardClient) => client.messages.filter((message) => message.type === 'write-rejected' && message.reason === 'invalid-object');
const objectsOf = (client: BoardClient) => client.doc.getMap('objects');
const dataOf = (client: BoardClient, id: string) => (objectsOf(client).get(id) as Y.Map<unknown>).get('data') as { componentUrl: string; props: Record<string, unknown> };

describe('a version this registry does not have', () => {
  const suite = serverForSuite();
  const { server } = suite;

  it('is kept as written over REST: created, read back intact, moved and removed', async () => {
    const board = await createBoard(server, 'Unpublished');
    const name = uniqueComponentName('rating');
    const path = `/boards/${board.board_uuid}/objects`;
    for (const url of [registryUrl(board, name), `/components/files/${name}@2.0.0-beta.1/index.html`, `/api/v1/components/files/${name}@latest/`]) {
      const written = componentObject(url, { stars: 99, anything: { nested: ['kept'] } });
      const created = await server.api('POST', path, written);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const read = await server.api('GET', `${path}/${created.body.id}`);
      expect(read.body).toMatchObject(written);
      expect(read.body.data).toEqual(written.data);
      // No manifest, so no size of its own: none is made up.
      expect(read.body.width).toBeUndefined();
      expect((await server.api('PATCH', `${path}/${created.body.id}`, { position: { x: 400, y: 50 } })).status).toBe(200);
      expect((await server.api('DELETE', `${path}/${created.body.id}`)).status).toBe(204);
    }
  });

  it('is kept as written over a socket: it reaches the other clients and the store', async () => {
    const board = await createBoard(server, 'Unpublished');
    const url = registryUrl(board, uniqueComponentName('rating'));
    const writer = connect(suite, board);
    const watcher = connect(suite, board, board.access_links.guest);
    await Promise.all([writer.synced(), watcher.synced()]);
    addObject(writer.doc, { id: 'later', type: 'external-component', data: { componentUrl: url, props: { stars: 99 } }, x: 40, y: 40 });
    await writer.saved();
    await eventually(() => objectsOf(watcher).has('later'));
    expect(dataOf(watcher, 'later')).toEqual({ componentUrl: url, props: { stars: 99 } });
    expect(refusals(writer)).toEqual([]);
    const stored = await server.api('GET', `/boards/${board.board_uuid}/objects/later`);
    expect(stored.status).toBe(200);
    expect(stored.body.data).toEqual({ componentUrl: url, props: { stars: 99 } });
  });

  it('is checked against the manifest once published; objects that do not fit stay readable and movable', async () => {
    const board = await createBoard(server, 'Published later');
    const name = uniqueComponentName('rating');
    const url = registryUrl(board, name);
    const path = `/boards/${board.board_uuid}/objects`;
    const fits = (await server.api('POST', path, componentObject(url, { stars: 3 }))).body.id as string;
    const misfit = (await server.api('POST', path, componentObject(url, { stars: 99, label: 7 }, { width: 100, height: 100 }))).body.id as string;

    await publishComponent(server, name, '1.0.0', { manifest: RATING });

    const read = await server.api('GET', `/boards/${board.board_uuid}?includeObjects=true`);
    expect(read.status).toBe(200);
    const shown = new Map((read.body.state.objects as Array<{ id: string; data: unknown }>).map((object) => [object.id, object.data]));
    expect(shown.get(misfit)).toEqual({ componentUrl: url, props: { stars: 99, label: 7 } });
    expect(shown.get(fits)).toEqual({ componentUrl: url, props: { stars: 3 } });

    // What a write leaves alone is not checked again: the misfit moves, keeping its props and size.
    const moved = await server.api('PATCH', `${path}/${misfit}`, { position: { x: 300, y: 300 } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({ width: 100, height: 100, data: { props: { stars: 99, label: 7 } } });
    // What it changes is.
    const refused = await server.api('PATCH', `${path}/${misfit}`, { data: { componentUrl: url, props: { stars: 11, label: 'Five' } } });
    expect(refused.status).toBe(422);
    expect(refused.body.details).toEqual([{ field: 'data.props.stars', message: 'must be <= 10' }]);
    expect((await server.api('PATCH', `${path}/${misfit}`, { width: 200 })).body.details).toContainEqual({ field: 'width', message: "must be >= 320 (the component's minimum)" });
    const changed = await server.api('PATCH', `${path}/${fits}`, { data: { componentUrl: url, props: { stars: 4 } } });
    expect(changed.status).toBe(200);
    expect(changed.body.data.props).toEqual({ label: 'Rate it', stars: 4 });
    expect((await server.api('POST', path, componentObject(url, { stars: 11 }))).status).toBe(422);

    // Over a socket alike: a change of the misfit's props that breaks the manifest is undone.
    const host = connect(suite, board);
    await host.synced();
    (objectsOf(host).get(misfit) as Y.Map<unknown>).set('data', { componentUrl: url, props: { stars: 50 } });
    await eventually(() => refusals(host).length > 0);
    expect(refusals(host)[0]).toMatchObject({ object_ids: [misfit], details: [{ object_id: misfit, field: 'data.props.stars', message: 'must be <= 10' }] });
    await eventually(() => dataOf(host, misfit).props.stars === 99);
    expect((await server.api('GET', `${path}/${misfit}`)).body.data.props).toEqual({ stars: 99, label: 7 });
  });
});

/** Values no `componentUrl` may hold, whoever writes it. */
function hostileUrls(board: CreatedBoard): string[] {
  const name = uniqueComponentName('rating');
  return [
    'javascript:alert(document.cookie)',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    `https://cdn.example.com/${'a'.repeat(3_000)}.html`,
    // A registry path whose version no publish could ever give.
    registryUrl(board, name, 'not-a-version'),
    registryUrl(board, name, '1.0.0%2F..%2F..'),
  ];
}

async function expectRefusedEverywhere(suite: SuiteServer, board: CreatedBoard, urls: string[]): Promise<void> {
  const path = `/boards/${board.board_uuid}/objects`;
  for (const url of urls) {
    const refused = await suite.server.api('POST', path, componentObject(url));
    expect({ url: url.slice(0, 80), status: refused.status }).toEqual({ url: url.slice(0, 80), status: 422 });
    expect(refused.body.details[0].field).toBe('data.componentUrl');
  }
  const writer = connect(suite, board);
  const watcher = connect(suite, board, board.access_links.guest);
  await Promise.all([writer.synced(), watcher.synced()]);
  const ids = urls.map((_url, index) => `hostile-${index}`);
  writer.doc.transact(() => urls.forEach((url, index) => addObject(writer.doc, { id: ids[index]!, type: 'external-component', data: { componentUrl: url, props: {} } })));
  addObject(writer.doc, { id: 'marker', type: 'sticky', data: { text: 'after the hostile ones' } });
  await eventually(() => objectsOf(watcher).has('marker'));
  await eventually(() => refusals(writer).length > 0);
  expect(refusals(writer)[0]!.object_ids.sort()).toEqual([...ids].sort());
  await eventually(() => ids.every((id) => !objectsOf(writer).has(id)));
  expect(ids.filter((id) => objectsOf(watcher).has(id))).toEqual([]);
  const stored = await suite.server.api('GET', `/boards/${board.board_uuid}?includeObjects=true`);
  expect(stored.body.state.objects.map((object: { id: string }) => object.id)).toEqual(['marker']);
}

describe('hostile componentUrl values', () => {
  const suite = serverForSuite();

  it('are refused over REST (422 naming data.componentUrl) and undone over a socket, reaching no one', async () => {
    const board = await createBoard(suite.server, 'Hostile');
    await expectRefusedEverywhere(suite, board, hostileUrls(board));
  });
});

describe('in production (WEBHOOK_ALLOW_PRIVATE=false)', () => {
  const suite = serverForSuite({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });

  it('refuses components on private, loopback, metadata or plain-http addresses, and keeps an unpublished version of its own registry', async () => {
    const board = await createBoard(suite.server, 'Egress');
    const privateUrls = ['https://127.0.0.1/w.html', 'https://10.1.2.3/w.html', 'https://169.254.169.254/latest/meta-data', 'https://[::1]/w.html', 'https://localhost/w.html', 'http://cdn.example.com/w.html'];
    await expectRefusedEverywhere(suite, board, [...privateUrls, ...hostileUrls(board)]);
    const own = await suite.server.api('POST', `/boards/${board.board_uuid}/objects`, componentObject(registryUrl(board, uniqueComponentName('rating'))));
    expect(own.status, JSON.stringify(own.body)).toBe(201);
  });
});
