import type { Connection, Document, Extension, onStatelessPayload } from '@hocuspocus/server';
import { boardTokenCaller, requireHost } from '../boards/caller.js';
import type { Clock } from '../clock.js';
import type { ComponentEvents } from '../components/componentEvents.js';
import type { JsonValue } from '../components/manifest.js';
import { AppError } from '../errors.js';
import type { EventBus } from '../events/bus.js';
import { LOCK_MODES, type LockMode } from '../frames/frame.js';
import { assertNever } from '../util/assertNever.js';
import { refusalMessage } from './closeEvents.js';
import { isBoardDocument } from './documentContext.js';
import { SUBSCRIBABLE_EVENTS, type ClientMessage, type ServerMessage } from './messages.js';
import type { PresenceRegistry } from './presenceRegistry.js';
import { seatOf, type BoardSeat } from './boardSeat.js';
import type { SeatLedger } from '../store/seatLedger.js';
import type { SocketContext } from './socketContext.js';
import type { SocketMessenger } from './socketMessenger.js';
import { viewerOf } from './viewer.js';

const KNOWN_EVENTS = new Set<string>([...SUBSCRIBABLE_EVENTS, '*']);

/**
 * The stateless JSON messages clients send on a board's main document: `subscribe`,
 * `frame:navigate` and `frame:lock` (host only, relayed to the others) and
 * `participant:location` (kept per participant, relayed to hosts, `participant.moved` on the
 * bus when its frame changes), and `component:event` (a component's global event, routed by
 * the components domain to the sockets that see a listening component).
 */
export class StatelessExtension implements Extension {
  extensionName = 'stateless-messages';

  constructor(
    private readonly deps: {
      registry: PresenceRegistry;
      seats: SeatLedger<BoardSeat>;
      messenger: SocketMessenger;
      bus: EventBus;
      clock: Clock;
      componentEvents: ComponentEvents;
    },
  ) {}

  async onStateless({ connection, document, documentName, payload }: onStatelessPayload): Promise<void> {
    if (!isBoardDocument(documentName)) return;
    const message = parse(payload);
    if ('problem' in message) return this.reply(connection, { type: 'error', message: message.problem, ...(message.for ? { for: message.for } : {}) });
    try {
      await this.handle(connection, document, message);
    } catch (error) {
      // A rule of the domain refused the message (as REST would with the same rule): answered, the socket stays.
      if (!(error instanceof AppError)) throw error;
      this.reply(connection, refusalMessage(error, message.type));
    }
  }

  private async handle(connection: Connection, document: Document, message: ClientMessage): Promise<void> {
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
      case 'component:event':
        return this.relayComponentEvent(connection, document, message);
      default:
        return assertNever(message);
    }
  }

  /** Host only, by the rule REST applies (boards/caller.ts): they steer every participant's viewport. */
  private relayHostCommand(connection: Connection, message: Extract<ClientMessage, { type: 'frame:navigate' | 'frame:lock' }>): void {
    const context = connection.context as SocketContext;
    // Hocuspocus hands over the messages of authenticated connections only, which carry their grant.
    if (!context.grant) return;
    requireHost(boardTokenCaller(context.grant, context.declared.userId), `send ${message.type}`);
    const from = context.userId ?? 'host';
    const relayed: ServerMessage =
      message.type === 'frame:navigate'
        ? { type: 'frame:navigate', frameId: message.frameId, smooth: message.smooth ?? false, from }
        : { type: 'frame:lock', frameId: message.frameId, lockMode: message.lockMode, from };
    this.deps.messenger.broadcast(context.grant.board.id, relayed, { kind: 'everyone', except: context.socketId });
  }

  /**
   * Kept per participant and relayed live to hosts only: hosts see every zone, so no location
   * they receive can reveal one. Other viewers read locations filtered (FrameService).
   */
  private async relayLocation(connection: Connection, message: Extract<ClientMessage, { type: 'participant:location' }>): Promise<void> {
    const context = connection.context as SocketContext;
    const { grant, participantKey } = context;
    const presence = grant && participantKey ? this.deps.registry.get(grant.board.id, participantKey) : undefined;
    if (!grant || !participantKey || !presence) return;
    const now = this.deps.clock.now();
    const location = { frameId: message.frameId, viewportBounds: message.viewportBounds, at: now.toISOString() };
    // A participant that never reported a location was outside every frame.
    const fromFrameId = presence.location?.frameId ?? null;
    this.deps.registry.locate(grant.board.id, participantKey, location);
    this.deps.registry.touch(context.socketId, now);
    // What REST lists, on any instance (the seat ledger).
    await this.deps.seats.amend(grant.board.id, participantKey, seatOf(grant.board.organizationId, presence));
    this.deps.messenger.broadcast(
      grant.board.id,
      { type: 'participant:location', user_id: presence.view.user_id, ...location },
      { kind: 'hosts', except: context.socketId },
    );
    if (fromFrameId === message.frameId) return;
    await this.deps.bus.publish('participant.moved', {
      board_id: grant.board.id,
      organization_id: grant.board.organizationId,
      user_id: presence.view.user_id,
      user_role: presence.role,
      from_frame_id: fromFrameId,
      to_frame_id: message.frameId,
    });
  }

  /**
   * Routed by the components domain (emit rules, listeners), then sent to each socket of the
   * board's document with the listening objects it may see; a socket that sees none gets
   * nothing. Sockets with the same role and user see the same zones, so they share one lookup.
   */
  private async relayComponentEvent(connection: Connection, document: Document, message: Extract<ClientMessage, { type: 'component:event' }>): Promise<void> {
    const context = connection.context as SocketContext;
    if (!context.grant) return;
    const boardId = context.grant.board.id;
    const routed = await this.deps.componentEvents.route(boardTokenCaller(context.grant, context.declared.userId), boardId, message);
    if (routed.targets.length === 0) return;
    const seen = new Map<string, Promise<string[]>>();
    for (const other of document.getConnections()) {
      const viewer = viewerOf(other.context as SocketContext);
      if (!viewer) continue;
      const key = `${viewer.role}\u0000${viewer.userId ?? ''}`;
      if (!seen.has(key)) seen.set(key, this.deps.componentEvents.targetsFor(viewer, boardId, routed));
      const targets = await seen.get(key)!;
      if (targets.length === 0) continue;
      this.deps.messenger.send(other, { type: 'component:event', object_id: routed.object_id, name: routed.name, payload: routed.payload, from: routed.from, targets });
    }
  }

  private reply(connection: Connection, message: ServerMessage): void {
    this.deps.messenger.send(connection, message);
  }
}

