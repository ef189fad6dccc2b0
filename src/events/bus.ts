import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { BusEvent, EventMeta, EventName, EventPayloadByName } from './types.js';

/** A subscriber; it may be async, and `publish` waits for it. */
export type EventListener = (event: BusEvent) => void | Promise<void>;

/** The board an event is about. */
export interface EventScope {
  boardId: string;
  organizationId: string;
}

/**
 * Whether a listener may act on an event of this name for this board, answered from memory:
 * false only when it is sure it would do nothing (no webhook target, no agent trigger), true
 * whenever it does not know yet.
 */
export type EventInterest = (name: EventName, scope: EventScope) => boolean;

const ALWAYS: EventInterest = () => true;

/**
 * The in-process event bus. `publish` resolves once every listener has handled the
 * event, so a listener that must persist something (the webhook outbox) finishes
 * before the API call that caused the event answers. A failing listener is logged
 * and never breaks the caller or the other listeners.
 */
export class EventBus {
  private readonly listeners = new Map<EventListener, EventInterest>();

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /**
   * Registers a listener for every event; returns the function that removes it. Without an
   * `interest` the listener counts as wanting every event.
   */
  subscribe(listener: EventListener, interest: EventInterest = ALWAYS): () => void {
    this.listeners.set(listener, interest);
    return () => this.listeners.delete(listener);
  }

  /**
   * Whether any listener may act on such an event. Publishers of events raised on every socket
   * edit ask first, and do not build events nobody would act on; other events are published
   * regardless.
   */
  isWanted(name: EventName, scope: EventScope): boolean {
    for (const interest of this.listeners.values()) if (interest(name, scope)) return true;
    return false;
  }

  async publish<N extends EventName>(name: N, payload: EventPayloadByName[N], meta: EventMeta = {}): Promise<void> {
    const event = { name, payload, occurredAt: this.clock.now(), meta } as BusEvent;
    await Promise.all(
      [...this.listeners.keys()].map(async (listener) => {
        try {
          await listener(event);
        } catch (error) {
          this.logger.error({ err: error, event: name }, 'event listener failed');
        }
      }),
    );
  }
}
