import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { ManualClock } from '../../src/clock.js';
import { serverForSuite, type CreatedBoard, tokenOf, createBoard } from '../helpers/fixtures.js';
import { addObject, connectBoardClient, rawSocketOutcome, type BoardClient } from '../helpers/realtimeClient.js';
import { eventually } from '../helpers/testServer.js';

const HOUR_MS = 3_600_000;
const START = new Date('2031-03-01T09:00:00.000Z');

const clock = new ManualClock(START);
const { server, clients } = serverForSuite({ clock });

const initialObjects = [
  { type: 'note', data: { text: 'first' }, position: { x: 10, y: 20 } },
  { type: 'shape', data: { kind: 'circle' }, position: { x: -5, y: 300 } },
];

const newBoard = (body: Record<string, unknown> = {}) => createBoard(server, 'Board', body);

/** The realtime endpoint with no token in the URL. */
const bareSocketUrl = () => `${server.url.replace(/^http/, 'ws')}/api/v1/realtime`;

/** A provider client on `name` that stays closed once the server closes it; destroyed after each test. */
function connect(url: string, name: string, token?: string): BoardClient {
  const client = connectBoardClient({ url, name, token });
  clients.push(client);
  return client;
}

/** A synced client on the board's document with the given access link. */
async function join(board: CreatedBoard, link: string): Promise<BoardClient> {
  const client = connect(server.socketUrl(link), board.board_uuid);
  await client.synced();
  return client;
}

/** The first close event of a client, once there is one. */
const firstClose = async (client: BoardClient) => (await eventually(() => client.closes[0], 10_000))!;

/** Each object of a Yjs board document as plain JSON, keyed by id. */
function objectsIn(doc: Y.Doc): Record<string, Record<string, unknown>> {
  return doc.getMap('objects').toJSON();
}

async function restObjects(boardId: string): Promise<Array<Record<string, any>>> {
  const read = await server.api('GET', `/boards/${boardId}`);
  expect(read.status).toBe(200);
  return read.body.state.objects;
}

/** Writes an object from `writer` and checks it reaches `reader` and the REST state. */
async function expectWriteToPropagate(board: CreatedBoard, writer: BoardClient, reader: BoardClient): Promise<void> {
  const id = randomUUID();
  addObject(writer.doc, { id, type: 'sticky', data: { text: 'from a socket' }, x: 7, y: 8 });
  await writer.saved();
  await eventually(() => objectsIn(reader.doc)[id]);
  expect(objectsIn(reader.doc)[id]).toMatchObject({ id, type: 'sticky', data: { text: 'from a socket' }, position: { x: 7, y: 8 } });
  const rest = await restObjects(board.board_uuid);
  expect(rest.find((object) => object.id === id)).toMatchObject({ id, type: 'sticky', data: { text: 'from a socket' }, position: { x: 7, y: 8 } });
}

describe('connecting with a board access token', () => {
  it('syncs the objects created over REST to a client holding the guest token', async () => {
    const board = await newBoard({ initial_objects: initialObjects });
    const guest = await join(board, board.access_links.guest);

    const synced = Object.values(objectsIn(guest.doc));
    expect(synced).toHaveLength(2);
    const shape = (o: Record<string, unknown>) => ({ type: o.type, data: o.data, position: o.position });
    expect(synced.map(shape)).toEqual(expect.arrayContaining(initialObjects.map(shape)));
    const restIds = (await restObjects(board.board_uuid)).map((object) => object.id).sort();
    expect(Object.keys(objectsIn(guest.doc)).sort()).toEqual(restIds);
  });

  it("delivers a guest client's write to a second client and to GET state.objects", async () => {
    const board = await newBoard({ initial_objects: initialObjects });
    const writer = await join(board, board.access_links.guest);
    const reader = await join(board, board.access_links.guest);
    await expectWriteToPropagate(board, writer, reader);
    expect(await restObjects(board.board_uuid)).toHaveLength(3);
  });

  it('lets a client holding the host token read the board and write to it', async () => {
    const board = await newBoard({ initial_objects: initialObjects });
    const host = await join(board, board.access_links.host);
    expect(Object.keys(objectsIn(host.doc))).toHaveLength(2);
    const guest = await join(board, board.access_links.guest);
    await expectWriteToPropagate(board, host, guest);
  });

  it("accepts a token given only as the provider's token option, with none in the URL", async () => {
    const board = await newBoard({ initial_objects: initialObjects });
    const client = connect(bareSocketUrl(), board.board_uuid, tokenOf(board.access_links.guest));
    await client.synced();
    expect(Object.keys(objectsIn(client.doc))).toHaveLength(2);
    const reader = await join(board, board.access_links.host);
    await expectWriteToPropagate(board, client, reader);
  });

  it('lets a client in with the token of an archived board', async () => {
    const board = await newBoard({ initial_objects: initialObjects });
    expect((await server.api('PATCH', `/boards/${board.board_uuid}/archive`)).body.status).toBe('archived');
    const guest = await join(board, board.access_links.guest);
    expect(Object.keys(objectsIn(guest.doc))).toHaveLength(2);
    const host = await join(board, board.access_links.host);
    await expectWriteToPropagate(board, guest, host);
  });
});

