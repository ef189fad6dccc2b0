import { parentPort } from 'node:worker_threads';
import { mergeParts, type CompactionReply, type CompactionRequest } from './compactionThread.js';
import { openUpdateLog, type UpdateLog } from './updateLog.js';

/**
 * The worker side of compactionThread.ts: merges a document's stored parts off the main
 * thread, reading them first (PostgreSQL) through an update log of its own per database.
 */
const logs = new Map<string, UpdateLog>();

async function answer(request: CompactionRequest): Promise<CompactionReply> {
  try {
    if (request.kind === 'merge') return { id: request.id, state: mergeParts(request.parts), lastSeq: 0 };
    let log = logs.get(request.url);
    if (!log) logs.set(request.url, (log = openUpdateLog(request.url)));
    const { parts, lastSeq } = await log.loadParts(request.name);
    return { id: request.id, state: mergeParts(parts), lastSeq };
  } catch (error) {
    return { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
}

parentPort?.on('message', (request: CompactionRequest) => {
  void answer(request).then((reply) => parentPort!.postMessage(reply, 'state' in reply ? [reply.state.buffer as ArrayBuffer] : []));
});
