import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Plan } from '../../src/organizations/plans.js';
import { expectErrorBody } from '../helpers/assertions.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { type ApiResponse, type TestServer } from '../helpers/testServer.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** The rate-limit headers of an answer, as numbers. */
function limitsOf(response: ApiResponse): { limit: number; remaining: number; reset: number } {
  const header = (name: string) => {
    const value = response.headers.get(name);
    expect(value, name).toMatch(/^\d+$/);
    return Number(value);
  };
  return { limit: header('x-ratelimit-limit'), remaining: header('x-ratelimit-remaining'), reset: header('x-ratelimit-reset') };
}

/** Epoch seconds at which the window of `windowMs` holding `at` ends. */
function windowEnd(at: Date, windowMs: number): number {
  return ((Math.floor(at.getTime() / windowMs) + 1) * windowMs) / 1000;
}

/**
 * Asserts the API's 429: the error body plus `retryAfter` (integer seconds ≥ 1) and a
 * `Retry-After` header with the same value; returns `retryAfter`.
 */
function expectTooManyRequests(response: ApiResponse, path = '/api/v1/boards'): number {
  const { retryAfter, ...rest } = response.body as Record<string, unknown>;
  expectErrorBody({ ...response, body: rest }, { statusCode: 429, error: 'Too Many Requests', path });
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter as number).toBeGreaterThanOrEqual(1);
  expect(response.headers.get('retry-after')).toBe(String(retryAfter));
  return retryAfter as number;
}

/** A cheap API call as the holder of `apiKey`. */
function listBoards(server: TestServer, apiKey: string): Promise<ApiResponse> {
  return server.api('GET', '/boards', undefined, { 'x-api-key': apiKey });
}

async function callsUntilRefused(server: TestServer, apiKey: string, max: number): Promise<{ ok: number; refused: ApiResponse }> {
  for (let ok = 0; ok < max; ok += 1) {
    const response = await listBoards(server, apiKey);
    if (response.status === 429) return { ok, refused: response };
    expect(response.status).toBe(200);
  }
  throw new Error(`no 429 within ${max} calls`);
}

