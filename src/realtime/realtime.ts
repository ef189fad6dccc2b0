import type { Server } from 'node:http';
import { Hocuspocus, type Extension } from '@hocuspocus/server';
import type { AgentSockets } from '../agents/ports.js';
import type { BoardAccess } from '../boards/boardAccess.js';
import { readObjects } from '../boards/boardObjects.js';
import { ComponentEvents } from '../components/componentEvents.js';
import type { ManifestResolver } from '../components/componentStorage.js';
import type { ParticipantHistory } from '../boards/participantHistory.js';
import type { FrameDirectory } from '../frames/frameDirectory.js';
import type { Clock } from '../clock.js';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../logger.js';
import type { Database } from '../store/database.js';
import { DocumentStore } from '../store/documentStore.js';
import { ActivityExtension } from './activityExtension.js';
import { AgentAwareness, AgentSocketsAdapter } from './agentSockets.js';
import { AuthExtension } from './authExtension.js';
import type { SessionParticipants } from '../boards/sessionParticipants.js';
import { BoardDocuments } from './boardDocuments.js';
import type { MessageGateLimits } from './messageGate.js';
import { ObjectEventsExtension } from './objectEventsExtension.js';
import { PersistenceExtension, type DocumentLoadObserver } from './persistenceExtension.js';
import { PresenceExtension } from './presenceExtension.js';
import { PresenceRegistry } from './presenceRegistry.js';
import { attachSocketServer, type SocketMessageQuota } from './socketServer.js';
import { SocketMessenger } from './socketMessenger.js';
import { StatelessExtension } from './statelessExtension.js';
import { UpdateJournal, type UpdateJournalObserver } from './updateJournal.js';
import { WriteCheckExtension, type SocketObjectRules } from './writeCheckExtension.js';
import { ZoneSync } from './zoneSync.js';
import type { InstanceMode } from './instanceMode.js';
import { frameFromWire, SOCKET_SIGNALS_CHANNEL, type SocketSignal } from './socketSignals.js';
import { assertNever } from '../util/assertNever.js';

/** How long shutdown waits for loaded documents to compact and unload. */
const SHUTDOWN_UNLOAD_TIMEOUT_MS = 5_000;

export interface RealtimeDependencies {
  database: Database;
  access: BoardAccess;
  frames: FrameDirectory;
  history: ParticipantHistory;
  /** Mints the session participant of a socket that joins through the shared guest link. */
  sessions: Pick<SessionParticipants, 'mint' | 'discard'>;
  /** The object rules (custom object types) every socket write must pass. */
  objectRules: SocketObjectRules;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  /** Replaces the document store (tests inject failures through it). */
  decorateStore?: (store: DocumentStore) => DocumentStore;
  gateLimits?: MessageGateLimits;
  /** Meters messages against the organization's daily socket message quota. */
  socketMessages: SocketMessageQuota;
  /** Component manifests by URL: global events between components are routed by them. */
  componentManifests: ManifestResolver;
  /** Alone or one of several instances (instanceMode.ts). */
  instance: Pick<InstanceMode, 'channels' | 'documentExtensions' | 'writeSnapshot' | 'seats'>;
  /** Metrics (observability/); left out, nothing is observed. */
  observers?: RealtimeObservers;
}

/** What observability watches in the realtime engine. */
export interface RealtimeObservers {
  journal: UpdateJournalObserver;
  documentLoads: DocumentLoadObserver;
  /** An extension that only watches (sockets, documents, updates). */
  extension: Extension;
}

/** The realtime side of the service, seen from the outside. */
export interface Realtime {
  documents: BoardDocuments;
  /** Applies frame changes to connected sockets (FrameService's listener). */
  zones: ZoneSync;
  hocuspocus: Hocuspocus;
  /** The sockets of boards as agents reach them (notifications, navigation, activity, visible agents). */
  agentSockets: AgentSockets;
  /** Starts accepting sockets on the HTTP server's upgrade requests. */
  listen(server: Server): void;
  close(): Promise<void>;
}

/**
 * Composition root of the realtime side: the Hocuspocus engine and its extensions, one
 * per concern. Multi-instance mode only adds extensions to this list.
 */
