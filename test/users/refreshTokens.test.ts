import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { expectErrorBody } from '../helpers/assertions.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { bearer, call, createUser, decodeJwt, loginAs, usersEnv, type TestUser } from './userSessions.js';

const REFRESH = '/api/v1/auth/refresh';
const DAY = 24 * 60 * 60 * 1000;
const clock = new ManualClock(new Date('2031-03-01T09:00:00.000Z'));
const { server } = serverForSuite({ clock, env: usersEnv() });
let user: TestUser;

beforeAll(async () => {
  user = await createUser(server);
});
const refresh = (token: string) => call(server, 'POST', '/auth/refresh', { refresh_token: token });
const organizations = (accessToken: string) => call(server, 'GET', '/organizations', undefined, bearer(accessToken));

const expectRefused = (response: Awaited<ReturnType<typeof refresh>>) =>
  expectErrorBody(response, { statusCode: 401, error: 'Unauthorized', path: REFRESH });

describe('POST /auth/refresh', () => {
  it('answers a new access token and a new refresh token, in the login answer’s shape', async () => {
    const session = await loginAs(server, user);
    clock.advance(60_000);
    const response = await refresh(session.refreshToken);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      accessToken: expect.any(String),
      refresh_token: expect.stringMatching(/^[\w-]{43}$/),
      token_type: 'Bearer',
      expires_in: 900,
    });
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body.refresh_token).not.toBe(session.refreshToken);
    expect(decodeJwt(response.body.accessToken).claims).toMatchObject({ sub: user.id, org: user.organizationId, iat: clock.now().getTime() / 1000 });
    expect((await organizations(response.body.accessToken)).status).toBe(200);
  });

  it('rotates: the spent refresh token is refused, the new one works', async () => {
    const session = await loginAs(server, user);
    const first = await refresh(session.refreshToken);
    expect(first.status).toBe(200);
    const second = await refresh(first.body.refresh_token);
    expect(second.status).toBe(200);
    expect((await organizations(second.body.accessToken)).status).toBe(200);
  });

  it('treats a spent token presented again as stolen: refused, and the whole session is revoked', async () => {
    const session = await loginAs(server, user);
    const rotated = await refresh(session.refreshToken);
    expect(rotated.status).toBe(200);

    expectRefused(await refresh(session.refreshToken));
    // The thief's and the owner's latest tokens alike: the family is dead.
    expectRefused(await refresh(rotated.body.refresh_token));
  });

  it('leaves the user’s other sessions alone when one session is revoked', async () => {
    const laptop = await loginAs(server, user);
    const phone = await loginAs(server, user);
    await refresh(laptop.refreshToken);
    expectRefused(await refresh(laptop.refreshToken));
    expect((await refresh(phone.refreshToken)).status).toBe(200);
  });

  it('lets only one of two simultaneous refreshes with one token through, and then revokes the session', async () => {
    const session = await loginAs(server, user);
    const answers = await Promise.all([refresh(session.refreshToken), refresh(session.refreshToken)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
    const winner = answers.find((answer) => answer.status === 200)!;
    expectRefused(await refresh(winner.body.refresh_token));
  });

  it('refuses a refresh token 30 days after it was issued, but not before', async () => {
    const kept = await loginAs(server, user);
    const left = await loginAs(server, user);
    clock.advance(30 * DAY - 1_000);
    expect((await refresh(kept.refreshToken)).status).toBe(200);
    clock.advance(1_000);
    expectRefused(await refresh(left.refreshToken));
  });

  it('refuses an unknown token and answers 400 to a missing or ill-typed refresh_token', async () => {
    expectRefused(await refresh('a'.repeat(43)));
    expectErrorBody(await call(server, 'POST', '/auth/refresh', {}), { statusCode: 400, error: 'Bad Request', path: REFRESH, field: 'refresh_token' });
    expectErrorBody(await call(server, 'POST', '/auth/refresh', { refresh_token: 7 }), { statusCode: 400, error: 'Bad Request', path: REFRESH, field: 'refresh_token' });
  });
});
