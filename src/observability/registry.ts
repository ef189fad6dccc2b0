import { collectDefaultMetrics, Registry } from 'prom-client';

let processMetrics: Registry | null = null;

/**
 * The process's own metrics (CPU, memory, handles, GC, event-loop lag: prom-client's defaults,
 * `process_*` and `nodejs_*`), created once per process. Each collection starts an event-loop
 * delay monitor and a GC observer that are never stopped, and tests start many apps in one
 * process; the figures describe the process anyway, whichever app exposes them.
 */
function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}

/** One app's metrics: its own registry (never prom-client's global one), exposed with the process's. */
export class AppRegistry {
  readonly own = new Registry();

  get contentType(): string {
    return this.own.contentType;
  }

  /** The Prometheus text of the process's metrics and this app's. */
  async exposition(): Promise<string> {
    return Registry.merge([processRegistry(), this.own]).metrics();
  }
}
