import { Redis as RedisExtension } from '@hocuspocus/extension-redis';
import { isTransactionOrigin, OutgoingMessage, type afterLoadDocumentPayload, type afterUnloadDocumentPayload, type onChangePayload } from '@hocuspocus/server';
import { Redis } from 'ioredis';
import * as Y from 'yjs';
import type { Logger } from '../logger.js';
import { redisOptions } from '../store/redisOptions.js';

/** How often a document that keeps changing sends its state vector to the other instances. */
const STATE_VECTOR_INTERVAL_MS = 1_000;

/**
 * @hocuspocus/extension-redis, which carries document updates and awareness between
 * instances, with two changes:
 * - no lock around storing: that lock lets one instance store a document and makes the others
 *   skip (logging a line each time). Here every update is stored by the instance that received
 *   it, and compactions of a document are serialized by the store (DocumentStore.compactStored);
 * - a change goes out as the update itself (a turn's changes merged into one). The extension
 *   sends only a state vector per change and lets the other instances ask for what they lack:
 *   three trips through Redis before a change reaches them. The state vector still goes out, at
 *   most once a second per document, and repairs whatever an instance missed (pub/sub delivers
 *   at most once).
 */
class DocumentFanOut extends RedisExtension {
  /** When each document last sent its state vector. */
  private readonly stateSentAt = new Map<string, number>();
  /** Each document's changes not published yet (this event-loop turn's). */
  private readonly outgoing = new Map<string, Uint8Array[]>();

  constructor(
    options: ConstructorParameters<typeof RedisExtension>[0],
    private readonly logger: Logger,
  ) {
    super(options);
  }

  override async onStoreDocument(): Promise<void> {}

  override async onChange(data: onChangePayload): Promise<void> {
    if (isTransactionOrigin(data.transactionOrigin) && data.transactionOrigin.source === 'redis') return;
    this.queue(data.documentName, data.update);
    const now = Date.now();
    if (now - (this.stateSentAt.get(data.documentName) ?? 0) < STATE_VECTOR_INTERVAL_MS) return;
    this.stateSentAt.set(data.documentName, now);
    await super.onChange(data);
  }

  /**
   * Gathers a document's changes of one event-loop turn into one message: each instance
   * receiving it applies one transaction and sends its sockets one update, instead of one per
   * change (a transaction's cost grows with the document's writers, and each is a write to
   * every socket).
   */
  private queue(documentName: string, update: Uint8Array): void {
    const queued = this.outgoing.get(documentName);
    if (queued) return void queued.push(update);
    this.outgoing.set(documentName, [update]);
    setImmediate(() => this.publishQueued(documentName));
  }

  private publishQueued(documentName: string): void {
    const updates = this.outgoing.get(documentName) ?? [];
    this.outgoing.delete(documentName);
    if (updates.length === 0) return;
    const update = updates.length === 1 ? updates[0]! : Y.mergeUpdates(updates);
    const message = new OutgoingMessage(documentName).createSyncMessage().writeUpdate(update).toUint8Array();
    // The extension's frame: its sender's identifier first (receivers skip their own), then the message.
    const frame = Buffer.concat([this.messagePrefix, message]);
    const publisher = this.pub as unknown as { publish(channel: string, message: Buffer): Promise<number> };
    publisher.publish(`${this.configuration.prefix}:${documentName}`, frame).catch((error: unknown) => {
      this.logger.warn({ err: error, document: documentName }, 'document fan-out: update not published');
    });
  }

  /**
   * Every load waits for the extension's subscription to its reply channel, which it makes once,
   * when constructed. With command timeouts (redisOptions.ts), an instance that started while
   * Redis was unreachable or stalled would keep that failed subscription, and fail every load
   * for good: a failed one is made again by the next load.
   */
  override async afterLoadDocument(data: afterLoadDocumentPayload): Promise<void> {
    const extension = this as unknown as { replySubscription: Promise<void>; replyKey(identifier: string): string };
    const subscriber = this.sub as unknown as { subscribe(channel: string): Promise<unknown> };
    const channel = extension.replyKey(this.configuration.identifier);
    extension.replySubscription = extension.replySubscription.catch(async () => {
      await subscriber.subscribe(channel);
    });
    await super.afterLoadDocument(data);
  }

  override async afterUnloadDocument(data: afterUnloadDocumentPayload): Promise<void> {
    this.stateSentAt.delete(data.documentName);
    await super.afterUnloadDocument(data);
  }
}

/** The document fan-out of one instance, named `identifier`, under the deployment's key prefix. */
export function documentFanOut(options: { redisUrl: string; identifier: string; prefix: string; logger: Logger }): DocumentFanOut {
  const { redisUrl, identifier, prefix, logger } = options;
  return new DocumentFanOut(
    {
      // The extension is built against ioredis 5; the client API it uses is the same in 6.
      createClient: () => {
        const client = new Redis(redisUrl, redisOptions());
        client.on('error', (error) => logger.warn({ err: error }, 'document fan-out: Redis error'));
        return client as never;
      },
      identifier,
      prefix,
    },
    logger,
  );
}
