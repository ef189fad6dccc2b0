import { randomUUID } from 'node:crypto';
import { HocuspocusProvider } from '@hocuspocus/provider';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { serverForSuite, type CreatedBoard, tokenOf, createBoard, postFrame } from '../helpers/fixtures.js';
import { addObject, connectBoardClient, type BoardClient, countSyncAcks } from '../helpers/realtimeClient.js';
import { eventually, request } from '../helpers/testServer.js';

/**
 * Zone visibility and permissions (docs/frames-and-zones.md): who may open a zone's own
 * document (`<board_uuid>/zones/<frame_id>`), whether read-only, and which zone objects
 * `GET /boards/:id` shows each caller. The expectations are written out here, not derived
 * from src/frames/zonePermissions.ts.
 */

type Role = 'host' | 'owner' | 'other';
type ZoneVisibility = 'visible' | 'hidden' | 'host_only';
type Access = 'write' | 'read' | 'none';

const OWNER = 'owner-1';
const OTHER = 'other-1';
const ZONE = { bounds_x: 100, bounds_y: 100, bounds_width: 400, bounds_height: 300 };

/** A provider client plus what the tests watch on it. */
interface Client extends BoardClient {
  /** Updates that came from the server, as raw bytes. */
  received: Uint8Array[];
  /** `authenticationFailed` reasons (the server refused to open the document). */
  refusals: string[];
  /** SyncStatus answers for this client's updates. */
  acks: { saved: number; refused: number };
}

const { server, clients } = serverForSuite();
const extraProviders: HocuspocusProvider[] = [];

afterEach(() => {
  extraProviders.splice(0).forEach((provider) => provider.destroy());
});

const zoneDocument = (board: CreatedBoard, frameId: string) => `${board.board_uuid}/zones/${frameId}`;
const marker = (what: string) => `${what}-${randomUUID()}`;
const contains = (updates: Uint8Array[], text: string) => updates.some((update) => Buffer.from(update).toString('latin1').includes(text));

/** Connects `userId` with an access link to a document (not awaited: it may be refused). */
function connect(link: string, userId: string, name: string): Client {
  const base = connectBoardClient({ url: server.socketUrl(link, { user_id: userId }), name });
  clients.push(base);
  const client: Client = { ...base, received: [], refusals: [], acks: { saved: 0, refused: 0 } };
  base.doc.on('update', (update: Uint8Array, origin: unknown) => {
    if (origin === base.provider) client.received.push(update);
  });
  base.provider.on('authenticationFailed', ({ reason }: { reason: string }) => client.refusals.push(reason));
  countSyncAcks(base.provider, client.acks);
  return client;
}

async function connectSynced(link: string, userId: string, name: string): Promise<Client> {
  const client = connect(link, userId, name);
  // Synced, and the handshake's own acknowledgement is in: later acks answer later writes.
  await client.saved();
  return client;
}

const newBoard = () => createBoard(server, 'Zone matrix');

const createFrame = (board: CreatedBoard, body: Record<string, unknown>) => postFrame(server, board.board_uuid, body);

/** `GET /boards/:id` as the API key, or with a board token and an optional declared user id. */
async function stateObjects(board: CreatedBoard, as?: { link: string; userId?: string }): Promise<Array<Record<string, any>>> {
  const path = `/boards/${board.board_uuid}`;
  const read = as
    ? await request(server.url, 'GET', `/api/v1${path}`, undefined, {
        authorization: `Bearer ${tokenOf(as.link)}`,
        ...(as.userId ? { 'x-user-id': as.userId } : {}),
      })
    : await server.api('GET', path);
  expect(read.status).toBe(200);
  return read.body.state.objects;
}

const userOf: Record<Role, string> = { host: 'teacher', owner: OWNER, other: OTHER };
/** The host link, or the personal link of the owner or of the other student (only a personal link owns a zone). */
const linkOf = async (board: CreatedBoard, role: Role) =>
  role === 'host' ? board.access_links.host : (await server.personalLink(board.board_uuid, userOf[role])).link;

const ROLE_NAMES: Record<Role, string> = { host: 'host', owner: 'owner', other: 'other guest' };
const OUTCOMES: Record<Access, string> = {
  write: 'opens the zone document read-write and its writes reach a second client and REST',
  read: 'opens the zone document read-only and its writes reach nobody',
  none: 'is refused the zone document (zone-forbidden) while its socket stays usable',
};

