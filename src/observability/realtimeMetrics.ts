import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DocumentLoadObserver } from '../realtime/persistenceExtension.js';
import type { RealtimeObservers } from '../realtime/realtime.js';
import type { UpdateJournalObserver } from '../realtime/updateJournal.js';
import { MetricsExtension, type UpdateSource } from './metricsExtension.js';

/** From a local commit (under a millisecond) to a database in trouble (the journal retries up to 5 s apart). */
const DURABLE_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LOAD_BUCKETS_S = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SOURCES: UpdateSource[] = ['socket', 'server', 'peer'];

/** The realtime engine's metrics: sockets, documents, updates and their fan-out, durable writes, loads. */
export function realtimeMetrics(registry: Registry): RealtimeObservers {
  const extension = new MetricsExtension();
  const registers = [registry];
  new Gauge({
    name: 'whiteboard_realtime_sockets_open',
    help: 'WebSocket connections with at least one document open on this instance.',
    registers,
    collect() {
      this.set(extension.socketsOpen());
    },
  });
  new Gauge({
    name: 'whiteboard_realtime_documents_loaded',
    help: 'Yjs documents (boards and zones) loaded in memory on this instance.',
    registers,
    collect() {
      this.set(extension.documentsLoaded());
    },
  });
  countedOnScrape(registry, extension);
  return {
    extension,
    journal: journalObserver(registry),
    documentLoads: loadObserver(registry),
  };
}

/** The update counters the extension keeps as plain numbers, handed to prom-client at each scrape. */
function countedOnScrape(registry: Registry, extension: MetricsExtension): void {
  const reported: Record<UpdateSource, number> = { socket: 0, server: 0, peer: 0 };
  new Counter({
    name: 'whiteboard_realtime_updates_total',
    help: 'Yjs updates applied to loaded documents, by who made them: socket (a client), server (REST, agents, zone sync) or peer (another instance, over Redis).',
    labelNames: ['source'],
    registers: [registry],
    collect() {
      for (const source of SOURCES) {
        this.labels(source).inc(extension.updates[source] - reported[source]);
        reported[source] = extension.updates[source];
      }
    },
  });
  let fanoutReported = 0;
  new Counter({
    name: 'whiteboard_realtime_update_fanout_total',
    help: 'Yjs updates times the sockets each was broadcast to (updates of one event-loop turn may leave in one frame).',
    registers: [registry],
    collect() {
      this.inc(extension.fanout - fanoutReported);
      fanoutReported = extension.fanout;
    },
  });
}

function journalObserver(registry: Registry): UpdateJournalObserver {
  const durable = new Histogram({
    name: 'whiteboard_update_journal_durable_seconds',
    help: 'Time from an update being recorded in the update journal to its group commit (what a client waits for its "saved").',
    buckets: DURABLE_BUCKETS_S,
    registers: [registry],
  });
  const failures = new Counter({
    name: 'whiteboard_update_journal_commit_failures_total',
    help: 'Group commits of the update journal that failed (their updates are retried, not lost).',
    registers: [registry],
  });
  return {
    updatesDurable(recordedAt, committedAt) {
      for (const at of recordedAt) durable.observe((committedAt - at) / 1000);
    },
    commitFailed: () => failures.inc(),
  };
}

function loadObserver(registry: Registry): DocumentLoadObserver {
  const loads = new Histogram({
    name: 'whiteboard_document_load_seconds',
    help: 'Time to load a document from the store (snapshot and update log), by outcome (loaded, failed).',
    labelNames: ['outcome'],
    buckets: LOAD_BUCKETS_S,
    registers: [registry],
  });
  // Both series exist from the start, so a dashboard's rate() sees the first load.
  loads.zero({ outcome: 'loaded' });
  loads.zero({ outcome: 'failed' });
  const loaded = loads.labels('loaded');
  const failed = loads.labels('failed');
  return {
    documentLoaded: (durationMs, outcome) => (outcome === 'loaded' ? loaded : failed).observe(durationMs / 1000),
  };
}
