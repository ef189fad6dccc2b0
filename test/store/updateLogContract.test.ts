import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import type { Database } from '../../src/store/database.js';
import { DocumentStore } from '../../src/store/documentStore.js';
import { forEachStoreAdapter, insertBoard, type ContractDatabase } from '../helpers/storeAdapters.js';

/**
 * The update-log port (src/store/updateLog.ts) and the document store reading what it wrote:
 * one contract, run against the SQLite and the PostgreSQL adapter.
 */

/** A Yjs update that sets `objects[key] = value` on top of `doc` (and applies it there). */
function change(doc: Y.Doc, key: string, value: string): Uint8Array {
  const before = Y.encodeStateVector(doc);
  doc.getMap('objects').set(key, value);
  return Y.encodeStateAsUpdate(doc, before);
}

/** `count` successive updates of one fresh document. */
function updates(count: number, prefix = 'k'): { doc: Y.Doc; updates: Uint8Array[] } {
  const doc = new Y.Doc();
  return { doc, updates: Array.from({ length: count }, (_, i) => change(doc, `${prefix}${i}`, `v${i}`)) };
}

const objectsOf = (state: Uint8Array | null): Record<string, unknown> => {
  const doc = new Y.Doc();
  if (state) Y.applyUpdate(doc, state);
  return doc.getMap('objects').toJSON();
};

const boardCounters = async (database: Database, id: string) =>
  database.prisma.board.findUniqueOrThrow({ where: { id }, select: { stateVersion: true, objectsCount: true } });

const bytes = (parts: Uint8Array[]) => parts.map((part) => Buffer.from(part).toString('hex'));