export function createRealtime(deps: RealtimeDependencies): Realtime {
  const { database, access, frames, history, bus, clock } = deps;
  const logger = deps.logger.child({ component: 'realtime' });
  const plainStore = new DocumentStore(database);
  const store = deps.decorateStore ? deps.decorateStore(plainStore) : plainStore;
  const journal = new UpdateJournal(store, logger, deps.observers?.journal);
  const registry = new PresenceRegistry();
  const { seats } = deps.instance;
  const signals = deps.instance.channels.channel<SocketSignal>(SOCKET_SIGNALS_CHANNEL);
  const persistence = new PersistenceExtension(store, journal, logger, deps.instance.writeSnapshot, deps.observers?.documentLoads);
  const objectEvents = new ObjectEventsExtension(bus, logger);
  const hocuspocus = new Hocuspocus({ quiet: true, debounce: 2_000, maxDebounce: 10_000, extensions: [] });
  const messenger = new SocketMessenger(hocuspocus, registry, signals);
  const agentAwareness = new AgentAwareness(hocuspocus, registry);
  const componentEvents = liveComponentEvents(hocuspocus, deps);
  hocuspocus.configure({
    extensions: [
      ...deps.instance.documentExtensions,
      new AuthExtension(access, frames, deps.sessions, logger),
      new WriteCheckExtension(frames, deps.objectRules),
      persistence,
      objectEvents,
      new PresenceExtension({ access, history, sessions: deps.sessions, registry, seats, messenger, bus, clock, logger }),
      new StatelessExtension({ registry, seats, messenger, bus, clock, componentEvents }),
      new ActivityExtension({ registry, clock }),
      agentAwareness,
      ...(deps.observers ? [deps.observers.extension] : []),
    ],
  });
  const documents = new BoardDocuments(hocuspocus, store, journal, persistence, objectEvents, registry, seats, messenger, signals);
  const zones = new ZoneSync(hocuspocus, messenger, documents, frames, signals);
  signals.subscribe((signal) => applySocketSignal(signal, { messenger, documents, zones }));
  const agentSockets = new AgentSocketsAdapter({ registry, seats, messenger, awareness: agentAwareness, clock });
  let sockets: { close(): void } | null = null;

  return {
    documents,
    zones,
    hocuspocus,
    agentSockets,
    listen(server) {
      sockets = attachSocketServer(server, {
        hocuspocus,
        access,
        whenDurable: (name) => journal.whenDurable(name),
        logger,
        gateLimits: deps.gateLimits,
        socketMessages: deps.socketMessages,
      });
    },
    async close() {
      sockets?.close();
      agentAwareness.close();
      await unloadAll(hocuspocus, journal);
    },
  };
}

/** Component events between the objects of loaded documents. */
function liveComponentEvents(hocuspocus: Hocuspocus, deps: RealtimeDependencies): ComponentEvents {
  return new ComponentEvents({
    manifests: deps.componentManifests,
    frames: deps.frames,
    // Only loaded documents: one no socket has open shows its components to nobody.
    liveObjects: (name) => {
      const live = hocuspocus.documents.get(name);
      return live && !live.isLoading ? readObjects(live) : null;
    },
  });
}

/** Closes every socket, stores every document and waits (a while) for them to unload, then for the journal's last writes. */
async function unloadAll(hocuspocus: Hocuspocus, journal: UpdateJournal): Promise<void> {
  hocuspocus.closeConnections();
  hocuspocus.flushPendingStores();
  const deadline = Date.now() + SHUTDOWN_UNLOAD_TIMEOUT_MS;
  while (hocuspocus.getDocumentsCount() > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await journal.close();
}

/** Does to this instance's sockets what another instance did to its own (socketSignals.ts). */
function applySocketSignal(signal: SocketSignal, to: { messenger: SocketMessenger; documents: BoardDocuments; zones: ZoneSync }): void {
  switch (signal.kind) {
    case 'broadcast':
      to.messenger.relay(signal.boardId, signal.message, signal.audience);
      return;
    case 'close-board':
      to.documents.disconnectAllHere(signal.boardId, signal.reason);
      return;
    case 'close-user':
      to.documents.disconnectUserHere(signal.boardId, signal.userId);
      return;
    case 'frame-changed':
      to.zones.frameChangedHere(signal.boardId, signal.before && frameFromWire(signal.before), frameFromWire(signal.after));
      return;
    default:
      assertNever(signal);
  }
}
