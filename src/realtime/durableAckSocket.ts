import type { WebSocket } from 'ws';
import { SerialQueue } from '../util/keyedQueue.js';
import { encodeSyncStatusFrame, MessageType, peekFrame } from './wireFrames.js';

/**
 * The socket handed to Hocuspocus. It holds back each `SyncStatus` acknowledgement until
 * the update it acknowledges is durable (written to the update log), so a client is
 * never told "saved" for an edit a `kill -9` could still lose. Everything sent after a
 * held acknowledgement waits behind it, so the client sees messages in order.
 */
export class DurableAckSocket {
  /** Everything sent after a held acknowledgement, in order. */
  private readonly outbox = new SerialQueue();
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
    const header = data[0] !== undefined ? peekFrame(data) : null;
    if (header?.type === MessageType.SyncStatus) {
      const extra = this.owedAcks.get(header.address) ?? 0;
      this.owedAcks.delete(header.address);
      this.enqueue(async () => {
        await this.whenDurable(header.documentName);
        this.sendNow(data);
        for (let i = 0; i < extra; i += 1) this.sendNow(encodeSyncStatusFrame(header.address, header.saved ?? true));
      });
      return;
    }
    if (this.outbox.busy) this.enqueue(() => this.sendNow(data));
    else this.sendNow(data);
  }

  /** Records that `count` more updates were merged into the next one sent for `address`. */
  oweAcks(address: string, count: number): void {
    this.owedAcks.set(address, (this.owedAcks.get(address) ?? 0) + count);
  }

  private sendNow(data: Uint8Array): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(data);
  }

  private enqueue(task: () => void | Promise<void>): void {
    // Nobody awaits a send: a failed one (the socket went away) must not surface as an unhandled rejection.
    void this.outbox.run(task).catch(() => undefined);
  }
}
