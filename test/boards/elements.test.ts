import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as Y from 'yjs';
import type { Board } from '../../src/boards/board.js';
import { putObjects, type BoardObject } from '../../src/boards/boardObjects.js';
import { organizationCaller } from '../../src/boards/caller.js';
import { ObjectService, type ObjectServiceDependencies } from '../../src/objects/objectService.js';
import type { LiveDocuments } from '../../src/boards/ports.js';
import { ManualClock } from '../../src/clock.js';
import { expectErrorBody } from '../helpers/assertions.js';
import { createBoard, postFrame, serverForSuite, tokenOf, type CreatedBoard } from '../helpers/fixtures.js';
import { request, eventually, type ApiResponse } from '../helpers/testServer.js';

/**
 * `GET /boards/<id>/elements`: the board's objects as `state.objects` shows them, in one stable
 * order (`created_at`, then `id`), paged by `limit` and `offset` unless `pagination=false`.
 */

const clock = new ManualClock(new Date('2031-05-04T08:00:00.000Z'));
const { server, connect } = serverForSuite({ clock });

type Element = Record<string, any> & { id: string; created_at: string };

const pathOf = (boardId: string) => `/api/v1/boards/${boardId}/elements`;

/** Calls the route with a query string, as the API key or with the given headers. */
function listElements(boardId: string, query = '', headers?: Record<string, string>): Promise<ApiResponse> {
  const path = `${pathOf(boardId)}${query ? `?${query}` : ''}`;
  return headers ? request(server.url, 'GET', path, undefined, headers) : server.api('GET', path.replace('/api/v1', ''));
}

/** The listing order the route promises, by UTF-16 code units. */
const listingOrder = (a: Element, b: Element) =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** `state.objects` of GET /boards/<id> as the same caller sees them. */
async function stateObjects(boardId: string, headers?: Record<string, string>): Promise<Element[]> {
  const read = headers
    ? await request(server.url, 'GET', `/api/v1/boards/${boardId}`, undefined, headers)
    : await server.api('GET', `/boards/${boardId}`);
  expect(read.status).toBe(200);
  return read.body.state.objects;
}

/** Adds an object one millisecond after the previous one, so each has its own `created_at`. */
async function postObject(boardId: string, body: Record<string, unknown> = {}): Promise<Element> {
  clock.advance(1);
  const posted = await server.api('POST', `/boards/${boardId}/objects`, { type: 'sticky', data: {}, position: { x: 5_000, y: 5_000 }, ...body });
  expect(posted.status).toBe(201);
  return posted.body;
}

/** A board of `count` objects, each created a millisecond after the one before. */
async function boardWith(count: number): Promise<{ board: CreatedBoard; created: Element[] }> {
  const board = await createBoard(server, 'Elements');
  const created: Element[] = [];
  for (let n = 0; n < count; n++) created.push(await postObject(board.board_uuid, { data: { n } }));
  return { board, created };
}

/** Reads every page of `limit` from offset 0 on, as the API key. */
async function walkPages(boardId: string, limit: number): Promise<Array<{ elements: Element[]; pagination: Record<string, any> }>> {
  const pages = [];
  for (let offset = 0; ; offset += limit) {
    const page = await listElements(boardId, `limit=${limit}&offset=${offset}`);
    expect(page.status).toBe(200);
    pages.push(page.body);
    if (!page.body.pagination.has_more) return pages;
  }
}