/** The host reads and writes all; visible = owner writes, others read; hidden = owner only; host_only = host only. */
const MATRIX: Array<{ visibility: ZoneVisibility; role: Role; access: Access }> = [
  { visibility: 'visible', role: 'host', access: 'write' },
  { visibility: 'visible', role: 'owner', access: 'write' },
  { visibility: 'visible', role: 'other', access: 'read' },
  { visibility: 'hidden', role: 'host', access: 'write' },
  { visibility: 'hidden', role: 'owner', access: 'write' },
  { visibility: 'hidden', role: 'other', access: 'none' },
  { visibility: 'host_only', role: 'host', access: 'write' },
  { visibility: 'host_only', role: 'owner', access: 'none' },
  { visibility: 'host_only', role: 'other', access: 'none' },
];

describe('opening and writing a zone document, per zone_visibility and role', () => {
  for (const { visibility, role, access } of MATRIX) {
    it(`in a ${visibility} zone the ${ROLE_NAMES[role]} ${OUTCOMES[access]}`, async () => {
      const board = await newBoard();
      const zone = await createFrame(board, { ...ZONE, assigned_user_id: OWNER, zone_visibility: visibility });
      const name = zoneDocument(board, zone.id);
      // Two host clients: one writes the zone's content and the barriers, the other only watches.
      const writer = await connectSynced(board.access_links.host, 'host-writer', name);
      const observer = await connectSynced(board.access_links.host, 'host-observer', name);
      const seed = marker('seed');
      addObject(writer.doc, { id: 'seed', data: { text: seed }, x: 150, y: 150 });
      await writer.saved();
      await eventually(() => observer.doc.getMap('objects').has('seed'));

      const link = await linkOf(board, role);
      const client = connect(link, userOf[role], name);

      if (access === 'none') {
        await eventually(() => client.refusals.length > 0);
        expect(client.refusals).toEqual(['zone-forbidden']);
        expect(client.provider.isSynced).toBe(false);
        expect(client.doc.getMap('objects').size).toBe(0);
        expect(contains(client.received, seed)).toBe(false);
        // Refused for that document only: the same socket still opens the board document.
        const boardProvider = new HocuspocusProvider({ websocketProvider: client.socket, name: board.board_uuid, token: tokenOf(link) });
        extraProviders.push(boardProvider);
        boardProvider.attach();
        await eventually(() => boardProvider.isSynced);
        expect(client.closes).toEqual([]);
        // Content written later does not reach the refused client either.
        const later = marker('later');
        addObject(writer.doc, { id: 'later', data: { text: later }, x: 160, y: 160 });
        await writer.saved();
        await eventually(() => observer.doc.getMap('objects').has('later'));
        expect(contains(client.received, later)).toBe(false);
        return;
      }

      await client.saved(); // synced, handshake acknowledged
      expect(client.provider.authorizedScope).toBe(access === 'write' ? 'read-write' : 'readonly');
      expect((client.doc.getMap('objects').get('seed') as Y.Map<unknown>).get('data')).toEqual({ text: seed });

      const attempt = marker('attempt');
      const acksBefore = { ...client.acks };
      addObject(client.doc, { id: 'attempt', data: { text: attempt }, x: 200, y: 200, createdBy: userOf[role] });
      if (access === 'write') {
        await client.saved();
        await eventually(() => observer.doc.getMap('objects').has('attempt'));
        expect(contains(observer.received, attempt)).toBe(true);
        const objects = await stateObjects(board);
        expect(objects.find((object) => object.id === 'attempt')).toMatchObject({ data: { text: attempt }, position: { x: 200, y: 200 }, zone_id: zone.id });
        return;
      }

      // Read-only: the server answers "not applied" and keeps the update to itself.
      await eventually(() => client.acks.refused > acksBefore.refused);
      expect(client.acks.saved).toBe(acksBefore.saved);
      // Barrier: a later host write reaches the observer, so a broadcast of the attempt would have too.
      addObject(writer.doc, { id: 'barrier', data: {}, x: 170, y: 170 });
      await writer.saved();
      await eventually(() => observer.doc.getMap('objects').has('barrier'));
      await eventually(() => client.doc.getMap('objects').has('barrier'));
      expect(observer.doc.getMap('objects').has('attempt')).toBe(false);
      expect(contains(observer.received, attempt)).toBe(false);
      expect(writer.doc.getMap('objects').has('attempt')).toBe(false);
      const objects = await stateObjects(board);
      expect(objects.map((object) => object.id).sort()).toEqual(['barrier', 'seed']);
      expect(JSON.stringify(objects)).not.toContain(attempt);
    });
  }
});

