import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../src/webhooks/signature.js';
import { killRunningServices, startServiceProcess, type ServiceProcess } from '../helpers/serviceProcess.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { eventually, request, type ApiResponse } from '../helpers/testServer.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhookReceiver.js';

/**
 * The outbox survives the process: the service runs as a real OS process on a real
 * database (SQLite file or PostgreSQL), is killed with SIGKILL, and is started again.
 */
const PROCESS_TEST_TIMEOUT_MS = 120_000;
const RETRY_DELAYS = '1500,1500,1500';

interface DeliveryRecord {
  delivery_id: string;
  status: string;
  attempt_count: number;
  last_status_code: number | null;
  next_attempt_at: string | null;
}

const databases: TestDatabase[] = [];
let receiver: WebhookReceiver;

beforeEach(async () => {
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  await killRunningServices();
  await receiver.close();
  await Promise.all(databases.splice(0).map((database) => database.drop()));
});
afterAll(async () => {
  await killRunningServices();
});

/** A fresh database and the environment of a service on it. */
async function serviceEnvironment(): Promise<Record<string, string>> {
  const database = await createTestDatabase();
  databases.push(database);
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    BOOTSTRAP_API_KEY: `wb_${randomBytes(24).toString('base64url')}`,
    LOG_LEVEL: 'warn',
    WEBHOOK_RETRY_DELAYS_MS: RETRY_DELAYS,
  };
}

function api(service: ServiceProcess, env: Record<string, string>, method: string, path: string, body?: unknown): Promise<ApiResponse> {
  return request(service.url, method, `/api/v1${path}`, body, { 'x-api-key': env.BOOTSTRAP_API_KEY! });
}

async function deliveries(service: ServiceProcess, env: Record<string, string>): Promise<DeliveryRecord[]> {
  const listed = await api(service, env, 'GET', '/webhooks/deliveries');
  expect(listed.status).toBe(200);
  return listed.body;
}

async function killed(service: ServiceProcess): Promise<void> {
  expect(await service.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
}

describe('webhook deliveries across a SIGKILL and a restart', () => {
  it(
    'resumes a delivery waiting for its retry after a restart, with the same delivery_id and bytes, and ends success',
    async () => {
      const env = await serviceEnvironment();
      receiver.reply({ status: 500 });
      let service = await startServiceProcess(env);
      const subscription = await api(service, env, 'POST', '/webhooks/subscriptions', { url: receiver.url, events: ['board.created'] });
      expect(subscription.status).toBe(201);
      const created = await api(service, env, 'POST', '/boards', { title: 'Durable' });
      expect(created.status).toBe(201);

      // The delivery was written before the API answered.
      const [written] = await deliveries(service, env);
      expect(written).toMatchObject({ status: 'pending' });

      // Kill once the failed first attempt is recorded and the retry is scheduled.
      await receiver.waitFor(1);
      await eventually(async () => {
        const [record] = await deliveries(service, env);
        return record?.attempt_count === 1 && record.last_status_code === 500 && record.status === 'pending';
      });
      await killed(service);
      expect(receiver.requests).toHaveLength(1);

      const restartedAt = Date.now();
      service = await startServiceProcess(env);
      const [done] = (await eventually(async () => {
        const list = await deliveries(service, env);
        return list[0]?.status === 'success' ? list : undefined;
      }, 20_000))!;
      expect(done).toMatchObject({ delivery_id: written!.delivery_id, status: 'success', attempt_count: 2, last_status_code: 200 });

      const [first, second] = receiver.requests;
      expect(receiver.requests).toHaveLength(2);
      expect(second!.arrivedAt).toBeGreaterThanOrEqual(restartedAt);
      expect(second!.json.delivery_id).toBe(written!.delivery_id);
      expect(second!.rawBody.equals(first!.rawBody)).toBe(true);
      expect(second!.json.data.board_id).toBe(created.body.board_uuid);
      expect(verifyWebhookSignature(second!.rawBody, second!.headers['x-webhook-signature'] as string, subscription.body.secret)).toBe(true);
      await service.stop('SIGTERM');
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'delivers after a restart an event whose API call was answered just before the process was killed',
    async () => {
      const env = await serviceEnvironment();
      let isKilled = false;
      // Until the kill, hold any request unanswered: nothing can be recorded as delivered before it.
      receiver.respondWith(() => (isKilled ? undefined : { delayMs: 60_000 }));
      let service = await startServiceProcess(env);
      const subscription = await api(service, env, 'POST', '/webhooks/subscriptions', { url: receiver.url, events: ['board.created'] });
      expect(subscription.status).toBe(201);
      const created = await api(service, env, 'POST', '/boards', { title: 'Killed right after' });
      expect(created.status).toBe(201);
      await killed(service);
      isKilled = true;
      const beforeRestart = receiver.requests.length;

      const restartedAt = Date.now();
      service = await startServiceProcess(env);
      // An attempt caught in flight by the kill is taken up again once its lease has run out (30 s).
      const [done] = (await eventually(async () => {
        const list = await deliveries(service, env);
        return list[0]?.status === 'success' ? list : undefined;
      }, 60_000))!;
      expect(done).toMatchObject({ status: 'success', last_status_code: 200 });
      // One attempt after the restart, plus the one the kill may have caught in flight.
      expect(done!.attempt_count).toBeGreaterThanOrEqual(beforeRestart + 1);
      expect(done!.attempt_count).toBeLessThanOrEqual(2);

      const afterRestart = receiver.requests.filter((r) => r.arrivedAt >= restartedAt);
      expect(afterRestart).toHaveLength(1);
      expect(afterRestart[0]!.json).toMatchObject({ delivery_id: done!.delivery_id, event: 'board.created', data: { board_id: created.body.board_uuid } });
      for (const earlier of receiver.requests) expect(earlier.rawBody.equals(afterRestart[0]!.rawBody)).toBe(true);
      expect(verifyWebhookSignature(afterRestart[0]!.rawBody, afterRestart[0]!.headers['x-webhook-signature'] as string, subscription.body.secret)).toBe(true);
      await service.stop('SIGTERM');
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
