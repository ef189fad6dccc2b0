import { randomUUID } from 'node:crypto';
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import * as Y from 'yjs';
import { serverForSuite, tokenOf } from '../helpers/fixtures.js';
import { countSyncAcks } from '../helpers/realtimeClient.js';
import { eventually, request } from '../helpers/testServer.js';

/**
 * The classroom flow end to end (docs/frames-and-zones.md): a teacher
 * prepares 30 hidden student zones, each student draws in its own zone's document, and
 * switching the zones to visible lets everyone look at (never edit) everyone's work.
 * Each student holds the personal link bulk assignment handed out for it, and shares one
 * socket between all the documents it opens.
 */

const STUDENTS = 30;
const COLUMNS = 6;
const SIZE = 300;
const PITCH = 400;

interface Bounds {
  x: number;
  y: number;
}
/** One document opened on a shared socket, with what the test watches on it. */
interface Opened {
  provider: HocuspocusProvider;
  doc: Y.Doc;
  refusals: string[];
  acks: { saved: number; refused: number };
  received: Uint8Array[];
}

const { server } = serverForSuite();
const sockets: HocuspocusProviderWebsocket[] = [];
const providers: HocuspocusProvider[] = [];

afterAll(() => {
  providers.splice(0).forEach((provider) => provider.destroy());
  sockets.splice(0).forEach((socket) => socket.destroy());
});

const studentId = (index: number) => `student-${index + 1}`;
const originOf = (index: number): Bounds => ({ x: (index % COLUMNS) * PITCH, y: Math.floor(index / COLUMNS) * PITCH });
const objectIds = (doc: Y.Doc) => [...doc.getMap('objects').keys()].sort();

/** One socket per participant, as a browser tab holding several documents would have. */
function openSocket(link: string, userId: string): HocuspocusProviderWebsocket {
  const socket = new HocuspocusProviderWebsocket({
    url: server.socketUrl(link, { user_id: userId }),
    WebSocketPolyfill: WebSocket,
    maxAttempts: 1,
  });
  socket.on('close', () => socket.disconnect());
  sockets.push(socket);
  return socket;
}

/** Opens a document on a shared socket (no awareness: content only). */
function open(socket: HocuspocusProviderWebsocket, name: string, token: string): Opened {
  const doc = new Y.Doc();
  const opened: Opened = { provider: undefined as unknown as HocuspocusProvider, doc, refusals: [], acks: { saved: 0, refused: 0 }, received: [] };
  const provider = new HocuspocusProvider({
    websocketProvider: socket,
    name,
    document: doc,
    token,
    awareness: null,
    onAuthenticationFailed: ({ reason }) => opened.refusals.push(reason),
  });
  countSyncAcks(provider, opened.acks);
  doc.on('update', (update: Uint8Array, origin: unknown) => {
    if (origin === provider) opened.received.push(update);
  });
  provider.attach();
  opened.provider = provider;
  providers.push(provider);
  return opened;
}

/** Draws `count` objects in one transaction. */
function draw(doc: Y.Doc, objects: Array<{ id: string; x: number; y: number; text: string; by: string }>): void {
  doc.transact(() => {
    for (const object of objects) {
      doc.getMap('objects').set(
        object.id,
        new Y.Map<unknown>([
          ['id', object.id],
          ['type', 'stroke'],
          ['data', { text: object.text }],
          ['position', { x: object.x, y: object.y }],
          ['created_at', new Date().toISOString()],
          ['created_by', object.by],
        ]),
      );
    }
  });
}

async function stateObjects(boardId: string, headers?: Record<string, string>): Promise<Array<Record<string, any>>> {
  const read = headers
    ? await request(server.url, 'GET', `/api/v1/boards/${boardId}`, undefined, headers)
    : await server.api('GET', `/boards/${boardId}`);
  expect(read.status).toBe(200);
  return read.body.state.objects;
}