describe('the default page', () => {
  it('an empty board answers an empty page, and an empty array without pagination', async () => {
    const board = await createBoard(server, 'Empty');
    const paged = await listElements(board.board_uuid);
    expect(paged.status).toBe(200);
    expect(paged.body).toEqual({ elements: [], pagination: { total: 0, limit: 50, offset: 0, has_more: false } });
    const plain = await listElements(board.board_uuid, 'pagination=false');
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual([]);
  });

  it('answers the first 50 elements in created_at order, each as state.objects shows it, with the total', async () => {
    const { board, created } = await boardWith(55);
    const page = await listElements(board.board_uuid);
    expect(page.status).toBe(200);
    expect(page.body.pagination).toEqual({ total: 55, limit: 50, offset: 0, has_more: true });
    // Created one millisecond apart with random ids: the order is creation, not id order.
    expect(page.body.elements.map((element: Element) => element.id)).toEqual(created.slice(0, 50).map((object) => object.id));
    const shown = new Map((await stateObjects(board.board_uuid)).map((object) => [object.id, object]));
    for (const element of page.body.elements) expect(element).toEqual(shown.get(element.id));
  });

  it('orders objects created at the same instant by id', async () => {
    const initial = Array.from({ length: 12 }, (_, n) => ({ type: 'sticky', data: { n }, position: { x: n, y: 0 } }));
    const board = await createBoard(server, 'Same instant', { initial_objects: initial });
    const listed: Element[] = (await listElements(board.board_uuid, 'pagination=false')).body;
    expect(new Set(listed.map((element) => element.created_at)).size).toBe(1);
    expect(listed.map((element) => element.id)).toEqual(listed.map((element) => element.id).sort());
    expect(listed).toHaveLength(12);
  });
});

describe('limit and offset', () => {
  it('pages of 5 walk all 23 elements exactly once, in the listing order', async () => {
    const { board } = await boardWith(23);
    const pages = await walkPages(board.board_uuid, 5);
    expect(pages.map((page) => page.elements.length)).toEqual([5, 5, 5, 5, 3]);
    expect(pages.map((page) => page.pagination)).toEqual(
      [0, 5, 10, 15, 20].map((offset) => ({ total: 23, limit: 5, offset, has_more: offset < 20 })),
    );
    const walked = pages.flatMap((page) => page.elements);
    const expected = [...(await stateObjects(board.board_uuid))].sort(listingOrder);
    expect(walked.map((element) => element.id)).toEqual(expected.map((object) => object.id));
    expect(new Set(walked.map((element) => element.id)).size).toBe(23);
  });

  it('a last page that is exactly full has no more', async () => {
    const { board } = await boardWith(10);
    const pages = await walkPages(board.board_uuid, 5);
    expect(pages.map((page) => page.pagination)).toEqual([
      { total: 10, limit: 5, offset: 0, has_more: true },
      { total: 10, limit: 5, offset: 5, has_more: false },
    ]);
  });

  it('an offset at or past the end answers an empty page that has no more', async () => {
    const { board } = await boardWith(3);
    for (const offset of [3, 1_000]) {
      const page = await listElements(board.board_uuid, `offset=${offset}&limit=10`);
      expect(page.status).toBe(200);
      expect(page.body).toEqual({ elements: [], pagination: { total: 3, limit: 10, offset, has_more: false } });
    }
  });

  it('accepts the largest limit, 200', async () => {
    const { board, created } = await boardWith(3);
    const page = await listElements(board.board_uuid, 'limit=200');
    expect(page.status).toBe(200);
    expect(page.body.pagination).toEqual({ total: 3, limit: 200, offset: 0, has_more: false });
    expect(page.body.elements.map((element: Element) => element.id)).toEqual(created.map((object) => object.id));
  });
});

