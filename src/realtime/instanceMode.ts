import { isTransactionOrigin, OutgoingMessage, type afterUnloadDocumentPayload, type Extension, type onChangePayload } from '@hocuspocus/server';
import { soloChannels, type InstanceChannels } from '../store/instanceChannels.js';
import type { Logger } from '../logger.js';
import { RedisChannels } from '../store/redisChannels.js';
import { snapshotFromMemory, type SnapshotWriter } from './persistenceExtension.js';

/**
 * Whether this instance runs alone or as one of several: the only difference is what is
 * plugged in here (DESIGN.md section 1, Scale-out). Several instances share PostgreSQL and
 * Redis, and any of them serves any board.
 */
export interface InstanceMode {
  kind: 'single' | 'multi';
  /** Signals to and from the other instances (sockets, caches). */
  channels: InstanceChannels;
  /** Hocuspocus extensions that carry documents and awareness between instances. */
  documentExtensions: Extension[];
  /** How a live document's snapshot is written (persistenceExtension.ts). */
  writeSnapshot: SnapshotWriter;
  close(): Promise<void>;
}

/** How often a document that keeps changing sends its state vector to the other instances. */
const STATE_VECTOR_INTERVAL_MS = 1_000;

/** @hocuspocus/extension-redis's frame header: the identifier's length, then the identifier. */
function headerOf(identifier: string): Buffer {
  const bytes = Buffer.from(identifier, 'utf-8');
  return Buffer.concat([Buffer.from([bytes.length]), bytes]);
}

export const singleInstance: InstanceMode = {
  kind: 'single',
  channels: soloChannels,
  documentExtensions: [],
  writeSnapshot: snapshotFromMemory,
  close: async () => {},
};

/**
 * Several instances over Redis: @hocuspocus/extension-redis carries document updates and
 * awareness (a load waits for the state other instances hold in memory), the instance
 * channels carry the rest. Each update is persisted once, by the instance that received it
 * (PersistenceExtension skips updates that came through Redis), and snapshots are compacted
 * from the store, which holds every instance's updates.
 */
export async function multiInstance(options: { redisUrl: string; keyPrefix: string; logger: Logger }): Promise<InstanceMode> {
  const { redisUrl, keyPrefix, logger } = options;
  const channels = await RedisChannels.open(redisUrl, `${keyPrefix}signals:`, logger);
  const [{ Redis: RedisExtension }, { Redis }] = await Promise.all([import('@hocuspocus/extension-redis'), import('ioredis')]);
  /**
   * The extension as it is, less its lock around storing: that lock lets one instance store a
   * document and makes the others skip (logging a line each time). Here every update is stored
   * by the instance that received it, and compactions of a document are serialized by the
   * store (DocumentStore.compactStored), so any instance may compact at any time.
   */
  class DocumentFanOut extends RedisExtension {
    /** The extension's frame header: the sending instance's identifier, which receivers skip their own by. */
    private readonly header = headerOf(this.configuration.identifier);
    /** When each document last sent its state vector. */
    private readonly stateSentAt = new Map<string, number>();

    override async onStoreDocument(): Promise<void> {}

    /**
     * The extension sends only a state vector per change and lets the other instances ask for
     * what they lack: three trips through Redis before a change reaches them. Here a change goes
     * out as the update itself, one trip; the state vector still goes out, at most once a
     * second per document, and repairs whatever an instance missed (pub/sub delivers at most once).
     */
    override async onChange(data: onChangePayload): Promise<void> {
      if (isTransactionOrigin(data.transactionOrigin) && data.transactionOrigin.source === 'redis') return;
      const message = new OutgoingMessage(data.documentName).createSyncMessage().writeUpdate(data.update).toUint8Array();
      const publisher = this.pub as unknown as { publish(channel: string, message: Buffer): Promise<number> };
      publisher.publish(`${this.configuration.prefix}:${data.documentName}`, Buffer.concat([this.header, message])).catch((error: unknown) => {
        logger.warn({ err: error, document: data.documentName }, 'document fan-out: update not published');
      });
      const now = Date.now();
      if (now - (this.stateSentAt.get(data.documentName) ?? 0) < STATE_VECTOR_INTERVAL_MS) return;
      this.stateSentAt.set(data.documentName, now);
      await super.onChange(data);
    }

    override async afterUnloadDocument(data: afterUnloadDocumentPayload): Promise<void> {
      this.stateSentAt.delete(data.documentName);
      await super.afterUnloadDocument(data);
    }
  }
  const fanOut = new DocumentFanOut({
    // The extension is built against ioredis 5; the client API it uses is the same in 6.
    createClient: () => {
      const client = new Redis(redisUrl);
      client.on('error', (error) => logger.warn({ err: error }, 'document fan-out: Redis error'));
      return client as never;
    },
    identifier: channels.instanceId,
    prefix: `${keyPrefix}documents`,
  });
  return {
    kind: 'multi',
    channels,
    documentExtensions: [fanOut],
    writeSnapshot: (store, name) => store.compactStored(name),
    async close() {
      await fanOut.onDestroy();
      await channels.close();
    },
  };
}
