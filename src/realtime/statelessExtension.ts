import type { Connection, Extension, onStatelessPayload } from '@hocuspocus/server';
import type { Clock } from '../clock.js';
import { assertNever } from '../util/assertNever.js';
import { isBoardDocument } from './documentContext.js';
import { SUBSCRIBABLE_EVENTS, type ClientMessage, type LockMode, type ServerMessage } from './messages.js';
import type { PresenceRegistry } from './presenceRegistry.js';
import type { SocketContext } from './socketContext.js';
import type { SocketMessenger } from './socketMessenger.js';

const LOCK_MODES: readonly LockMode[] = ['none', 'soft', 'hard'];
const KNOWN_EVENTS = new Set<string>([...SUBSCRIBABLE_EVENTS, '*']);

/**
 * The stateless JSON messages clients send on a board's main document: `subscribe`,
 * `frame:navigate` and `frame:lock` (host only, relayed to the others) and
 * `participant:location` (kept per participant, relayed to hosts).
 */
export class StatelessExtension implements Extension {
  extensionName = 'stateless-messages';

  constructor(
    private readonly deps: { registry: PresenceRegistry; messenger: SocketMessenger; clock: Clock },
  ) {}

  async onStateless({ connection, documentName, payload }: onStatelessPayload): Promise<void> {
    if (!isBoardDocument(documentName)) return;
    const message = parse(payload);
    if (typeof message === 'string') return this.reply(connection, { type: 'error', message });
    this.handle(connection, message);
  }

  private handle(connection: Connection, message: ClientMessage): void {
    const context = connection.context as SocketContext;
    switch (message.type) {
      case 'subscribe':
        context.subscriptions.events = new Set(message.events);
        return this.reply(connection, { type: 'subscribed', events: message.events });
      case 'frame:navigate':
      case 'frame:lock':
        return this.relayHostCommand(connection, message);
      case 'participant:location':
        return this.relayLocation(connection, message);
      default:
        return assertNever(message);
    }
  }

  private relayHostCommand(connection: Connection, message: Extract<ClientMessage, { type: 'frame:navigate' | 'frame:lock' }>): void {
    const context = connection.context as SocketContext;
    if (context.grant?.role !== 'host') {
      return this.reply(connection, { type: 'error', message: `Only the host may send ${message.type}`, for: message.type });
    }
    const from = context.userId ?? 'host';
    const relayed: ServerMessage =
      message.type === 'frame:navigate'
        ? { type: 'frame:navigate', frameId: message.frameId, smooth: message.smooth ?? false, from }
        : { type: 'frame:lock', frameId: message.frameId, lockMode: message.lockMode, from };
    this.deps.messenger.broadcast(context.grant.board.id, relayed, (other) => other.socketId !== context.socketId);
  }

  /**
   * Kept per participant and relayed live to hosts only: hosts see every zone, so no location
   * they receive can reveal one. Other viewers read locations filtered (FrameService).
   */
  private relayLocation(connection: Connection, message: Extract<ClientMessage, { type: 'participant:location' }>): void {
    const context = connection.context as SocketContext;
    const { grant, participantKey } = context;
    const presence = grant && participantKey ? this.deps.registry.get(grant.board.id, participantKey) : undefined;
    if (!grant || !participantKey || !presence) return;
    const at = this.deps.clock.now().toISOString();
    const location = { frameId: message.frameId, viewportBounds: message.viewportBounds, at };
    this.deps.registry.locate(grant.board.id, participantKey, location);
    this.deps.messenger.broadcast(
      grant.board.id,
      { type: 'participant:location', user_id: presence.view.user_id, ...location },
      (other) => other.grant?.role === 'host' && other.socketId !== context.socketId,
    );
  }

  private reply(connection: Connection, message: ServerMessage): void {
    this.deps.messenger.send(connection, message);
  }
}

/** Parses and checks a client message; a string is the reason it was refused. */
export function parse(payload: string): ClientMessage | string {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return 'Stateless messages must be JSON';
  }
  if (!isRecord(value) || typeof value.type !== 'string') return 'A message needs a string "type"';
  switch (value.type) {
    case 'subscribe': {
      const events = value.events;
      if (!Array.isArray(events) || !events.every((event) => typeof event === 'string' && KNOWN_EVENTS.has(event))) {
        return `subscribe.events must be an array of: ${[...KNOWN_EVENTS].join(', ')}`;
      }
      return { type: 'subscribe', events };
    }
    case 'frame:navigate':
      if (typeof value.frameId !== 'string' || (value.smooth !== undefined && typeof value.smooth !== 'boolean')) {
        return 'frame:navigate needs frameId (string) and optional smooth (boolean)';
      }
      return { type: 'frame:navigate', frameId: value.frameId, smooth: value.smooth as boolean | undefined };
    case 'frame:lock':
      if (typeof value.frameId !== 'string' || !LOCK_MODES.includes(value.lockMode as LockMode)) {
        return 'frame:lock needs frameId (string) and lockMode (none, soft or hard)';
      }
      return { type: 'frame:lock', frameId: value.frameId, lockMode: value.lockMode as LockMode };
    case 'participant:location': {
      const bounds = value.viewportBounds;
      const validBounds = isRecord(bounds) && ['x', 'y', 'width', 'height'].every((key) => Number.isFinite(bounds[key]));
      if ((value.frameId !== null && typeof value.frameId !== 'string') || !validBounds) {
        return 'participant:location needs frameId (string or null) and viewportBounds {x, y, width, height}';
      }
      const { x, y, width, height } = bounds as Record<string, number>;
      return { type: 'participant:location', frameId: value.frameId as string | null, viewportBounds: { x: x!, y: y!, width: width!, height: height! } };
    }
    default:
      return `Unknown message type "${value.type}"`;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