describe('a per-minute limit tighter than the hourly one', () => {
  const clock = new ManualClock(new Date('2031-03-01T09:00:30.000Z'));
  const { server } = serverForSuite({
      clock,
      env: { RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_PER_HOUR: '100', RATE_LIMIT_PER_HOUR_PREMIUM: '100' },
    });

  it('reports limit, remaining and reset on every call, remaining going down by one', async () => {
    const { apiKey } = await server.newOrganization();
    const seen = [];
    for (let i = 0; i < 3; i += 1) seen.push(limitsOf(await listBoards(server, apiKey)));
    const reset = windowEnd(clock.now(), MINUTE);
    expect(seen).toEqual([
      { limit: 3, remaining: 2, reset },
      { limit: 3, remaining: 1, reset },
      { limit: 3, remaining: 0, reset },
    ]);
    expect(reset).toBeGreaterThan(clock.now().getTime() / 1000);
  });

  it('answers 429 with retryAfter and Retry-After once the minute is used up, and keeps counting refused calls', async () => {
    clock.set(new Date('2031-03-01T09:10:30.000Z'));
    const { apiKey } = await server.newOrganization();
    const { ok, refused } = await callsUntilRefused(server, apiKey, 10);
    expect(ok).toBe(3);
    expect(expectTooManyRequests(refused)).toBe(30);
    expect(refused.body.message).toMatch(/3 requests per minute/);
    expect(limitsOf(refused)).toEqual({ limit: 3, remaining: 0, reset: windowEnd(clock.now(), MINUTE) });

    clock.advance(20_000);
    const again = await listBoards(server, apiKey);
    expect(expectTooManyRequests(again)).toBe(10);
    expect(limitsOf(again).remaining).toBe(0);
  });

  it('lets the first call after the window resets through with the whole allowance', async () => {
    clock.set(new Date('2031-03-01T09:20:59.000Z'));
    const { apiKey } = await server.newOrganization();
    await callsUntilRefused(server, apiKey, 10);
    clock.set(new Date('2031-03-01T09:21:00.000Z'));
    const first = await listBoards(server, apiKey);
    expect(first.status).toBe(200);
    expect(limitsOf(first)).toEqual({ limit: 3, remaining: 2, reset: windowEnd(clock.now(), MINUTE) });
  });

  it('counts per API key: another organization keeps its whole allowance', async () => {
    clock.set(new Date('2031-03-01T09:30:00.000Z'));
    const spent = await server.newOrganization();
    const other = await server.newOrganization();
    await callsUntilRefused(server, spent.apiKey, 10);
    const response = await listBoards(server, other.apiKey);
    expect(response.status).toBe(200);
    expect(limitsOf(response).remaining).toBe(2);
  });

  it('reports the headers on client errors too, and counts them', async () => {
    clock.set(new Date('2031-03-01T09:40:00.000Z'));
    const { apiKey } = await server.newOrganization();
    const missing = await server.api('GET', `/boards/${randomUUID()}`, undefined, { 'x-api-key': apiKey });
    expect(missing.status).toBe(404);
    expect(limitsOf(missing).remaining).toBe(2);
    const invalid = await server.api('POST', '/boards', { title: 42 }, { 'x-api-key': apiKey });
    expect(invalid.status).toBe(400);
    expect(limitsOf(invalid).remaining).toBe(1);
  });

  it('leaves calls without an API key alone', async () => {
    const unauthenticated = await server.api('GET', '/boards', undefined, { 'x-api-key': '' });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('both limits at once', () => {
  const clock = new ManualClock(new Date('2031-03-01T09:00:00.000Z'));
  const { server } = serverForSuite({
      clock,
      env: { RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_PER_HOUR: '5', RATE_LIMIT_PER_HOUR_PREMIUM: '5' },
    });

  it('reports whichever limit has the smaller share left, and refuses on the hourly one', async () => {
    clock.set(new Date('2031-03-01T10:00:10.000Z'));
    const { apiKey } = await server.newOrganization();
    const minuteEnd = () => windowEnd(clock.now(), MINUTE);
    const hourEnd = windowEnd(clock.now(), HOUR);

    expect(limitsOf(await listBoards(server, apiKey))).toEqual({ limit: 3, remaining: 2, reset: minuteEnd() }); // 2/3 < 4/5
    clock.advance(MINUTE);
    expect(limitsOf(await listBoards(server, apiKey))).toEqual({ limit: 5, remaining: 3, reset: hourEnd }); // 3/5 < 2/3
    expect(limitsOf(await listBoards(server, apiKey))).toEqual({ limit: 3, remaining: 1, reset: minuteEnd() }); // 1/3 < 2/5
    clock.advance(MINUTE);
    expect(limitsOf(await listBoards(server, apiKey))).toEqual({ limit: 5, remaining: 1, reset: hourEnd });
    const last = await listBoards(server, apiKey);
    expect(last.status).toBe(200);
    expect(limitsOf(last)).toEqual({ limit: 5, remaining: 0, reset: hourEnd });

    const refused = await listBoards(server, apiKey);
    expect(expectTooManyRequests(refused)).toBe(hourEnd - clock.now().getTime() / 1000);
    expect(refused.body.message).toMatch(/5 requests per hour/);
    expect(limitsOf(refused)).toEqual({ limit: 5, remaining: 0, reset: hourEnd });
  });

  it('counts calls refused by the minute limit against the hour', async () => {
    clock.set(new Date('2031-03-01T11:00:00.000Z'));
    const { apiKey } = await server.newOrganization();
    const { ok } = await callsUntilRefused(server, apiKey, 10);
    expect(ok).toBe(3);

    clock.advance(MINUTE);
    const next = await listBoards(server, apiKey);
    expect(next.status).toBe(200);
    expect(limitsOf(next)).toEqual({ limit: 5, remaining: 0, reset: windowEnd(clock.now(), HOUR) });
    expectTooManyRequests(await listBoards(server, apiKey));
  });
});

describe('the hourly limit by plan', () => {
  const clock = new ManualClock(new Date('2031-03-01T09:15:00.000Z'));
  const { server } = serverForSuite({
      clock,
      env: { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '5', RATE_LIMIT_PER_HOUR_PREMIUM: '8' },
    });

  const cases: Array<[Plan, number]> = [
    ['starter', 5],
    ['professional', 5],
    ['business', 8],
    ['enterprise', 8],
  ];
  it.each(cases)('allows a %s key %i calls an hour', async (plan, limit) => {
    const { apiKey } = await server.newOrganization(plan);
    const { ok, refused } = await callsUntilRefused(server, apiKey, 20);
    expect(ok).toBe(limit);
    const hourEnd = windowEnd(clock.now(), HOUR);
    expect(expectTooManyRequests(refused)).toBe(45 * 60);
    expect(limitsOf(refused)).toEqual({ limit, remaining: 0, reset: hourEnd });
    expect(hourEnd).toBeLessThanOrEqual(clock.now().getTime() / 1000 + 3600);
  });

  it('applies a plan change on the next call, keeping the calls already made this hour', async () => {
    const { apiKey, organizationId } = await server.newOrganization('professional');
    const { ok } = await callsUntilRefused(server, apiKey, 20);
    expect(ok).toBe(5);
    await server.app.organizations.changePlan(organizationId, 'business');
    const upgraded = await listBoards(server, apiKey);
    expect(upgraded.status).toBe(200);
    expect(limitsOf(upgraded)).toMatchObject({ limit: 8, remaining: 1 });
  });
});

describe('with rate limits turned off', () => {
  const { server } = serverForSuite();

  it('sends no rate-limit headers and never refuses', async () => {
    const answers = await Promise.all(Array.from({ length: 120 }, () => server.api('GET', '/boards')));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(answers[0]!.headers.get('x-ratelimit-limit')).toBeNull();
  });
});
