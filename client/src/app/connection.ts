import { WebSocketStatus, type HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import { adviceFor, closeReasonOf, type ConnectionState } from '../session/closeReasons.js';

/**
 * The socket's state as the page shows it. A close the server explains stops the socket's own
 * retries unless the close allows them (restart, rate limit): a deleted board or a revoked link
 * must not be retried forever, and an ended session waits for the user to rejoin.
 */
/** How long the server has to say, once the network is back, whether it still counts this page. */
const LIVENESS_WAIT_MS = 5_000;

export class Connection {
  private current: ConnectionState = navigator.onLine ? { kind: 'connecting' } : { kind: 'offline' };
  private closedForGood: (state: ConnectionState) => void = () => undefined;

  constructor(
    private readonly socket: HocuspocusProviderWebsocket,
    private readonly changed: (state: ConnectionState) => void,
    /** Whether the server still counts this page among those connected (asked over REST). */
    private readonly stillCounted: () => Promise<boolean>,
  ) {
    socket.on('status', ({ status }: { status: string }) => {
      if (status === 'connected') this.set({ kind: 'connected' });
      else if (this.current.kind !== 'closed') this.set(navigator.onLine ? { kind: 'connecting' } : { kind: 'offline' });
    });
    socket.on('close', ({ event }: { event: { code: number; reason: string } }) => this.closed(event.code, event.reason));
    window.addEventListener('offline', () => this.current.kind !== 'closed' && this.set({ kind: 'offline' }));
    window.addEventListener('online', () => this.backOnline());
  }

  state(): ConnectionState {
    return this.current;
  }

  /** The user asked to come back (after an ended session, a full board). */
  reconnect(): void {
    this.set({ kind: 'connecting' });
    void this.socket.connect();
  }

  onClosedForGood(listener: (state: ConnectionState) => void): void {
    this.closedForGood = listener;
  }

  /**
   * A cut short enough leaves the socket open: it carries the board as it did, and no status
   * event will say so (asked to connect, an open socket does nothing). The server may have let
   * it go meanwhile while the browser still holds it open: if the server no longer counts this
   * page, the socket is closed and the provider's retries follow (its own silence check would
   * take 30 s). A closed socket is retried at once rather than after its backoff (up to 30 s), with
   * up to a second of jitter so a classroom whose Wi-Fi returns does not reconnect in one burst.
   */
  private backOnline(): void {
    if (this.current.kind === 'closed') return;
    if (this.socket.status === WebSocketStatus.Connected) {
      this.set({ kind: 'connected' });
      return this.checkAlive();
    }
    this.set({ kind: 'connecting' });
    setTimeout(() => void this.socket.connect(), Math.random() * 1000);
  }

  /**
   * Asks the server whether it still counts this page; no answer within LIVENESS_WAIT_MS counts
   * as no (a request sent on a connection the cut left half-open is never answered either).
   */
  private checkAlive(): void {
    const open = this.socket.webSocket;
    const silence = new Promise<false>((resolve) => setTimeout(() => resolve(false), LIVENESS_WAIT_MS));
    void Promise.race([this.stillCounted(), silence]).then(
      (counted) => {
        if (counted || this.socket.webSocket !== open || this.socket.status !== WebSocketStatus.Connected) return;
        // A socket whose far end is gone never completes a closing handshake: it is given up at
        // once, as the provider's own silence check does, and the provider connects anew.
        open?.close();
        this.socket.onClose({ event: new CloseEvent('close', { code: 4408, reason: 'forced' }) });
      },
      () => undefined, // still offline after all: the socket's own checks decide
    );
  }

  private closed(code: number, reason: string): void {
    const closeReason = closeReasonOf(code, reason);
    if (!closeReason) {
      if (this.current.kind !== 'closed') this.set(navigator.onLine ? { kind: 'connecting' } : { kind: 'offline' });
      return;
    }
    const state: ConnectionState = { kind: 'closed', reason: closeReason };
    const advice = adviceFor(closeReason);
    if (advice.reconnect !== 'auto') this.socket.disconnect();
    this.set(state);
    if (advice.reconnect === 'never') this.closedForGood(state);
  }

  private set(state: ConnectionState): void {
    this.current = state;
    this.changed(state);
  }
}
