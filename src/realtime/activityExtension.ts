import { isTransactionOrigin, type Extension, type beforeHandleAwarenessPayload, type onChangePayload } from '@hocuspocus/server';
import type { Clock } from '../clock.js';
import type { PresenceRegistry } from './presenceRegistry.js';
import type { SocketContext } from './socketContext.js';

/**
 * When each participant last did something (`lastActiveAt`, which idle triggers read): a
 * document update it sent, on the board or any of its zones, or an awareness state it changed
 * (a cursor or viewport move). Joining and reporting a location count too (presence and
 * stateless messages record those).
 */
export class ActivityExtension implements Extension {
  extensionName = 'activity';

  constructor(private readonly deps: { registry: PresenceRegistry; clock: Clock }) {}

  async onChange({ transactionOrigin }: onChangePayload): Promise<void> {
    // Server-side writes (REST, relocations, undoing a refused write) are nobody's activity.
    if (!isTransactionOrigin(transactionOrigin) || transactionOrigin.source !== 'connection') return;
    this.touch(transactionOrigin.connection.context as SocketContext);
  }

  /**
   * y-protocols clients renew an unchanged awareness state every 15 s to stay listed: a
   * renewal is not activity, so only a state that differs from the one held counts. An empty
   * state the document does not hold yet says nothing either (and Hocuspocus 4.7 adds one to
   * every update: the own state of the scratch Awareness it decodes the update with).
   */
  async beforeHandleAwareness({ awareness, states, context }: beforeHandleAwarenessPayload): Promise<void> {
    if (!context) return;
    const held = awareness.getStates();
    for (const [clientId, state] of states) {
      const before = held.get(clientId);
      if (before === undefined && Object.keys(state).length === 0) continue;
      if (JSON.stringify(state) !== JSON.stringify(before)) return this.touch(context as SocketContext);
    }
  }

  private touch(context: SocketContext): void {
    if (context.socketId) this.deps.registry.touch(context.socketId, this.deps.clock.now());
  }
}