describe('changes between page reads', () => {
  it('an object edited between two page reads keeps its place: no page repeats or skips it', async () => {
    const { board, created } = await boardWith(6);
    const first = (await listElements(board.board_uuid, 'limit=3')).body.elements as Element[];
    clock.advance(1);
    const edited = await server.api('PATCH', `/boards/${board.board_uuid}/objects/${created[0]!.id}`, {
      data: { text: 'edited' },
      position: { x: 6_000, y: 6_000 },
    });
    expect(edited.status).toBe(200);
    const second = (await listElements(board.board_uuid, 'limit=3&offset=3')).body.elements as Element[];
    expect([...first, ...second].map((element) => element.id)).toEqual(created.map((object) => object.id));
    const again = (await listElements(board.board_uuid, 'limit=3')).body.elements as Element[];
    expect(again[0]).toMatchObject({ id: created[0]!.id, data: { text: 'edited' } });
  });

  it('an object created between two page reads comes last, after every element read before', async () => {
    const { board, created } = await boardWith(4);
    const first = (await listElements(board.board_uuid, 'limit=2')).body.elements as Element[];
    const added = await postObject(board.board_uuid);
    const second = await listElements(board.board_uuid, 'limit=2&offset=2');
    const third = await listElements(board.board_uuid, 'limit=2&offset=4');
    const walked = [...first, ...second.body.elements, ...third.body.elements].map((element: Element) => element.id);
    expect(walked).toEqual([...created, added].map((object) => object.id));
    expect(third.body.pagination).toEqual({ total: 5, limit: 2, offset: 4, has_more: false });
  });

  it('deleting an element of a page already read moves the later elements one place earlier', async () => {
    const { board, created } = await boardWith(6);
    const first = (await listElements(board.board_uuid, 'limit=3')).body.elements as Element[];
    expect(first.map((element) => element.id)).toEqual(created.slice(0, 3).map((object) => object.id));
    const removed = await server.api('DELETE', `/boards/${board.board_uuid}/objects/${created[0]!.id}`);
    expect(removed.status).toBe(204);
    const second = await listElements(board.board_uuid, 'limit=3&offset=3');
    // The documented price of offsets: what was the fourth element is now the third.
    expect(second.body.elements.map((element: Element) => element.id)).toEqual(created.slice(4).map((object) => object.id));
    expect(second.body.pagination).toEqual({ total: 5, limit: 3, offset: 3, has_more: false });
  });
});

describe('pagination', () => {
  it('pagination=false answers every element as a plain array, in the order the pages walk', async () => {
    const { board } = await boardWith(60);
    const plain = await listElements(board.board_uuid, 'pagination=false');
    expect(plain.status).toBe(200);
    expect(Array.isArray(plain.body)).toBe(true);
    const walked = (await walkPages(board.board_uuid, 50)).flatMap((page) => page.elements);
    expect(plain.body).toEqual(walked);
    expect(plain.body).toHaveLength(60);
  });

  it('pagination=true is the default page', async () => {
    const { board } = await boardWith(2);
    const explicit = await listElements(board.board_uuid, 'pagination=true');
    expect(explicit.status).toBe(200);
    expect(explicit.body).toEqual((await listElements(board.board_uuid)).body);
    expect(explicit.body.pagination).toEqual({ total: 2, limit: 50, offset: 0, has_more: false });
  });

  it('lists an object a client wrote as a plain value without created_at first', async () => {
    const { board, created } = await boardWith(2);
    const client = connect(tokenOf(board.access_links.host), board.board_uuid);
    await client.synced();
    const id = `plain-${randomUUID()}`;
    client.doc.getMap('objects').set(id, { id, type: 'sticky', data: { text: 'plain' }, position: { x: 7_000, y: 7_000 } });
    await client.saved();
    const listed = await eventually(async () => {
      const page = await listElements(board.board_uuid);
      if (page.body.pagination.total !== 3) throw new Error('the plain object is not listed yet');
      return page.body.elements as Element[];
    });
    expect(listed.map((element) => element.id)).toEqual([id, ...created.map((object) => object.id)]);
    expect(listed[0]).toMatchObject({ id, data: { text: 'plain' } });
  });
});

describe('bad query values answer 400 with the API error body', () => {
  const cases: Array<[string, string, string]> = [
    ['a negative offset', 'offset=-1', 'offset'],
    ['a fractional offset', 'offset=1.5', 'offset'],
    ['limit 0', 'limit=0', 'limit'],
    ['a limit over 200', 'limit=201', 'limit'],
    ['a limit that is not a number', 'limit=ten', 'limit'],
    ['an empty limit', 'limit=', 'limit'],
    ['a limit given twice', 'limit=5&limit=6', 'limit'],
    ['a pagination that is not a boolean', 'pagination=maybe', 'pagination'],
    ['a limit with pagination=false', 'pagination=false&limit=10', 'limit'],
    ['an offset with pagination=false', 'pagination=false&offset=0', 'offset'],
  ];

  it.each(cases)('refuses %s', async (_name, query, field) => {
    const { board } = await boardWith(1);
    expectErrorBody(await listElements(board.board_uuid, query), { statusCode: 400, error: 'Bad Request', path: pathOf(board.board_uuid), field });
  });
});

