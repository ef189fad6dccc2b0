/**
 * npm run bench:write-check
 *
 * Shows that checking a socket update against the zone rules costs time in proportion to
 * the update, not to the document: the same one-object update is inspected against board
 * documents of 100 and 100,000 objects with 30 zones, and the time per check is printed.
 */
import * as Y from 'yjs';
import type { Frame } from '../src/frames/frame.js';
import { isForbiddenWrite } from '../src/frames/writeRules.js';
import { touchedObjects } from '../src/realtime/updateInspector.js';

const ITERATIONS = 10_000;

function boardWith(count: number): Y.Doc {
  const doc = new Y.Doc();
  const objects = doc.getMap<Y.Map<unknown>>('objects');
  doc.transact(() => {
    for (let i = 0; i < count; i += 1) {
      const id = `object-${i}`;
      objects.set(id, new Y.Map<unknown>([['id', id], ['type', 'sticky'], ['data', { text: `note ${i}` }], ['position', { x: (i % 1000) * 10, y: Math.floor(i / 1000) * 10 }], ['created_at', '2026-01-01T00:00:00.000Z'], ['created_by', 'host']]));
    }
  });
  return doc;
}

const zones: Frame[] = Array.from({ length: 30 }, (_, i) => ({
  id: `zone-${i}`, boardId: 'board', name: `zone ${i}`, order: i,
  bounds: { x: 20_000 + (i % 6) * 1300, y: Math.floor(i / 6) * 900, width: 1200, height: 800 },
  lockMode: 'none', backgroundColor: null, visibility: 'active', parentFrameId: null,
  assignedParticipantId: null, assignedUserId: `student-${i}`, zoneVisibility: 'hidden', zoneVersion: 1,
  createdAt: new Date(), updatedAt: new Date(),
}));

/** A guest's update that moves `moved` existing objects (made on a replica, as a client would). */
function moveUpdate(doc: Y.Doc, moved: number): Uint8Array {
  const replica = new Y.Doc();
  Y.applyUpdate(replica, Y.encodeStateAsUpdate(doc));
  let update: Uint8Array = new Uint8Array();
  replica.on('update', (u: Uint8Array) => (update = u));
  const objects = replica.getMap<Y.Map<unknown>>('objects');
  replica.transact(() => {
    for (let i = 0; i < moved; i += 1) objects.get(`object-${i * 7}`)!.set('position', { x: 21_000, y: 100 + i });
  });
  replica.destroy();
  return update;
}

function measure(count: number, moved: number) {
  const doc = boardWith(count);
  const update = moveUpdate(doc, moved);
  const objects = doc.getMap<Y.Map<unknown>>('objects');
  const check = () => {
    for (const change of touchedObjects(doc, update).values()) {
      const before = (objects.get(change.id)?.get('position') as { x: number; y: number } | undefined) ?? null;
      isForbiddenWrite({ role: 'guest', userId: 'student-1' }, { kind: 'board', zones }, { before, after: change.position ?? before });
    }
  };
  for (let i = 0; i < 2_000; i += 1) check();
  const started = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i += 1) check();
  const perCheckUs = Number(process.hrtime.bigint() - started) / 1e3 / ITERATIONS;
  return { 'document objects': count, 'objects in update': moved, 'update bytes': update.byteLength, 'µs per check': +perCheckUs.toFixed(2) };
}

const rows = [measure(100, 1), measure(100_000, 1), measure(100, 10), measure(100_000, 10)];
console.table(rows);
console.log(`same update, 100,000 vs 100 objects: ${(rows[1]!['µs per check'] / rows[0]!['µs per check']).toFixed(2)}x the time per check`);
console.log(`10x the update, same document: ${(rows[3]!['µs per check'] / rows[1]!['µs per check']).toFixed(2)}x the time per check`);
