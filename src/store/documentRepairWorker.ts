import { parentPort, workerData } from 'node:worker_threads';
import * as Y from 'yjs';
import { removeOutOfBounds } from './documentBounds.js';

/**
 * Runs in a worker with a large stack (documentRepair.ts): applies a document's stored parts,
 * removes what lies beyond the bounds, and posts back the repaired state.
 */
const parts = (workerData as { parts: Uint8Array[] }).parts;
const doc = new Y.Doc();
for (const part of parts) Y.applyUpdate(doc, part);
const removed = removeOutOfBounds(doc);
const state = Y.encodeStateAsUpdate(doc);
parentPort!.postMessage({ state, removed }, [state.buffer as ArrayBuffer]);