describe('credentials and boards', () => {
  it('answers 401 without a credential and with an unknown token', async () => {
    const board = await createBoard(server, 'Credentials');
    const path = pathOf(board.board_uuid);
    expectErrorBody(await request(server.url, 'GET', path), { statusCode: 401, error: 'Unauthorized', path });
    expectErrorBody(await request(server.url, 'GET', `${path}?token=not-a-token`), { statusCode: 401, error: 'Unauthorized', path });
  });

  it('answers 404 for an unknown board and 403 for a board of another organization', async () => {
    const unknown = randomUUID();
    expectErrorBody(await listElements(unknown), { statusCode: 404, error: 'Not Found', path: pathOf(unknown) });
    const board = await createBoard(server, 'Other organization');
    const other = await server.newOrganization();
    const path = pathOf(board.board_uuid);
    expectErrorBody(await request(server.url, 'GET', path, undefined, { 'x-api-key': other.apiKey }), { statusCode: 403, error: 'Forbidden', path });
  });

  it('answers 410 once the board has expired', async () => {
    const board = await createBoard(server, 'Expiring', { expires_in_hours: 1 });
    expect((await listElements(board.board_uuid)).status).toBe(200);
    clock.advance(3_600_000 + 1);
    expectErrorBody(await listElements(board.board_uuid), { statusCode: 410, error: 'Gone', path: pathOf(board.board_uuid) });
  });

  it('answers a guest link the same elements as the API key on a board without zones', async () => {
    const { board } = await boardWith(3);
    const asGuest = await listElements(board.board_uuid, '', { authorization: `Bearer ${tokenOf(board.access_links.guest)}` });
    expect(asGuest.status).toBe(200);
    expect(asGuest.body).toEqual((await listElements(board.board_uuid)).body);
  });
});

describe('zone privacy', () => {
  const ZONE = { bounds_y: 0, bounds_width: 400, bounds_height: 400 };

  /** A board with an object outside any zone and one in each of a visible, a hidden and a host-only zone of `ada`. */
  async function classroom() {
    const board = await createBoard(server, 'Classroom');
    const id = board.board_uuid;
    const visible = await postFrame(server, id, { ...ZONE, bounds_x: 0, assigned_user_id: 'ada' });
    const hidden = await postFrame(server, id, { ...ZONE, bounds_x: 1_000, assigned_user_id: 'ada', zone_visibility: 'hidden' });
    const hostOnly = await postFrame(server, id, { ...ZONE, bounds_x: 2_000, assigned_user_id: 'ada', zone_visibility: 'host_only' });
    const objects = {
      outside: await postObject(id, { data: { text: 'outside' }, position: { x: 5_000, y: 50 } }),
      visible: await postObject(id, { data: { text: 'in-visible' }, position: { x: 50, y: 50 } }),
      hidden: await postObject(id, { data: { text: 'in-hidden' }, position: { x: 1_050, y: 50 } }),
      hostOnly: await postObject(id, { data: { text: 'in-host-only' }, position: { x: 2_050, y: 50 } }),
    };
    expect([objects.visible.zone_id, objects.hidden.zone_id, objects.hostOnly.zone_id]).toEqual([visible.id, hidden.id, hostOnly.id]);
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const callers = {
      host: bearer(tokenOf(board.access_links.host)),
      ada: bearer((await server.personalLink(id, 'ada')).token),
      bob: bearer((await server.personalLink(id, 'bob')).token),
      guest: bearer(tokenOf(board.access_links.guest)),
    };
    return { board, objects, callers };
  }

  it('each caller lists exactly what state.objects shows it: a student never sees a hidden or host-only zone’s content, nor counts it', async () => {
    const { board, objects, callers } = await classroom();
    const id = board.board_uuid;
    const expected: Array<[string, Record<string, string> | undefined, Element[]]> = [
      ['API key', undefined, [objects.outside, objects.visible, objects.hidden, objects.hostOnly]],
      ['host link', callers.host, [objects.outside, objects.visible, objects.hidden, objects.hostOnly]],
      ['owner ada', callers.ada, [objects.outside, objects.visible, objects.hidden]],
      ['student bob', callers.bob, [objects.outside, objects.visible]],
      ['shared guest link', callers.guest, [objects.outside, objects.visible]],
    ];
    for (const [who, headers, sees] of expected) {
      const page = await listElements(id, '', headers);
      expect(page.status, who).toBe(200);
      expect(page.body.elements.map((element: Element) => element.id), who).toEqual(sees.map((object) => object.id));
      expect(page.body.pagination.total, who).toBe(sees.length);
      const plain = await listElements(id, 'pagination=false', headers);
      expect([...plain.body].sort(listingOrder), who).toEqual([...(await stateObjects(id, headers))].sort(listingOrder));
    }
  });

  it('a student paging one element at a time never reaches hidden content', async () => {
    const { board, callers } = await classroom();
    const seen: string[] = [];
    for (let offset = 0; offset < 6; offset++) {
      const page = await listElements(board.board_uuid, `limit=1&offset=${offset}`, callers.bob);
      expect(page.status).toBe(200);
      seen.push(JSON.stringify(page.body));
    }
    expect(seen.join('')).not.toContain('in-hidden');
    expect(seen.join('')).not.toContain('in-host-only');
    expect(seen.join('')).toContain('in-visible');
  });
});