describe('refusing sockets', () => {
  it('closes a socket with an invalid token in the URL with 1008', async () => {
    const board = await newBoard();
    const url = `${bareSocketUrl()}?token=not-a-board-token`;
    expect(await rawSocketOutcome(url)).toMatchObject({ opened: true, code: 1008 });

    const client = connect(url, board.board_uuid);
    expect((await firstClose(client)).code).toBe(1008);
    expect(client.provider.isSynced).toBe(false);
  });

  it('closes a socket whose provider token is invalid, with no token in the URL, with 1008', async () => {
    const board = await newBoard({ initial_objects: initialObjects });
    const client = connect(bareSocketUrl(), board.board_uuid, 'not-a-board-token');
    expect((await firstClose(client)).code).toBe(1008);
    expect(client.provider.isSynced).toBe(false);
    expect(objectsIn(client.doc)).toEqual({});
  });

  it.each([
    ['in the URL', (link: string) => ({ url: server.socketUrl(link), token: undefined })],
    ['as the provider token', (link: string) => ({ url: bareSocketUrl(), token: tokenOf(link) })],
  ])("closes a socket that opens another board's document with a token %s with 1008", async (_case, socketOf) => {
    const boardA = await newBoard();
    const boardB = await newBoard({ initial_objects: initialObjects });
    const { url, token } = socketOf(boardA.access_links.host);
    const client = connect(url, boardB.board_uuid, token);
    expect((await firstClose(client)).code).toBe(1008);
    expect(objectsIn(client.doc)).toEqual({});
  });

  it('refuses a WebSocket upgrade on any other path', async () => {
    const board = await newBoard();
    const token = tokenOf(board.access_links.guest);
    const base = server.url.replace(/^http/, 'ws');
    for (const path of ['/api/v1/other', '/api/v1/realtime/extra', '/']) {
      const outcome = await rawSocketOutcome(`${base}${path}?token=${token}`);
      expect(outcome.opened).toBe(false);
      expect(outcome.error?.message).toMatch(/404/);
    }
  });
});

describe('board expiry', () => {
  it.each([
    ['in the URL', (link: string) => ({ url: server.socketUrl(link), token: undefined })],
    ['as the provider token', (link: string) => ({ url: bareSocketUrl(), token: tokenOf(link) })],
  ])('closes a socket with the token of an expired board given %s with 1008', async (_case, socketOf) => {
    const board = await newBoard({ expires_in_hours: 1, initial_objects: initialObjects });
    clock.advance(HOUR_MS + 1_000);
    for (const link of [board.access_links.guest, board.access_links.host]) {
      const { url, token } = socketOf(link);
      const client = connect(url, board.board_uuid, token);
      expect((await firstClose(client)).code).toBe(1008);
      expect(objectsIn(client.doc)).toEqual({});
    }
  });

  it('closes the connected sockets of a board with 1008 once it expired', async () => {
    const board = await newBoard({ expires_in_hours: 1 });
    const guest = await join(board, board.access_links.guest);
    clock.advance(HOUR_MS + 1_000);
    // Reading the board notices the expiry (the sweeper would too, on its own cadence).
    expect((await server.api('GET', `/boards/${board.board_uuid}`)).status).toBe(410);
    expect((await firstClose(guest)).code).toBe(1008);
  });
});

describe('POST /boards/:id/end-session', () => {
  it('closes every socket of the board with 4000 session-ended and leaves other boards connected', async () => {
    const board = await newBoard({ initial_objects: initialObjects });
    const other = await newBoard();
    const host = await join(board, board.access_links.host);
    const guest = await join(board, board.access_links.guest);
    const tokenOnly = connect(bareSocketUrl(), board.board_uuid, tokenOf(board.access_links.guest));
    await tokenOnly.synced();
    const bystander = await join(other, other.access_links.guest);

    const ended = await server.api('POST', `/boards/${board.board_uuid}/end-session`);
    expect(ended.status).toBe(200);
    expect(ended.body.status).toBe('active');

    for (const client of [host, guest, tokenOnly]) {
      expect(await firstClose(client)).toEqual({ code: 4000, reason: 'session-ended' });
    }
    await expectWriteToPropagate(other, bystander, await join(other, other.access_links.host));
    expect(bystander.closes).toEqual([]);
  });

  it('keeps the board active, publishes board.ended and lets a new client join afterwards', async () => {
    const board = await newBoard({ initial_objects: initialObjects });
    const before = await join(board, board.access_links.guest);
    expect((await server.api('POST', `/boards/${board.board_uuid}/end-session`)).status).toBe(200);
    expect((await firstClose(before)).code).toBe(4000);

    const event = await eventually(() =>
      server.events.find((e) => e.name === 'board.ended' && e.payload.board_id === board.board_uuid),
    );
    expect(event!.payload).toMatchObject({ board_id: board.board_uuid, organization_id: server.organizationId });
    expect((await server.api('GET', `/boards/${board.board_uuid}`)).body.status).toBe('active');

    const after = await join(board, board.access_links.guest);
    expect(Object.keys(objectsIn(after.doc))).toHaveLength(2);
    await expectWriteToPropagate(board, after, await join(board, board.access_links.host));
  });
});

describe('DELETE /boards/:id', () => {
  it("closes the board's sockets with 4404 and refuses its tokens with 1008 afterwards", async () => {
    const board = await newBoard({ initial_objects: initialObjects });
    const host = await join(board, board.access_links.host);
    const guest = await join(board, board.access_links.guest);

    expect((await server.api('DELETE', `/boards/${board.board_uuid}`)).status).toBe(204);
    for (const client of [host, guest]) {
      expect(await firstClose(client)).toEqual({ code: 4404, reason: 'board-deleted' });
    }

    for (const link of [board.access_links.guest, board.access_links.host]) {
      expect(await rawSocketOutcome(server.socketUrl(link))).toMatchObject({ opened: true, code: 1008 });
      const viaProvider = connect(bareSocketUrl(), board.board_uuid, tokenOf(link));
      expect((await firstClose(viaProvider)).code).toBe(1008);
      expect(objectsIn(viaProvider.doc)).toEqual({});
    }
  });
});
