import fc from 'fast-check';
import { expect, it } from 'vitest';
import * as Y from 'yjs';
import { DocumentStore } from '../../src/store/documentStore.js';
import { forEachStoreAdapter, insertBoard, type ContractDatabase } from '../helpers/storeAdapters.js';

/**
 * Several instances hold one document, each appending the updates its own clients send and
 * missing, in memory, what the others appended lately. `compactStored` compacts from the
 * store, so a compaction by any of them, even several at once and between appends, never
 * drops a row's content.
 */

/**
 * Two writers (instances) on one document: each has its own Y.Doc and appends its own updates.
 * A compaction step runs one or two compactions at once, and may have a writer append meanwhile.
 */
type Step = { kind: 'write'; writer: 0 | 1; count: number } | { kind: 'compact'; at: 1 | 2; meanwhile: 0 | 1 | null };

const writer = fc.constantFrom(0 as const, 1 as const);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), writer, count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('compact' as const), at: fc.constantFrom(1 as const, 2 as const), meanwhile: fc.option(writer) }),
);

/** Sets `count` new keys in a writer's document; answers its updates and the keys. */
function write(doc: Y.Doc, prefix: string, count: number): { updates: Uint8Array[]; keys: string[] } {
  const updates: Uint8Array[] = [];
  const keys = Array.from({ length: count }, (_, n) => `${prefix}-${n}`);
  const collect = (update: Uint8Array) => updates.push(update);
  doc.on('update', collect);
  for (const key of keys) doc.getMap('objects').set(key, { created_at: prefix });
  doc.off('update', collect);
  return { updates, keys };
}

async function storedKeys(store: DocumentStore, name: string): Promise<string[]> {
  const { state } = await store.load(name);
  const doc = new Y.Doc();
  if (state) Y.applyUpdate(doc, state);
  return [...doc.getMap('objects').keys()].sort();
}

function registerStoredCompaction(open: () => ContractDatabase): void {
  it('keeps every appended update through compactions made by any writer, concurrent ones included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const database = open().current;
        const store = new DocumentStore(database);
        const name = await insertBoard(database);
        const writers = [new Y.Doc(), new Y.Doc()];
        const written: string[] = [];
        for (const [index, next] of steps.entries()) {
          if (next.kind === 'write') {
            const { updates, keys } = write(writers[next.writer]!, `w${next.writer}-${index}`, next.count);
            written.push(...keys);
            await store.append([{ name, updates }]);
          } else {
            // `at` compactions at once, as two instances leaving the document together would.
            const compactions = Array.from({ length: next.at }, () => store.compactStored(name));
            if (next.meanwhile !== null) {
              const { updates, keys } = write(writers[next.meanwhile]!, `m${next.meanwhile}-${index}`, 1);
              written.push(...keys);
              compactions.push(store.append([{ name, updates }]).then(() => undefined));
            }
            await Promise.all(compactions);
          }
        }
        expect(await storedKeys(store, name)).toEqual([...written].sort());
      }),
      { numRuns: 30 },
    );
  });

  it('leaves one snapshot and no log rows behind', async () => {
    const database = open().current;
    const store = new DocumentStore(database);
    const name = await insertBoard(database);
    const doc = new Y.Doc();
    const updates: Uint8Array[] = [];
    doc.on('update', (update: Uint8Array) => updates.push(update));
    for (let n = 0; n < 5; n += 1) doc.getMap('objects').set(`o${n}`, n);
    await store.append([{ name, updates }]);
    await store.compactStored(name);
    const { parts } = await store.loadParts(name);
    expect(parts).toHaveLength(1);
    expect(await database.prisma.documentUpdate.count({ where: { name } })).toBe(0);
  });
}

forEachStoreAdapter('compaction from the store', registerStoredCompaction);
