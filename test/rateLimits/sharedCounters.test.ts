import { randomBytes } from 'node:crypto';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { eventually, startTestServer, type ApiResponse, type TestServer } from '../helpers/testServer.js';

const REDIS_URL = process.env.REDIS_URL;
const NEEDS_REDIS = 'needs REDIS_URL';

/** Fresh Redis keys on every run, so reruns never see an earlier run's counts. */
function uniquePrefix(): string {
  return `wb:rl:test:${randomBytes(6).toString('hex')}:`;
}

function minuteLimit(limit: number, extra: Record<string, string> = {}): Record<string, string> {
  return { RATE_LIMIT_PER_MINUTE: String(limit), RATE_LIMIT_PER_HOUR: '0', RATE_LIMIT_PER_HOUR_PREMIUM: '0', ...extra };
}

function remainingOf(response: ApiResponse): number {
  return Number(response.headers.get('x-ratelimit-remaining'));
}

/** A TCP relay in front of Redis that a test can cut and restore, to play a Redis outage. */
async function startRedisRelay(redisUrl: string): Promise<{ url: string; cut(): Promise<void>; restore(): Promise<void> }> {
  const target = new URL(redisUrl);
  const sockets = new Set<Socket>();
  let port = 0;
  let server: Server;
  const open = async () => {
    server = createServer((client) => {
      const upstream = connect(Number(target.port || 6379), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  };
  await open();
  const relayed = new URL(redisUrl);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(port);
  return {
    url: relayed.toString(),
    async cut() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    restore: open,
  };
}

const servers: TestServer[] = [];
afterEach(async () => {
  // The first server owns the database; later ones share it and only stop.
  const [owner, ...sharing] = servers.splice(0);
  for (const server of sharing) await server.stop();
  await owner?.close();
});

describe('rate-limit counters in Redis', () => {
  it.skipIf(!REDIS_URL)(`are shared by two instances: 150 calls round-robin, exactly 100 pass (${NEEDS_REDIS})`, async () => {
    const clock = new ManualClock(new Date('2031-03-01T09:00:05.000Z'));
    const env = minuteLimit(100, { REDIS_URL: REDIS_URL!, RATE_LIMIT_KEY_PREFIX: uniquePrefix() });
    const first = await startTestServer({ clock, env });
    servers.push(first);
    const second = await startTestServer({ clock, env, database: first.database });
    servers.push(second);

    const answers = await Promise.all(
      Array.from({ length: 150 }, (_, i) => (i % 2 === 0 ? first : second).api('GET', '/boards', undefined, { 'x-api-key': first.apiKey })),
    );
    const passed = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(passed).toHaveLength(100);
    expect(refused).toHaveLength(50);
    // Atomic counting: every remaining value from 99 down to 0 was handed out exactly once.
    expect(passed.map(remainingOf).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(refused.every((answer) => remainingOf(answer) === 0)).toBe(true);
  });

  it.skipIf(!REDIS_URL)(`keep limiting in memory while Redis is down, and count in Redis again once it is back (${NEEDS_REDIS})`, async () => {
    const relay = await startRedisRelay(REDIS_URL!);
    const prefix = uniquePrefix();
    const clock = new ManualClock(new Date('2031-03-01T09:00:05.000Z'));
    const server = await startTestServer({ clock, env: minuteLimit(5, { REDIS_URL: relay.url, RATE_LIMIT_KEY_PREFIX: prefix }) });
    servers.push(server);
    const redis = new Redis(REDIS_URL!);
    try {
      const storedCount = async () => {
        const keys = await redis.keys(`${prefix}*`);
        expect(keys).toHaveLength(1);
        return Number(await redis.get(keys[0]!));
      };
      for (let i = 0; i < 2; i += 1) expect((await server.api('GET', '/boards')).status).toBe(200);
      expect(await storedCount()).toBe(2);

      await relay.cut();
      const during = [];
      for (let i = 0; i < 6; i += 1) during.push((await server.api('GET', '/boards')).status);
      // This instance's own allowance, counted in memory: limited, never a 500.
      expect(during).toEqual([200, 200, 200, 200, 200, 429]);
      expect(await storedCount()).toBe(2);

      await relay.restore();
      const back = await eventually(async () => {
        const response = await server.api('GET', '/boards');
        expect([200, 429]).toContain(response.status);
        return response.status === 200 ? response : null;
      }, 15_000);
      expect(remainingOf(back!)).toBe(2);
      expect(await storedCount()).toBe(3);
    } finally {
      redis.disconnect();
      await relay.cut();
    }
  });
});

describe('rate-limit counters with an unreachable Redis', () => {
  it('start anyway and limit each instance in memory, never answering 500', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));

    const clock = new ManualClock(new Date('2031-03-01T09:00:05.000Z'));
    const server = await startTestServer({ clock, env: minuteLimit(3, { REDIS_URL: `redis://127.0.0.1:${port}` }) });
    servers.push(server);
    const statuses = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await server.api('GET', '/boards')).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });
});
