import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { AttemptRecord, ClaimedDelivery, DeliveryLog, DeliveryState, RecordedAttempt } from '../store/deliveryLog.js';
import { GroupCommit } from '../util/groupCommit.js';
import { SendQueue } from './sendQueue.js';
import { attemptDelivery, DELIVERY_TIMEOUT_MS, type AttemptOutcome } from './sender.js';
import type { SubscriptionHealth } from './subscriptionHealth.js';

/** How often due deliveries are looked for when nothing wakes the dispatcher. */
const POLL_INTERVAL_MS = 250;
/** A claimed delivery is this instance's for this long; after a crash another instance takes it. */
const LEASE_MS = DELIVERY_TIMEOUT_MS + 20_000;
/** Due deliveries looked at (and claimed at most) per look. */
const CLAIM_BATCH = 100;
/** Looks past busy hosts per round (each leaves out at least one more URL). */
const MAX_LOOKS_PER_ROUND = 8;
/** Attempts in flight at once, in all and per receiving host: a slow receiver cannot hold the rest. */
const MAX_IN_FLIGHT = 128;
const MAX_IN_FLIGHT_PER_HOST = 32;
/** Outcomes not yet recorded are bounded too, should the database fall behind. */
const MAX_UNRECORDED = 4 * MAX_IN_FLIGHT;
const USER_AGENT = 'Whiteboard-Webhooks/1.0';

export interface DispatcherOptions {
  deliveryLog: DeliveryLog;
  /** Counts deliveries given up and says whose failure counts a success resets. */
  health: SubscriptionHealth;
  clock: Clock;
  logger: Logger;
  /** Delays before each retry (WEBHOOK_RETRY_DELAYS_MS). */
  retryDelaysMs: number[];
  allowPrivateTargets: boolean;
  /** Jitter added to each retry delay, 0-1000 ms (injectable for tests). */
  jitterMs?: () => number;
  /** Told of every attempt's outcome and duration (metrics). */
  observer?: DeliveryAttemptObserver;
}

/** What the dispatcher tells observability (metrics) of each attempt. */
export interface DeliveryAttemptObserver {
  attemptFinished(outcome: AttemptOutcome['kind'], durationMs: number): void;
}

/**
 * Sends the outbox: claims due deliveries with a lease (so with several instances each
 * delivery is sent by one), POSTs them, and records the outcome: success, a retry after
 * the next delay plus jitter (same delivery_id, same bytes), or `failed` after the last
 * retry, which its subscription's health counts.
 */
