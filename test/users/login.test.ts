import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { expectErrorBody } from '../helpers/assertions.js';
import { serverForSuite } from '../helpers/fixtures.js';
import { bearer, call, createUser, decodeJwt, login, usersEnv, type TestUser } from './userSessions.js';

const LOGIN = '/api/v1/auth/login';
const clock = new ManualClock(new Date('2031-03-01T09:00:00.000Z'));
const { server } = serverForSuite({ clock, env: usersEnv() });
let user: TestUser;

beforeAll(async () => {
  user = await createUser(server);
});

describe('POST /auth/login', () => {
  it('answers 200 with an access token, a refresh token, the token type and the lifetime, never cached', async () => {
    const response = await login(server, user.email, user.password);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      accessToken: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      refresh_token: expect.stringMatching(/^[\w-]{43}$/),
      token_type: 'Bearer',
      expires_in: 900,
    });
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(JSON.stringify(response.body)).not.toContain(user.password);
  });

  it('signs an HS256 JWT naming the user and its organization, issued now and expiring in 15 minutes', async () => {
    const { accessToken } = (await login(server, user.email, user.password)).body;
    const { header, claims } = decodeJwt(accessToken);
    expect(header).toMatchObject({ alg: 'HS256', typ: 'JWT' });
    const now = clock.now().getTime() / 1000;
    expect(claims).toMatchObject({ sub: user.id, org: user.organizationId, iss: 'whiteboard', aud: 'whiteboard-api', iat: now, exp: now + 900 });
  });

  it('issues an access token that authenticates the user on GET /organizations', async () => {
    const { accessToken } = (await login(server, user.email, user.password)).body;
    const response = await call(server, 'GET', '/organizations', undefined, bearer(accessToken));
    expect(response.status).toBe(200);
    expect(response.body.organizations.map((organization: { id: string }) => organization.id)).toEqual([user.organizationId]);
  });

  it('finds the user whatever the case and surrounding spaces of the email', async () => {
    const response = await login(server, `  ${user.email.toUpperCase()} `, user.password);
    expect(response.status).toBe(200);
    expect(decodeJwt(response.body.accessToken).claims.sub).toBe(user.id);
  });

  it('answers a wrong password and an unknown email with the same 401 body', async () => {
    const wrongPassword = await login(server, user.email, `${user.password}x`);
    const unknownEmail = await login(server, 'nobody-here@example.com', user.password);
    expectErrorBody(wrongPassword, { statusCode: 401, error: 'Unauthorized', path: LOGIN });
    expectErrorBody(unknownEmail, { statusCode: 401, error: 'Unauthorized', path: LOGIN });
    expect(unknownEmail.body.message).toBe(wrongPassword.body.message);
    expect(unknownEmail.headers.get('www-authenticate')).toBe(wrongPassword.headers.get('www-authenticate'));
  });

  it('refuses another user’s password: each user logs in with its own', async () => {
    const other = await createUser(server);
    expectErrorBody(await login(server, user.email, other.password), { statusCode: 401, error: 'Unauthorized', path: LOGIN });
    expect((await login(server, other.email, other.password)).status).toBe(200);
  });

  it('answers 400 naming the field to a missing email or password, a wrong type or an unknown field', async () => {
    expectErrorBody(await call(server, 'POST', '/auth/login', { password: 'x' }), { statusCode: 400, error: 'Bad Request', path: LOGIN, field: 'email' });
    expectErrorBody(await call(server, 'POST', '/auth/login', { email: user.email }), { statusCode: 400, error: 'Bad Request', path: LOGIN, field: 'password' });
    expectErrorBody(await call(server, 'POST', '/auth/login', { email: user.email, password: 42 }), { statusCode: 400, error: 'Bad Request', path: LOGIN, field: 'password' });
    expectErrorBody(await call(server, 'POST', '/auth/login', { email: user.email, password: user.password, remember: true }), { statusCode: 400, error: 'Bad Request', path: LOGIN, field: 'remember' });
    expectErrorBody(await call(server, 'POST', '/auth/login', '{"email":'), { statusCode: 400, error: 'Bad Request', path: LOGIN });
  });
});