/** A client message refused before it could be handled; `for` names its type once it was read. */
interface Refused {
  problem: string;
  for?: ClientMessage['type'];
}

/** Parses and checks a client message, or says why it was refused. */
function parse(payload: string): ClientMessage | Refused {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return { problem: 'Stateless messages must be JSON' };
  }
  if (!isRecord(value) || typeof value.type !== 'string') return { problem: 'A message needs a string "type"' };
  if (!Object.hasOwn(PARSERS, value.type)) return { problem: `Unknown message type "${value.type}"` };
  const type = value.type as ClientMessage['type'];
  const parsed = PARSERS[type](value);
  return typeof parsed === 'string' ? { problem: parsed, for: type } : parsed;
}

/** Checks the fields of one client message type; a string is the reason it was refused. */
type Parser<T extends ClientMessage['type']> = (value: Record<string, unknown>) => Extract<ClientMessage, { type: T }> | string;

/** One parser per client message type: a type added to ClientMessage without one does not compile. */
const PARSERS: { [T in ClientMessage['type']]: Parser<T> } = {
  subscribe(value) {
    const events = value.events;
    if (!Array.isArray(events) || !events.every((event) => typeof event === 'string' && KNOWN_EVENTS.has(event))) {
      return `subscribe.events must be an array of: ${[...KNOWN_EVENTS].join(', ')}`;
    }
    return { type: 'subscribe', events: events as string[] };
  },
  'frame:navigate'(value) {
    if (typeof value.frameId !== 'string' || (value.smooth !== undefined && typeof value.smooth !== 'boolean')) {
      return 'frame:navigate needs frameId (string) and optional smooth (boolean)';
    }
    return { type: 'frame:navigate', frameId: value.frameId, smooth: value.smooth };
  },
  'frame:lock'(value) {
    if (typeof value.frameId !== 'string' || !LOCK_MODES.includes(value.lockMode as LockMode)) {
      return 'frame:lock needs frameId (string) and lockMode (none, soft or hard)';
    }
    return { type: 'frame:lock', frameId: value.frameId, lockMode: value.lockMode as LockMode };
  },
  'participant:location'(value) {
    const bounds = value.viewportBounds;
    const validBounds = isRecord(bounds) && ['x', 'y', 'width', 'height'].every((key) => Number.isFinite(bounds[key]));
    if ((value.frameId !== null && typeof value.frameId !== 'string') || !validBounds) {
      return 'participant:location needs frameId (string or null) and viewportBounds {x, y, width, height}';
    }
    const { x, y, width, height } = bounds as Record<string, number>;
    return { type: 'participant:location', frameId: value.frameId, viewportBounds: { x: x!, y: y!, width: width!, height: height! } };
  },
  'component:event'(value) {
    if (typeof value.object_id !== 'string' || typeof value.name !== 'string') {
      return 'component:event needs object_id (string), name (string) and optional payload (JSON)';
    }
    // Parsed from JSON, so a JSON value; its bounds are the components domain's to check.
    return { type: 'component:event', object_id: value.object_id, name: value.name, payload: (value.payload ?? null) as JsonValue };
  },
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
