import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { BusEvent, EventMeta, EventName, EventPayloadByName } from './types.js';

/** A subscriber; it may be async, and `publish` waits for it. */
export type EventListener = (event: BusEvent) => void | Promise<void>;

/**
 * The in-process event bus. `publish` resolves once every listener has handled the
 * event, so a listener that must persist something (the webhook outbox) finishes
 * before the API call that caused the event answers. A failing listener is logged
 * and never breaks the caller or the other listeners.
 */
export class EventBus {
  private readonly listeners = new Set<EventListener>();

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Registers a listener for every event; returns the function that removes it. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async publish<N extends EventName>(name: N, payload: EventPayloadByName[N], meta: EventMeta = {}): Promise<void> {
    const event = { name, payload, occurredAt: this.clock.now(), meta } as BusEvent;
    await Promise.all(
      [...this.listeners].map(async (listener) => {
        try {
          await listener(event);
        } catch (error) {
          this.logger.error({ err: error, event: name }, 'event listener failed');
        }
      }),
    );
  }
}
