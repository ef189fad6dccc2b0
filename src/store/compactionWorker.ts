import { parentPort } from 'node:worker_threads';
import { mergeParts, type CompactionReply, type CompactionRequest } from './compactionThread.js';

/** The worker side of compactionThread.ts: merges a document's stored parts off the main thread. */
parentPort?.on('message', ({ id, parts }: CompactionRequest) => {
  let reply: CompactionReply;
  try {
    reply = { id, state: mergeParts(parts) };
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply, 'state' in reply ? [reply.state.buffer as ArrayBuffer] : []);
});
