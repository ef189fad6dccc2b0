import type { Server } from 'node:http';
import type { CacheSignal } from '../events/cacheSignals.js';
import type { InstanceMode } from '../realtime/instanceMode.js';
import type { Realtime } from '../realtime/realtime.js';
import type { Database } from '../store/database.js';
import type { InstanceChannel } from '../store/instanceChannels.js';
import { assertNever } from '../util/assertNever.js';
import type { BoardDomains } from './boardDomains.js';
import type { CoreDomains } from './coreDomains.js';
import type { HttpEdge } from './httpEdge.js';

/** Everything that starts and stops with the service. */
export interface RunningParts {
  server: Server;
  database: Database;
  instance: InstanceMode;
  core: CoreDomains;
  domains: BoardDomains;
  realtime: Realtime;
  edge: HttpEdge;
}

/** Drops what this instance cached when another instance signals a change, or when the link to them comes back. */
export function dropStaleCaches(caches: InstanceChannel<CacheSignal>, { instance, core, domains }: Pick<RunningParts, 'instance' | 'core' | 'domains'>): void {
  caches.subscribe((signal) => dropStale(signal, { core, domains }));
  // Grants, keys and plans are trusted for seconds only; frames and webhook targets until told.
  instance.channels.onReconnect(() => {
    core.frameDirectory.invalidateAll();
    domains.webhooks.forgetCached();
  });
}

/** Drops what this instance cached of a change another instance made (events/cacheSignals.ts). */
function dropStale(signal: CacheSignal, { core, domains }: Pick<RunningParts, 'core' | 'domains'>): void {
  switch (signal.kind) {
    case 'board':
      domains.forgetBoard(signal.boardId);
      return;
    case 'organization':
      core.organizations.forget(signal.organizationId);
      core.access.planChanged(signal.organizationId);
      return;
    case 'webhook-subscriptions':
      domains.webhooks.subscriptionsChanged(signal.organizationId);
      return;
    case 'agent':
      domains.agents.runtime.agentChangedElsewhere(signal.boardId, signal.agentId);
      return;
    default:
      assertNever(signal);
  }
}

/** Answers requests and sockets, then starts the background work: expiry sweeps, webhook deliveries, message metering, agents. */
export async function start({ server, core, domains, realtime, edge }: RunningParts): Promise<void> {
  server.on('request', edge.requests);
  realtime.listen(server);
  domains.expirySweeper.start();
  domains.webhooks.start();
  core.socketMessages.start();
  await domains.agents.runtime.start();
}

/** The service's `close()`: drains, then stops each part after what still writes through it; once, however often called. */
export function stopper(parts: RunningParts): () => Promise<void> {
  let closing: Promise<void> | null = null;
  return () => {
    closing ??= stop(parts);
    return closing;
  };
}

async function stop({ server, database, instance, core, domains, realtime, edge }: RunningParts): Promise<void> {
  edge.drain();
  await domains.expirySweeper.stop();
  await domains.agents.runtime.stop();
  // Sockets are told 1012 and reconnect elsewhere; every pending durable write is flushed.
  await realtime.close();
  // After the sockets: their leaving still raises events, which the outbox records.
  await domains.webhooks.stop();
  await core.socketMessages.stop();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await domains.limiters.close();
  await instance.close();
  await database.close();
}