describe('a classroom of 30 students in hidden, then visible zones', () => {
  it('each student draws only in its own zone, sees only its own until the teacher shows all, and can never edit another’s', { timeout: 120_000 }, async () => {
    // The teacher prepares the board: 30 non-overlapping frames, hidden before anyone is assigned.
    const created = await server.api('POST', '/boards', { title: 'Classroom' });
    expect(created.status).toBe(201);
    const boardId: string = created.body.board_uuid;
    const { host: hostLink, guest: guestLink } = created.body.access_links as { host: string; guest: string };
    const frames = `/boards/${boardId}/frames`;
    const zoneIds = await Promise.all(
      Array.from({ length: STUDENTS }, async (_, index) => {
        const { x, y } = originOf(index);
        const frame = await server.api('POST', frames, { name: `Zone ${index + 1}`, bounds_x: x, bounds_y: y, bounds_width: SIZE, bounds_height: SIZE });
        expect(frame.status).toBe(201);
        const hidden = await server.api('PATCH', `${frames}/${frame.body.id}`, { zone_visibility: 'hidden' });
        expect(hidden.status).toBe(200);
        return frame.body.id as string;
      }),
    );
    const bulk = await server.api('POST', `/boards/${boardId}/zones/bulk-assign`, {
      issue_links: true,
      assignments: zoneIds.map((frame_id, index) => ({ frame_id, user_id: studentId(index) })),
    });
    expect(bulk.status).toBe(200);
    expect(bulk.body).toMatchObject({ assigned: STUDENTS, failed: 0 });
    expect(bulk.body.results).toEqual(
      zoneIds.map((frame_id, index) => ({ frame_id, success: true, zone_version: 3, participant_link: expect.objectContaining({ user_id: studentId(index) }) })),
    );
    const studentLinks = (bulk.body.results as Array<{ participant_link: { link: string } }>).map((result) => result.participant_link.link);
    const zones = (await server.api('GET', `${frames}?assigned=true`)).body as Array<Record<string, any>>;
    expect(zones).toHaveLength(STUDENTS);
    for (const zone of zones) expect(zone).toMatchObject({ zone_visibility: 'hidden', assigned_user_id: studentId(zoneIds.indexOf(zone.id)) });
    const zoneDocument = (index: number) => `${boardId}/zones/${zoneIds[index]}`;

    // Every student opens its own zone document with its personal link and draws in it.
    const studentToken = (index: number) => tokenOf(studentLinks[index]!);
    const studentSockets = Array.from({ length: STUDENTS }, (_, index) => openSocket(studentLinks[index]!, studentId(index)));
    const own = studentSockets.map((socket, index) => open(socket, zoneDocument(index), studentToken(index)));
    await eventually(() => own.every((opened) => opened.provider.isSynced && opened.provider.unsyncedChanges === 0), 20_000);
    expect(own.every((opened) => opened.provider.authorizedScope === 'read-write')).toBe(true);
    own.forEach((opened, index) => {
      const { x, y } = originOf(index);
      draw(opened.doc, [
        { id: `s${index + 1}-a`, x: x + 20, y: y + 20, text: `${studentId(index)} first`, by: studentId(index) },
        { id: `s${index + 1}-b`, x: x + SIZE - 20, y: y + SIZE / 2, text: `${studentId(index)} second`, by: studentId(index) },
      ]);
    });
    await eventually(() => own.every((opened) => opened.provider.unsyncedChanges === 0 && opened.acks.saved > 0), 20_000);
    expect(own.flatMap((opened) => opened.refusals)).toEqual([]);
    const expectedIds = (index: number) => [`s${index + 1}-a`, `s${index + 1}-b`];

    // Hidden: a student is refused every other student's zone (on a second socket, closed afterwards),
    // and so is the shared guest link, whoever it says it is.
    const probeSockets = Array.from({ length: STUDENTS }, (_, index) => openSocket(studentLinks[index]!, studentId(index)));
    const probes = probeSockets.flatMap((socket, index) =>
      zoneIds.map((_, other) => other).filter((other) => other !== index).map((other) => open(socket, zoneDocument(other), studentToken(index))),
    );
    const impostor = openSocket(guestLink, studentId(0));
    probes.push(open(impostor, zoneDocument(0), tokenOf(guestLink)));
    await eventually(() => probes.every((probe) => probe.refusals.length > 0), 30_000);
    expect(new Set(probes.flatMap((probe) => probe.refusals))).toEqual(new Set(['zone-forbidden']));
    expect(probes.some((probe) => probe.provider.isSynced || probe.doc.getMap('objects').size > 0)).toBe(false);
    for (const socket of [...probeSockets, impostor]) socket.destroy();
    // ...and REST shows each student only its own drawing.
    await Promise.all(
      own.map(async (_, index) => {
        const objects = await stateObjects(boardId, { authorization: `Bearer ${studentToken(index)}` });
        expect(objects.map((object) => object.id).sort()).toEqual(expectedIds(index));
      }),
    );

    // The teacher sees everything: over REST and by opening every zone document on one socket.
    const all = await stateObjects(boardId);
    expect(all).toHaveLength(2 * STUDENTS);
    for (const object of all) {
      const index = zoneIds.indexOf(object.zone_id);
      expect(expectedIds(index)).toContain(object.id);
      expect(object).toMatchObject({ type: 'stroke', created_by: studentId(index) });
    }
    const hostSocket = openSocket(hostLink, 'teacher');
    const hostViews = zoneIds.map((_, index) => open(hostSocket, zoneDocument(index), tokenOf(hostLink)));
    await eventually(() => hostViews.every((view) => view.provider.isSynced), 20_000);
    hostViews.forEach((view, index) => expect(objectIds(view.doc)).toEqual(expectedIds(index)));

    // The teacher shows every zone to everyone.
    await Promise.all(
      zoneIds.map(async (zoneId) => {
        const shown = await server.api('PATCH', `${frames}/${zoneId}`, { zone_visibility: 'visible' });
        expect(shown.status).toBe(200);
        expect(shown.body.zone_visibility).toBe('visible');
      }),
    );

    // Now every student opens every other zone, read-only, and sees its content.
    const views = studentSockets.map((socket, index) =>
      zoneIds.map((_, other) => (other === index ? own[index]! : open(socket, zoneDocument(other), studentToken(index)))),
    );
    const othersOf = (index: number) => views[index]!.filter((_, other) => other !== index);
    // Synced, and each handshake's own acknowledgement is in: later acks answer later writes.
    await eventually(() => views.every((row) => row.every((view) => view.provider.isSynced && view.provider.unsyncedChanges === 0)), 30_000);
    views.forEach((row, index) => {
      row.forEach((view, other) => expect(objectIds(view.doc)).toEqual(expectedIds(other)));
      expect(othersOf(index).every((view) => view.provider.authorizedScope === 'readonly')).toBe(true);
      expect(othersOf(index).flatMap((view) => view.refusals)).toEqual([]);
    });

    // A student's write into a neighbour's zone is refused; nobody receives it.
    const attempts = views.map((row, index) => {
      const neighbour = (index + 1) % STUDENTS;
      const { x, y } = originOf(neighbour);
      const marker = `graffiti-${randomUUID()}`;
      const target = row[neighbour]!;
      const acksBefore = { ...target.acks };
      draw(target.doc, [{ id: `graffiti-${index + 1}`, x: x + 50, y: y + 50, text: marker, by: studentId(index) }]);
      return { target, marker, acksBefore };
    });
    await eventually(() => attempts.every(({ target, acksBefore }) => target.acks.refused > acksBefore.refused), 20_000);
    expect(attempts.every(({ target, acksBefore }) => target.acks.saved === acksBefore.saved)).toBe(true);
    // Barrier: each owner writes once more; once everyone has every owner's write, a broadcast of the graffiti would have arrived too.
    own.forEach((opened, index) => {
      const { x, y } = originOf(index);
      draw(opened.doc, [{ id: `s${index + 1}-c`, x: x + 100, y: y + 100, text: `${studentId(index)} third`, by: studentId(index) }]);
    });
    const finalIds = (index: number) => [...expectedIds(index), `s${index + 1}-c`];
    await eventually(() => views.every((row) => row.every((view, other) => view.doc.getMap('objects').has(`s${other + 1}-c`))), 30_000);
    await eventually(() => hostViews.every((view, index) => view.doc.getMap('objects').has(`s${index + 1}-c`)), 20_000);
    const everyView = [...views.flat(), ...hostViews];
    for (const { marker } of attempts) {
      expect(everyView.some((view) => view.received.some((update) => Buffer.from(update).toString('latin1').includes(marker)))).toBe(false);
    }
    hostViews.forEach((view, index) => expect(objectIds(view.doc)).toEqual(finalIds(index)));
    own.forEach((opened, index) => expect(objectIds(opened.doc)).toEqual(finalIds(index)));

    // REST agrees, for the teacher and for a student alike.
    const expectedAll = zoneIds.flatMap((_, index) => finalIds(index)).sort();
    expect((await stateObjects(boardId)).map((object) => object.id).sort()).toEqual(expectedAll);
    const asStudent = await stateObjects(boardId, { authorization: `Bearer ${studentToken(0)}` });
    expect(asStudent.map((object) => object.id).sort()).toEqual(expectedAll);
    expect(JSON.stringify(asStudent)).not.toContain('graffiti');
  });
});
