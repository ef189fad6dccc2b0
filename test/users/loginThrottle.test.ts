import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISO_TIMESTAMP } from '../helpers/assertions.js';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/testServer.js';
import { createUser, login, usersEnv, type TestUser } from './userSessions.js';

/*
 * The limits are 5 failed logins per account and 20 per client address in 15 minutes.
 * rate-limiter-flexible keeps its windows on its own clock (Date.now and, with Redis, the
 * key's TTL), not on the service's injected clock, so these tests count attempts rather than
 * move time. Each describe has its own server: all requests come from 127.0.0.1, so their
 * address counts must not add up.
 */

/** 429 in the API's error body plus `retryAfter`, and the same number of seconds in `Retry-After`. */
function expectThrottled(response: ApiResponse): void {
  expect(response.status).toBe(429);
  expect(Object.keys(response.body).sort()).toEqual(['error', 'message', 'path', 'retryAfter', 'statusCode', 'timestamp']);
  expect(response.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests', path: '/api/v1/auth/login', timestamp: expect.stringMatching(ISO_TIMESTAMP) });
  const { retryAfter } = response.body as { retryAfter: number };
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(15 * 60);
  expect(response.headers.get('retry-after')).toBe(String(retryAfter));
}

async function failLogins(server: TestServer, email: string, times: number): Promise<void> {
  for (let attempt = 0; attempt < times; attempt += 1) {
    expect((await login(server, email, 'wrong-password')).status).toBe(401);
  }
}

describe('login throttling per account', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: usersEnv() });
  });
  afterAll(async () => {
    await server?.close();
  });

  // 16 failed attempts in all, under the address limit of 20, so only account limits refuse here.
  it('answers 429 with Retry-After to the 6th attempt after 5 failures, even with the right password, and to that account only', async () => {
    const victim = await createUser(server);
    const bystander = await createUser(server);
    await failLogins(server, victim.email, 5);
    expectThrottled(await login(server, victim.email, victim.password));
    expect((await login(server, bystander.email, bystander.password)).status).toBe(200);
  });

  it('starts the account afresh after a successful login', async () => {
    const user: TestUser = await createUser(server);
    await failLogins(server, user.email, 4);
    expect((await login(server, user.email, user.password)).status).toBe(200);
    await failLogins(server, user.email, 5);
    expectThrottled(await login(server, user.email, 'wrong-password'));
  });
});

describe('login throttling per client address', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: usersEnv() });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('throttles an unknown email exactly like a known one (429 reveals nothing)', async () => {
    const ghost = `ghost-${randomBytes(4).toString('hex')}@example.com`;
    await failLogins(server, ghost, 5);
    expectThrottled(await login(server, ghost, 'wrong-password'));
  });

  it('answers 429 to every account from an address once it has 20 failures, spread over many emails', async () => {
    // The previous test left 6 counted attempts on this address.
    for (let index = 0; index < 14; index += 1) await failLogins(server, `spray-${index}-${randomBytes(3).toString('hex')}@example.com`, 1);
    const user = await createUser(server);
    expectThrottled(await login(server, user.email, user.password));
    // Sixteen scrypt hashes (unknown emails are hashed too, for equal timing): ~2 s on an idle
    // machine, far more on a loaded CI runner.
  }, 120_000);
});

describe('login throttling while Redis cannot be reached', () => {
  let server: TestServer;
  beforeAll(async () => {
    // Nothing listens on port 1: every Redis command fails at once.
    server = await startTestServer({ env: usersEnv({ REDIS_URL: 'redis://127.0.0.1:1' }) });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('still logs users in and still throttles, counting in the instance’s memory', async () => {
    const user = await createUser(server);
    expect((await login(server, user.email, user.password)).status).toBe(200);
    await failLogins(server, user.email, 5);
    expectThrottled(await login(server, user.email, user.password));
  });
});
