import { isTransactionOrigin, type afterLoadDocumentPayload, type Extension, type Hocuspocus, type onConfigurePayload } from '@hocuspocus/server';

/** Who made a document update: a client's socket, this service (REST, agents, zone sync), or another instance (Redis). */
export type UpdateSource = 'socket' | 'server' | 'peer';

/**
 * Watches the realtime engine for metrics and changes nothing. Counts are plain numbers
 * here, read when Prometheus scrapes: an update costs two additions, no allocation and no
 * prom-client call on the fan-out path. Sockets and documents are read from Hocuspocus
 * itself at scrape time, so they cannot drift from what it holds.
 */
export class MetricsExtension implements Extension {
  extensionName = 'metrics';
  readonly updates: Record<UpdateSource, number> = { socket: 0, server: 0, peer: 0 };
  /** Updates times the sockets each was broadcast to. */
  fanout = 0;
  private instance: Hocuspocus | null = null;

  async onConfigure({ instance }: onConfigurePayload): Promise<void> {
    this.instance = instance;
  }

  async afterLoadDocument({ document }: afterLoadDocumentPayload): Promise<void> {
    // After the load: the stored state applied while loading is not an update anyone made now.
    document.on('update', (_update: Uint8Array, origin: unknown) => {
      this.updates[sourceOf(origin)] += 1;
      // Hocuspocus broadcasts every update to each of the document's connections.
      this.fanout += document.connections.size;
    });
  }

  /** Loaded documents (board and zone documents alike). */
  documentsLoaded(): number {
    return this.instance?.getDocumentsCount() ?? 0;
  }

  /**
   * Sockets with at least one document open. One socket carries several documents (a board
   * and its zones); REST and agent writes (direct connections) are not sockets.
   */
  socketsOpen(): number {
    const sockets = new Set<string>();
    for (const document of this.instance?.documents.values() ?? []) {
      for (const connection of document.connections.keys()) sockets.add(connection.socketId);
    }
    return sockets.size;
  }
}

function sourceOf(origin: unknown): UpdateSource {
  if (!isTransactionOrigin(origin)) return 'server';
  if (origin.source === 'connection') return 'socket';
  return origin.source === 'redis' ? 'peer' : 'server';
}