export class WebhookDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  /** Attempts not yet recorded (sending, or waiting for their outcome's commit). */
  private readonly attempts = new Set<Promise<void>>();
  private readonly queue = new SendQueue(
    { inFlightPerHost: MAX_IN_FLIGHT_PER_HOST, inFlightTotal: MAX_IN_FLIGHT, waitingPerHost: MAX_IN_FLIGHT_PER_HOST, waitingTotal: MAX_IN_FLIGHT },
    (delivery) => this.attempt(delivery),
    // Claims again only once a host's waiting list runs low: one round per many attempts.
    (_host, waiting) => {
      if (waiting < MAX_IN_FLIGHT_PER_HOST / 2) this.wake();
    },
  );
  /**
   * What the last look past busy hosts saw when it found nothing else due: the URLs it
   * looked past, and until when (monotonic ms) that holds. Such a look walks the whole backlog
   * of those URLs, so repeating it after every finished attempt cost more CPU than sending.
   * Retries falling due are found by the next poll; a delivery written for any other URL
   * makes the look worth doing again at once.
   */
  private nothingBeyond: { urls: Set<string>; until: number } | null = null;

  /** Attempt outcomes, written in batches: one transaction per burst instead of per attempt. */
  private readonly outcomes: GroupCommit<RecordedAttempt>;

  constructor(private readonly options: DispatcherOptions) {
    this.outcomes = new GroupCommit((attempts) => options.deliveryLog.record(attempts, options.health.recoveredBy(attempts)));
  }

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), POLL_INTERVAL_MS);
    this.timer.unref();
    this.wake();
  }

  /** New deliveries were written: any for a host not at its limit is worth looking past busy ones for. */
  deliveriesAdded(urls: string[]): void {
    const known = this.nothingBeyond;
    if (known && urls.some((url) => !known.urls.has(url))) this.nothingBeyond = null;
    this.wake();
  }

  /** Looks for due deliveries now. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.round()
      .catch((error) => this.options.logger.error({ err: error }, 'webhook dispatch round failed'))
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Runs rounds until nothing is due and nothing is in flight (tests and benchmarks). */
  async drain(): Promise<void> {
    do {
      this.wake();
      await this.running;
      await Promise.all([...this.attempts]);
    } while (this.running || this.attempts.size > 0);
  }

  /** Stops claiming, hands back the claimed deliveries not started yet, and waits for the rest. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
    const waiting = this.queue.takeWaiting();
    if (waiting.length > 0) {
      await this.options.deliveryLog
        .release(waiting.map((delivery) => delivery.id), this.options.clock.now())
        .catch((error) => this.options.logger.warn({ err: error }, 'claimed deliveries could not be handed back; they are retried when their lease ends'));
    }
    await Promise.all([...this.attempts]);
  }

  private async round(): Promise<void> {
    const { deliveryLog, clock } = this.options;
    const now = clock.now();
    // URLs of hosts at their limit are left out of the next look, so a backlog for one slow
    // receiver, however long, never hides the deliveries due to the others behind it.
    const passedOver = new Set<string>();
    for (let look = 0; look < MAX_LOOKS_PER_ROUND; look += 1) {
      const room = this.queue.room();
      if (room <= 0 || this.attempts.size >= MAX_UNRECORDED) return;
      if (look > 0 && this.knownEmptyBeyond(passedOver)) return;
      const limit = Math.min(CLAIM_BATCH, room * 2);
      const due = await deliveryLog.due(now, limit, [...passedOver]);
      if (look > 0 && due.length === 0) this.nothingBeyond = { urls: new Set(passedOver), until: performance.now() + POLL_INTERVAL_MS };
      const taken = new Map<string, number>();
      const wanted = due.filter((delivery) => {
        const host = hostOf(delivery.url);
        const count = taken.get(host) ?? 0;
        if (count >= this.queue.roomFor(host)) {
          passedOver.add(delivery.url);
          return false;
        }
        taken.set(host, count + 1);
        return true;
      });
      // Counted before sending: a crash mid-attempt uses the attempt up, so nothing retries forever.
      const claimed = await deliveryLog.claim(wanted.slice(0, room).map((d) => d.id), now, new Date(now.getTime() + LEASE_MS));
      for (const delivery of claimed) this.queue.add(hostOf(delivery.url), delivery);
      // Look further only past deliveries passed over for their host; the rest waits for the next round.
      if (due.length < limit || wanted.length === due.length) return;
    }
  }

  /** Whether a look past the `busy` URLs would find nothing, as far as the last such look knows. */
  private knownEmptyBeyond(busy: Set<string>): boolean {
    const known = this.nothingBeyond;
    if (!known || performance.now() >= known.until) return false;
    return [...busy].every((url) => known.urls.has(url));
  }

  /**
   * Sends one delivery and records its outcome; resolves when the receiver answered. The
   * host's slot is given back then: recording is batched with other outcomes and must not
   * hold the receiver's concurrency (it was two thirds of a slot's time).
   */
  private attempt(delivery: ClaimedDelivery): Promise<void> {
    const sent = this.send(delivery);
    const settled: Promise<void> = sent
      .then((outcome) => this.record(delivery, outcome))
      .catch((error) => {
        this.options.logger.error({ err: error, delivery_id: delivery.id }, 'recording a webhook attempt failed; the lease will expire and it is retried');
      })
      .finally(() => this.attempts.delete(settled));
    this.attempts.add(settled);
    return sent.then(() => undefined);
  }

  private send(delivery: ClaimedDelivery): Promise<AttemptOutcome> {
    return attemptDelivery({
      url: delivery.url,
      body: delivery.body,
      allowPrivate: this.options.allowPrivateTargets,
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': USER_AGENT,
        'X-Webhook-Signature': delivery.signature,
        'X-Webhook-Event': delivery.event,
        'X-Webhook-Delivery': delivery.id,
        // The event time (also the signed body's `timestamp`): receivers reject deliveries far
        // older than their tolerance, and dedupe by delivery_id.
        'X-Webhook-Timestamp': String(Math.floor(Date.parse(eventTimeOf(delivery.body)) / 1000)),
      },
    });
  }

  private async record(delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
    this.options.observer?.attemptFinished(outcome.kind, outcome.durationMs);
    const now = this.options.clock.now();
    const attempt: AttemptRecord = {
      statusCode: outcome.kind === 'network-error' ? null : outcome.statusCode,
      error: outcomeError(outcome),
      durationMs: outcome.durationMs,
      responded: outcome.kind !== 'network-error',
    };
    const next = this.nextState(delivery, outcome, now);
    const recorded: RecordedAttempt = { id: delivery.id, subscriptionId: delivery.subscriptionId, attempt, next };
    await this.outcomes.add(recorded);
    await this.options.health.outcomeRecorded(recorded);
  }

  /** Success, a retry after the next delay plus jitter, or failed after the last retry. */
  private nextState(delivery: ClaimedDelivery, outcome: AttemptOutcome, now: Date): DeliveryState {
    if (outcome.kind === 'success') return { status: 'success', at: now };
    const delay = this.options.retryDelaysMs[delivery.attemptCount - 1];
    if (delay === undefined) return { status: 'failed', at: now };
    const jitter = (this.options.jitterMs ?? (() => Math.floor(Math.random() * 1000)))();
    return { status: 'retry', at: new Date(now.getTime() + delay + jitter) };
  }
}

/** The event time of a stored envelope (cheaper than parsing the whole body). */
function eventTimeOf(body: string): string {
  return /"timestamp":"([^"]+)"/.exec(body)?.[1] ?? new Date().toISOString();
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function outcomeError(outcome: AttemptOutcome): string | null {
  switch (outcome.kind) {
    case 'success':
      return null;
    case 'http-error':
      return `HTTP ${outcome.statusCode}`;
    case 'network-error':
      return outcome.error;
  }
}