describe('GET /boards/:id state.objects holds exactly the zone objects the caller may read', () => {
  let board: CreatedBoard;
  const frames: Record<'visible' | 'hidden' | 'hostOnly' | 'plain', string> = { visible: '', hidden: '', hostOnly: '', plain: '' };

  beforeAll(async () => {
    board = await newBoard();
    frames.visible = (await createFrame(board, { bounds_x: 0, bounds_y: 0, assigned_user_id: OWNER, zone_visibility: 'visible' })).id;
    frames.hidden = (await createFrame(board, { bounds_x: 2000, bounds_y: 0, assigned_user_id: OWNER, zone_visibility: 'hidden' })).id;
    frames.hostOnly = (await createFrame(board, { bounds_x: 4000, bounds_y: 0, assigned_user_id: OWNER, zone_visibility: 'host_only' })).id;
    frames.plain = (await createFrame(board, { bounds_x: 6000, bounds_y: 0 })).id;
    const note = await server.api('POST', `/boards/${board.board_uuid}/objects`, { type: 'note', data: { text: 'on the board' }, position: { x: 0, y: 5000 } });
    expect(note.status).toBe(201);
    for (const [key, frameId] of Object.entries(frames)) {
      const host = await connectSynced(board.access_links.host, 'teacher', zoneDocument(board, frameId));
      addObject(host.doc, { id: `in-${key}`, data: { text: key }, x: 10, y: 10 });
      await host.saved();
    }
  });

  const boardNote = (objects: Array<Record<string, any>>) => objects.find((object) => object.zone_id === undefined);
  const zoneObjects = (objects: Array<Record<string, any>>) =>
    objects
      .filter((object) => object.zone_id !== undefined)
      .map((object) => ({ id: object.id as string, zone_id: object.zone_id as string }))
      .sort((a, b) => a.id.localeCompare(b.id));
  const expected = (...keys: Array<keyof typeof frames>) =>
    keys.map((key) => ({ id: `in-${key}`, zone_id: frames[key] })).sort((a, b) => a.id.localeCompare(b.id));

  type View = { link: string; userId?: string } | undefined;
  const personal = async (b: CreatedBoard, userId: string): Promise<View> => ({ link: (await server.personalLink(b.board_uuid, userId)).link });
  const VIEWS: Array<{ who: string; as: (board: CreatedBoard) => View | Promise<View>; sees: Array<keyof typeof frames> }> = [
    { who: 'the host with the API key', as: () => undefined, sees: ['visible', 'hidden', 'hostOnly', 'plain'] },
    { who: 'the host with the host token', as: (b) => ({ link: b.access_links.host, userId: 'teacher' }), sees: ['visible', 'hidden', 'hostOnly', 'plain'] },
    { who: 'the owner (its personal link)', as: (b) => personal(b, OWNER), sees: ['visible', 'hidden', 'plain'] },
    { who: 'another student (its personal link)', as: (b) => personal(b, OTHER), sees: ['visible', 'plain'] },
    { who: 'a shared-link guest declaring the owner’s id (X-User-Id)', as: (b) => ({ link: b.access_links.guest, userId: OWNER }), sees: ['visible', 'plain'] },
    { who: 'a guest without a declared user id', as: (b) => ({ link: b.access_links.guest }), sees: ['visible', 'plain'] },
  ];

  for (const { who, as, sees } of VIEWS) {
    it(`${who} sees the board object and exactly the zone objects it may read, each with its zone_id`, async () => {
      const objects = await stateObjects(board, await as(board));
      expect(boardNote(objects)).toMatchObject({ type: 'note', data: { text: 'on the board' } });
      expect(objects.filter((object) => object.zone_id === undefined)).toHaveLength(1);
      expect(zoneObjects(objects)).toEqual(expected(...sees));
      for (const object of objects.filter((o) => o.zone_id !== undefined)) {
        expect(object).toMatchObject({ type: 'sticky', position: { x: 10, y: 10 } });
      }
    });
  }
});