export function registerUpdateLogContract(open: () => ContractDatabase): void {
  const store = () => new DocumentStore(open().current);

  describe('append and read', () => {
    it('reads a document’s updates back in the order they were appended, across appends', async () => {
      const name = randomUUID();
      const { doc, updates: written } = updates(5);
      const first = await store().append([{ name, updates: written.slice(0, 3) }]);
      const second = await store().append([{ name, updates: written.slice(3) }]);
      expect(second.get(name)!.lastSeq).toBeGreaterThan(first.get(name)!.lastSeq);
      const read = await store().loadParts(name);
      expect(bytes(read.parts)).toEqual(bytes(written));
      expect(read.lastSeq).toBe(second.get(name)!.lastSeq);
      expect(objectsOf((await store().load(name)).state)).toEqual(doc.getMap('objects').toJSON());
    });

    it('knows nothing of a document never written', async () => {
      expect(await store().load(randomUUID())).toEqual({ state: null, lastSeq: 0 });
    });

    it('keeps each document’s updates to itself', async () => {
      const [a, b] = [randomUUID(), randomUUID()];
      const [ofA, ofB] = [updates(2, 'a'), updates(3, 'b')];
      await store().append([{ name: a, updates: ofA.updates }, { name: b, updates: ofB.updates }]);
      expect(bytes((await store().loadParts(a)).parts)).toEqual(bytes(ofA.updates));
      expect(bytes((await store().loadParts(b)).parts)).toEqual(bytes(ofB.updates));
    });
  });

  describe('group commit', () => {
    it('commits a batch of several documents at once, numbering them in batch order', async () => {
      const names = Array.from({ length: 4 }, () => randomUUID());
      const results = await store().append(names.map((name, i) => ({ name, updates: updates(i + 1).updates })));
      expect([...results.keys()]).toEqual(names);
      const seqs = names.map((name) => results.get(name)!.lastSeq);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      expect(new Set(seqs).size).toBe(names.length);
      for (const [i, name] of names.entries()) expect((await store().loadParts(name)).parts).toHaveLength(i + 1);
    });

    it('stores every one of many concurrent appends, each under its own sequence numbers', async () => {
      const name = randomUUID();
      const { doc, updates: written } = updates(20);
      const results = await Promise.all(written.map((update) => store().append([{ name, updates: [update] }])));
      const seqs = results.map((result) => result.get(name)!.lastSeq);
      expect(new Set(seqs).size).toBe(written.length);
      const read = await store().loadParts(name);
      expect(read.parts).toHaveLength(written.length);
      expect(read.lastSeq).toBe(Math.max(...seqs));
      expect(objectsOf((await store().load(name)).state)).toEqual(doc.getMap('objects').toJSON());
    });

    it('stores nothing of a batch one of whose entries the database refuses', async () => {
      const kept = randomUUID();
      const refused = { name: null as unknown as string, updates: updates(1).updates };
      await expect(store().append([{ name: kept, updates: updates(2).updates }, refused])).rejects.toThrow();
      expect(await store().load(kept)).toEqual({ state: null, lastSeq: 0 });
    });
  });

  describe('board versions', () => {
    it('moves a board’s state_version by the updates appended and sets its objects_count, in the same commit', async () => {
      const database = open().current;
      const boardId = await insertBoard(database);
      const { updates: written } = updates(3);
      const first = await store().append([{ name: boardId, updates: written.slice(0, 2), board: { id: boardId, objectsCount: 2 } }]);
      expect(first.get(boardId)).toEqual({ lastSeq: expect.any(Number), stateVersion: 2 });
      const second = await store().append([{ name: boardId, updates: written.slice(2), board: { id: boardId, objectsCount: 3 } }]);
      expect(second.get(boardId)!.stateVersion).toBe(3);
      expect(await boardCounters(database, boardId)).toEqual({ stateVersion: 3, objectsCount: 3 });
    });

    it('keeps a zone document’s object count on its frame, moving its board’s state_version but not the board’s own objects_count', async () => {
      const database = open().current;
      const boardId = await insertBoard(database);
      const frameId = randomUUID();
      const now = new Date();
      await database.prisma.frame.create({
        data: { id: frameId, boardId, name: 'Zone', boundsX: 0, boundsY: 0, boundsWidth: 400, boundsHeight: 400, lockMode: 'none', visibility: 'active', zoneVisibility: 'visible', zoneVersion: 1, createdAt: now, updatedAt: now },
      });
      const zone = `${boardId}/zones/${frameId}`;
      const { updates: written } = updates(3);
      await store().append([
        { name: boardId, updates: updates(1).updates, board: { id: boardId, objectsCount: 1 } },
        { name: zone, updates: written.slice(0, 2), board: { id: boardId, objectsCount: 2 } },
      ]);
      const frameCount = async () => (await database.prisma.frame.findUniqueOrThrow({ where: { id: frameId } })).objectsCount;
      expect(await boardCounters(database, boardId)).toEqual({ stateVersion: 3, objectsCount: 1 });
      expect(await frameCount()).toBe(2);
      const last = await store().append([{ name: zone, updates: written.slice(2), board: { id: boardId, objectsCount: 3 } }]);
      expect(last.get(zone)!.stateVersion).toBe(4);
      expect(await boardCounters(database, boardId)).toEqual({ stateVersion: 4, objectsCount: 1 });
      expect(await frameCount()).toBe(3);
    });

    it('leaves the counters alone for a zone document and stores the update of a board that has no row', async () => {
      const database = open().current;
      const boardId = await insertBoard(database);
      const zone = await store().append([{ name: `${boardId}/zones/${randomUUID()}`, updates: updates(2).updates }]);
      expect([...zone.values()][0]).toEqual({ lastSeq: expect.any(Number) });
      expect(await boardCounters(database, boardId)).toEqual({ stateVersion: 0, objectsCount: 0 });
      const unknown = randomUUID();
      const result = await store().append([{ name: unknown, updates: updates(1).updates, board: { id: unknown, objectsCount: 1 } }]);
      expect(result.get(unknown)).toEqual({ lastSeq: expect.any(Number) });
      expect((await store().loadParts(unknown)).parts).toHaveLength(1);
    });
  });

  describe('snapshots and compaction', () => {
    it('replaces the log rows a snapshot covers and keeps the tail after it', async () => {
      const name = randomUUID();
      const { doc, updates: written } = updates(5);
      const covered = (await store().append([{ name, updates: written.slice(0, 3) }])).get(name)!.lastSeq;
      const last = (await store().append([{ name, updates: written.slice(3) }])).get(name)!.lastSeq;
      const snapshot = Y.mergeUpdates(written.slice(0, 3));
      await store().saveSnapshot(name, snapshot, covered);
      const read = await store().loadParts(name);
      expect(bytes(read.parts)).toEqual(bytes([snapshot, ...written.slice(3)]));
      expect(read.lastSeq).toBe(last);
      expect(objectsOf((await store().load(name)).state)).toEqual(doc.getMap('objects').toJSON());
    });

    it('answers the snapshot’s sequence number once the snapshot covers the whole log', async () => {
      const name = randomUUID();
      const { updates: written } = updates(2);
      const last = (await store().append([{ name, updates: written }])).get(name)!.lastSeq;
      await store().saveSnapshot(name, Y.mergeUpdates(written), last);
      expect((await store().loadParts(name)).parts).toHaveLength(1);
      expect((await store().load(name)).lastSeq).toBe(last);
    });

    it('answers the last sequence number a document’s stored state covers: 0 for none, growing with appends, kept by compaction', async () => {
      const name = randomUUID();
      const { updates: written } = updates(3);
      expect(await store().lastSeq(name)).toBe(0);
      const first = (await store().append([{ name, updates: written.slice(0, 2) }])).get(name)!.lastSeq;
      expect(await store().lastSeq(name)).toBe(first);
      await store().saveSnapshot(name, Y.mergeUpdates(written.slice(0, 2)), first);
      expect(await store().lastSeq(name)).toBe(first);
      const next = (await store().append([{ name, updates: written.slice(2) }])).get(name)!.lastSeq;
      expect(next).toBeGreaterThan(first);
      expect(await store().lastSeq(name)).toBe(next);
    });

    it('merges a document’s snapshot and tail into one state covering its last row (what a compaction stores)', async () => {
      const name = randomUUID();
      const { doc, updates: written } = updates(6);
      const covered = (await store().append([{ name, updates: written.slice(0, 2) }])).get(name)!.lastSeq;
      await store().saveSnapshot(name, Y.mergeUpdates(written.slice(0, 2)), covered);
      const last = (await store().append([{ name, updates: written.slice(2) }])).get(name)!.lastSeq;
      const merged = await store().loadMerged(name);
      expect(merged.lastSeq).toBe(last);
      expect(objectsOf(merged.state)).toEqual(doc.getMap('objects').toJSON());
      // A fresh document holding every part: the same state as the whole log applied in order.
      expect(Buffer.from(merged.state).toString('hex')).toBe(Buffer.from(Y.encodeStateAsUpdate(doc)).toString('hex'));
    });

    it('does not let a repaired snapshot replace one reaching further', async () => {
      const name = randomUUID();
      const { updates: written } = updates(4);
      const early = (await store().append([{ name, updates: written.slice(0, 2) }])).get(name)!.lastSeq;
      const late = (await store().append([{ name, updates: written.slice(2) }])).get(name)!.lastSeq;
      const newer = Y.mergeUpdates(written);
      await store().saveSnapshot(name, newer, late);
      expect(await store().saveRepairedSnapshot(name, Y.mergeUpdates(written.slice(0, 2)), early)).toBe(false);
      expect(bytes((await store().loadParts(name)).parts)).toEqual(bytes([newer]));
      expect(await store().saveRepairedSnapshot(name, newer, late)).toBe(true);
    });
  });

  it('deletes a board’s document and its zone documents, and nothing else', async () => {
    const boardId = randomUUID();
    const zone = `${boardId}/zones/${randomUUID()}`;
    const neighbour = `${boardId}0`;
    const { updates: written } = updates(2);
    const last = (await store().append([boardId, zone, neighbour].map((name) => ({ name, updates: written })))).get(boardId)!.lastSeq;
    await store().saveSnapshot(boardId, Y.mergeUpdates(written), last);
    await store().deleteBoardDocuments(boardId);
    expect(await store().load(boardId)).toEqual({ state: null, lastSeq: 0 });
    expect(await store().load(zone)).toEqual({ state: null, lastSeq: 0 });
    expect((await store().loadParts(neighbour)).parts).toHaveLength(2);
  });

  describe('across a reopen', () => {
    it('reads the same documents and never numbers a new update below an old one, compacted or not', async () => {
      const [compacted, kept] = [randomUUID(), randomUUID()];
      const { updates: written } = updates(3);
      const before = await store().append([{ name: compacted, updates: written }, { name: kept, updates: written }]);
      await store().saveSnapshot(compacted, Y.mergeUpdates(written), before.get(compacted)!.lastSeq);
      const states = { compacted: await store().loadParts(compacted), kept: await store().loadParts(kept) };
      await open().reopen();
      expect(await store().loadParts(compacted)).toEqual(states.compacted);
      expect(await store().loadParts(kept)).toEqual(states.kept);
      const after = await store().append([{ name: compacted, updates: updates(1, 'later').updates }]);
      expect(after.get(compacted)!.lastSeq).toBeGreaterThan(before.get(kept)!.lastSeq);
    });
  });
}

forEachStoreAdapter('update log', registerUpdateLogContract);