describe('ObjectService.elements on an in-memory document', () => {
  const BOARD_ID = randomUUID();
  const caller = organizationCaller('organization');

  /** A document of `count` objects created one millisecond apart, and a service reading it; `afterRead` runs after each read. */
  function serviceOver(count: number, afterRead: (doc: Y.Doc, reads: number) => void = () => undefined) {
    const doc = new Y.Doc();
    const objects: BoardObject[] = Array.from({ length: count }, (_, n) => ({
      id: randomUUID(),
      type: 'sticky',
      data: { n },
      position: { x: n, y: 0 },
      created_at: new Date(Date.UTC(2031, 0, 1, 0, 0, 0, n)).toISOString(),
      created_by: null,
    }));
    doc.transact(() => putObjects(doc, objects));
    let reads = 0;
    const documents = {
      async read<T>(_name: string, reader: (read: Y.Doc) => T): Promise<T> {
        const value = reader(doc);
        afterRead(doc, (reads += 1));
        return value;
      },
    } as Partial<LiveDocuments> as LiveDocuments;
    const deps: ObjectServiceDependencies = {
      boards: { get: async () => ({ id: BOARD_ID, organizationId: 'organization' }) as Board },
      documents,
      frames: { placement: async () => ({ readable: [{ document: BOARD_ID, zoneId: null }], placeAt: () => null, mayWrite: () => false }) },
      objectRules: { validateObjects: async () => undefined },
      clock: new ManualClock(),
    };
    return { service: new ObjectService(deps), objects };
  }

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('converts only the page’s objects to JSON, however large the document', async () => {
    const { service, objects } = serviceOver(2_000);
    const toJSON = vi.spyOn(Y.Map.prototype, 'toJSON');
    const list = await service.elements(caller, BOARD_ID, { pagination: true, limit: 10, offset: 1_500 });
    expect(list.elements.map((element) => element.id)).toEqual(objects.slice(1_500, 1_510).map((object) => object.id));
    expect(toJSON).toHaveBeenCalledTimes(10);
  });

  it('reads a page again when one of its objects is deleted between sorting and reading, so the page stays whole', async () => {
    const { service, objects } = serviceOver(6, (doc, reads) => {
      // The first read sorted the keys; the object goes before the page is read.
      if (reads === 1) doc.getMap('objects').delete(objects[1]!.id);
    });
    const list = await service.elements(caller, BOARD_ID, { pagination: true, limit: 3, offset: 0 });
    expect(list.elements.map((element) => element.id)).toEqual([objects[0], objects[2], objects[3]].map((object) => object!.id));
    expect(list.pagination).toEqual({ total: 5, limit: 3, offset: 0, has_more: true });
  });
});
