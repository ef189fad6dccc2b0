import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { SerialQueue } from '../util/keyedQueue.js';
import { WriteBatcher } from './writeBatcher.js';
import { encodeSyncStatusFrame, frameType, MessageType, peekFrame } from './wireFrames.js';

/**
 * The socket handed to Hocuspocus. It holds back each `SyncStatus` acknowledgement until
 * the update it acknowledges is durable (written to the update log), so a client is
 * never told "saved" for an edit a `kill -9` could still lose. Acknowledgements leave in
 * the order of the updates they answer.
 *
 * Everything else (other people's updates, awareness, events) does not wait for them (when a
 * write leaves is WriteBatcher's rule). It used to wait behind this client's held
 * acknowledgement, which put a commit's latency into every fan-out to a client that was itself
 * writing. Yjs updates commute, and no other message says anything about this client's own
 * unacknowledged edits, so nothing depends on that order.
 */
export class DurableAckSocket {
  /** Held acknowledgements, in order. */
  private readonly acks = new SerialQueue();
  /** Acknowledgements owed for updates the message gate merged into one. */
  private readonly owedAcks = new Map<string, number>();

  constructor(
    private readonly ws: WebSocket,
    private readonly whenDurable: (documentName: string) => Promise<void>,
  ) {}

  get readyState(): number {
    return this.ws.readyState;
  }

  close(code?: number, reason?: string): void {
    this.ws.close(code, reason);
  }

  send(data: Uint8Array): void {
    // Only an acknowledgement's header is decoded: the rest (a fan-out) is sent as it is.
    const header = frameType(data) === MessageType.SyncStatus ? peekFrame(data) : null;
    if (header) {
      const extra = this.owedAcks.get(header.address) ?? 0;
      this.owedAcks.delete(header.address);
      // Nobody awaits an acknowledgement: one that fails (the socket went away) must not surface as an unhandled rejection.
      void this.acks
        .run(async () => {
          await this.whenDurable(header.documentName);
          this.sendNow(data);
          for (let i = 0; i < extra; i += 1) this.sendNow(encodeSyncStatusFrame(header.address, header.saved ?? true));
        })
        .catch(() => undefined);
      return;
    }
    this.sendNow(data);
  }

  /** Records that `count` more updates were merged into the next one sent for `address`. */
  oweAcks(address: string, count: number): void {
    this.owedAcks.set(address, (this.owedAcks.get(address) ?? 0) + count);
  }

  private sendNow(data: Uint8Array): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.corkUntilFlush();
    this.ws.send(data);
  }

  /** ws has no public cork, hence its underlying socket. */
  private corkUntilFlush(): void {
    const stream = (this.ws as unknown as { _socket?: Duplex })._socket;
    if (stream) sharedBatcher.hold(stream);
  }
}

/** One batcher for all sockets: a fan-out's frames to every socket leave in one flush. */
const sharedBatcher = new WriteBatcher();
