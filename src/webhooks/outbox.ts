import { randomUUID } from 'node:crypto';
import type { BoardWebhookTarget } from '../boards/boardService.js';
import type { Clock } from '../clock.js';
import type { EventScope } from '../events/bus.js';
import type { BusEvent, EventName } from '../events/types.js';
import type { Logger } from '../logger.js';
import type { Db } from '../store/database.js';
import type { DeliveryLog } from '../store/deliveryLog.js';
import { LoadedCache } from '../util/loadedCache.js';
import { subscribesTo, WEBHOOK_EVENTS } from './eventPatterns.js';
import type { SecretBox } from './secretBox.js';
import { signWebhookBody } from './signature.js';

const WEBHOOK_EVENT_NAMES = new Set<string>(WEBHOOK_EVENTS);

/** Boards whose webhook target is kept in memory (every new board's is, until it is evicted). */
const MAX_CACHED_BOARDS = 20_000;

interface ActiveSubscription {
  id: string;
  url: string;
  events: string[];
  /** Sealed with the SecretBox. */
  secret: string;
}

/**
 * The durable outbox: every event that matches an active subscription (or a board's
 * `webhook_url`) becomes a delivery row before the bus's `publish` resolves, that is before
 * the API call (or the durable socket change) that caused it is answered. The dispatcher
 * sends the rows; a crash or restart leaves them in the database to resume from.
 */
export class WebhookOutbox {
  private readonly subscriptions = new LoadedCache<string, ActiveSubscription[]>();
  private readonly boards = new LoadedCache<string, BoardWebhookTarget | null>(MAX_CACHED_BOARDS);

  constructor(
    private readonly deps: {
      db: Db;
      deliveryLog: DeliveryLog;
      clock: Clock;
      secrets: SecretBox;
      logger: Logger;
      wake: (urls: string[]) => void;
      /** The `webhooks_daily` quota: how many of `count` deliveries the organization may still make today. */
      quotas: { consumeUpTo(organizationId: string, type: 'webhooks_daily', count: number): Promise<number> };
    },
  ) {}

  /** Bus listener. */
  readonly onEvent = async (event: BusEvent): Promise<void> => {
    if (!WEBHOOK_EVENT_NAMES.has(event.name)) return;
    const payload = event.payload as unknown as { board_id: string; organization_id: string };
    const [subscriptions, board] = await Promise.all([
      this.activeSubscriptions(payload.organization_id),
      this.boardTarget(payload.board_id),
    ]);
    const targets: Array<{ url: string; subscriptionId: string | null; secret: string }> = subscriptions
      .filter((subscription) => subscribesTo(subscription.events, event.name))
      .map((s) => ({ url: s.url, subscriptionId: s.id, secret: s.secret }));
    if (board?.webhookUrl && board.webhookSecret) targets.push({ url: board.webhookUrl, subscriptionId: null, secret: board.webhookSecret });
    if (targets.length === 0) return;
    const timestamp = event.occurredAt.toISOString();
    const data = withExternalData(event.payload, board?.externalData ?? null);
    const now = this.deps.clock.now();
    // Deliveries past the day's quota are kept in the log as failed (`quota_exceeded`), never sent.
    const allowed = await this.deps.quotas.consumeUpTo(payload.organization_id, 'webhooks_daily', targets.length);
    await this.deps.deliveryLog.insert(
      targets.map((target, index) => {
        const deliveryId = randomUUID();
        // Serialized once: every attempt sends these exact bytes.
        const body = JSON.stringify({ delivery_id: deliveryId, event: event.name, timestamp, data });
        return {
          id: deliveryId,
          organizationId: payload.organization_id,
          subscriptionId: target.subscriptionId,
          boardId: payload.board_id,
          event: event.name,
          url: target.url,
          body,
          signature: signWebhookBody(body, this.deps.secrets.open(target.secret)),
          createdAt: now,
          ...(index < allowed ? {} : { refusedBecause: 'quota_exceeded' }),
        };
      }),
    );
    if (event.name === 'board.deleted') this.boards.delete(payload.board_id);
    if (allowed > 0) this.deps.wake(targets.slice(0, allowed).map((target) => target.url));
  };

  /**
   * Bus interest: whether such an event could become a delivery. No when the organization's
   * subscriptions and the board's target are known and none takes it; yes when either is not
   * loaded yet (publishing it loads them).
   */
  readonly wants = (name: EventName, scope: EventScope): boolean => {
    if (!WEBHOOK_EVENT_NAMES.has(name)) return false;
    const subscriptions = this.subscriptions.peek(scope.organizationId);
    const board = this.boards.peek(scope.boardId);
    if (!subscriptions || !board) return true;
    return Boolean(board.value?.webhookUrl) || subscriptions.value.some((subscription) => subscribesTo(subscription.events, name));
  };

  /** Forgets the cached subscriptions of an organization (after any subscription change). */
  subscriptionsChanged(organizationId: string): void {
    this.subscriptions.delete(organizationId);
  }

  /** Forgets every cached subscription and board target (changes made elsewhere may have been missed). */
  forgetAll(): void {
    this.subscriptions.clear();
    this.boards.clear();
  }

  /** Forgets a board's cached webhook target (after its webhook_url changed). */
  boardChanged(boardId: string): void {
    this.boards.delete(boardId);
  }

  /** Takes a new board's target as written, so its first event does not read it back. */
  boardCreated(boardId: string, target: BoardWebhookTarget): void {
    this.boards.set(boardId, target);
  }

  private activeSubscriptions(organizationId: string): Promise<ActiveSubscription[]> {
    return this.subscriptions.get(organizationId, async () => {
      const rows = await this.deps.db.webhookSubscription.findMany({
        where: { organizationId, isActive: true },
        select: { id: true, url: true, events: true, secret: true },
      });
      return rows.map((row) => ({ id: row.id, url: row.url, secret: row.secret, events: JSON.parse(row.events) as string[] }));
    });
  }

  private boardTarget(boardId: string): Promise<BoardWebhookTarget | null> {
    return this.boards.get(boardId, async () => {
      const row = await this.deps.db.board.findUnique({ where: { id: boardId }, select: { webhookUrl: true, webhookSecret: true, externalData: true } });
      if (!row) return null;
      return {
        webhookUrl: row.webhookUrl,
        webhookSecret: row.webhookSecret,
        externalData: row.externalData ? (JSON.parse(row.externalData) as Record<string, unknown>) : null,
      };
    });
  }
}

/**
 * Every payload echoes the board's `external_data`, and so does its `board` block where it has
 * one (participant.joined). Added here, from the outbox's cached copy, so that publishing an
 * event never reads the board's large columns.
 */
function withExternalData(payload: object, externalData: Record<string, unknown> | null): Record<string, unknown> {
  const { board } = payload as { board?: unknown };
  const withBoard = typeof board === 'object' && board !== null ? { board: { ...board, external_data: externalData } } : {};
  return { external_data: externalData, ...payload, ...withBoard };
}
