import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { InstanceChannel, InstanceChannels } from './instanceChannels.js';
import type { Logger } from '../logger.js';
import { redisOptions } from './redisOptions.js';

/** How long start waits for the channels' subscription before going on without it. */
const SUBSCRIBE_WAIT_MS = 2_000;

/** A published signal: which instance sent it (each skips its own), and the signal as JSON. */
interface Envelope {
  from: string;
  signal: unknown;
}

/**
 * Instance channels over Redis pub/sub: one publishing and one subscribed connection, a
 * Redis channel per name under the deployment's prefix. Pub/sub delivers to whoever listens
 * now, and signals only change memory, so a signal an instance misses while disconnected
 * is covered by what it reads on reconnect: its caches are emptied when the link comes back.
 */
export class RedisChannels implements InstanceChannels {
  readonly instanceId = randomUUID();
  private readonly handlers = new Map<string, Array<(signal: unknown) => void>>();
  private readonly reconnectListeners: Array<() => void> = [];

  private constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {
    subscriber.on('message', (channel: string, text: string) => this.deliver(channel, text));
    let connected = false;
    subscriber.on('ready', () => {
      if (connected) for (const listener of this.reconnectListeners) listener();
      connected = true;
    });
  }

  static async open(redisUrl: string, prefix: string, logger: Logger): Promise<RedisChannels> {
    // Loaded only in multi-instance mode.
    const { Redis } = await import('ioredis');
    const publisher = new Redis(redisUrl, redisOptions({ maxRetriesPerRequest: 1 }));
    const subscriber = new Redis(redisUrl, redisOptions());
    for (const client of [publisher, subscriber]) client.on('error', (error) => logger.warn({ err: error }, 'instance channels: Redis error'));
    return new RedisChannels(publisher, subscriber, prefix, logger);
  }

  channel<Signal>(name: string): InstanceChannel<Signal> {
    const key = `${this.prefix}${name}`;
    return {
      publish: (signal) => {
        const envelope: Envelope = { from: this.instanceId, signal };
        this.publisher.publish(key, JSON.stringify(envelope)).catch((error: unknown) => this.logger.error({ err: error, channel: key }, 'instance signal not published'));
      },
      subscribe: (handler) => {
        const handlers = this.handlers.get(key) ?? [];
        if (handlers.length === 0) {
          this.handlers.set(key, handlers);
          this.subscriber.subscribe(key).catch((error: unknown) => this.logger.error({ err: error, channel: key }, 'instance channel not subscribed'));
        }
        handlers.push(handler as (signal: unknown) => void);
      },
    };
  }

  async claimOnce(key: string, ttlMs: number): Promise<boolean> {
    return (await this.publisher.set(`${this.prefix}once:${key}`, this.instanceId, 'PX', ttlMs, 'NX')) === 'OK';
  }

  async ping(): Promise<void> {
    await this.publisher.ping();
  }

  onReconnect(listener: () => void): void {
    this.reconnectListeners.push(listener);
  }

  /**
   * Resolves once every channel asked for so far is subscribed, or after a few seconds with a
   * warning: an instance starts while Redis is unreachable, and hears the others once it is back.
   */
  async ready(): Promise<void> {
    if (this.handlers.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), SUBSCRIBE_WAIT_MS)));
    const subscribed = this.subscriber.subscribe(...this.handlers.keys()).then(() => 'subscribed' as const);
    subscribed.catch(() => undefined);
    const outcome = await Promise.race([subscribed, late]).catch(() => 'late' as const);
    clearTimeout(timer);
    if (outcome === 'late') this.logger.warn('instance channels: Redis unreachable; this instance hears the others once it is back');
  }

  async close(): Promise<void> {
    this.publisher.disconnect();
    this.subscriber.disconnect();
  }

  private deliver(channel: string, text: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(text) as Envelope;
    } catch {
      this.logger.warn({ channel }, 'instance signal ignored: not JSON');
      return;
    }
    if (envelope.from === this.instanceId) return;
    for (const handler of this.handlers.get(channel) ?? []) {
      try {
        handler(envelope.signal);
      } catch (error) {
        this.logger.error({ err: error, channel }, 'instance signal not applied');
      }
    }
  }
}
