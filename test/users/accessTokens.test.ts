import { randomBytes } from 'node:crypto';
import { SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { expectErrorBody } from '../helpers/assertions.js';
import { restartsForSuite } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/testServer.js';
import { bearer, call, createUser, decodeJwt, loginAs, usersEnv, type TestUser } from './userSessions.js';

const ORGANIZATIONS = '/api/v1/organizations';
const JWT_SECRET = randomBytes(32).toString('hex');
const MINUTE = 60_000;

describe('access tokens (JWT_SECRET set)', () => {
  const clock = new ManualClock(new Date('2031-03-01T09:00:00.000Z'));
  let server: TestServer;
  let user: TestUser;

  beforeAll(async () => {
    server = await startTestServer({ clock, env: usersEnv({ JWT_SECRET }) });
    user = await createUser(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  const organizations = (token: string) => call(server, 'GET', '/organizations', undefined, bearer(token));
  const expectRefused = async (token: string) => {
    const response = await organizations(token);
    expectErrorBody(response, { statusCode: 401, error: 'Unauthorized', path: ORGANIZATIONS });
    expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  };
  /** Claims a genuine token of `user` would carry now. */
  const genuineClaims = (): JWTPayload => {
    const now = Math.floor(clock.now().getTime() / 1000);
    return { sub: user.id, org: user.organizationId, iss: 'whiteboard', aud: 'whiteboard-api', iat: now, exp: now + 900 };
  };
  const forge = (claims: JWTPayload, alg = 'HS256', secret = JWT_SECRET) =>
    new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).sign(new TextEncoder().encode(secret));

  it('accepts a token until 15 minutes after issue plus 60 s of clock skew, then answers 401', async () => {
    const { accessToken } = await loginAs(server, user);
    clock.advance(15 * MINUTE + 59_000);
    expect((await organizations(accessToken)).status).toBe(200);
    clock.advance(2_000);
    await expectRefused(accessToken);
  });

  it('answers an expired token with a message saying so, and a fresh login works again', async () => {
    const { accessToken } = await loginAs(server, user);
    clock.advance(60 * MINUTE);
    expect((await organizations(accessToken)).body.message).toMatch(/expired/i);
    const fresh = await loginAs(server, user);
    expect((await organizations(fresh.accessToken)).status).toBe(200);
  });

  it('accepts a token forged with the right key, algorithm and claims (the forging below is sound)', async () => {
    expect((await organizations(await forge(genuineClaims()))).status).toBe(200);
  });

  it('refuses a token whose payload or signature was changed after signing', async () => {
    const { accessToken } = await loginAs(server, user);
    const [header, payload, signature] = accessToken.split('.') as [string, string, string];
    const other = await server.newOrganization();
    const changed = Buffer.from(JSON.stringify({ ...decodeJwt(accessToken).claims, org: other.organizationId })).toString('base64url');
    await expectRefused(`${header}.${changed}.${signature}`);
    const flipped = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    await expectRefused(`${header}.${payload}.${flipped}`);
  });

  it('refuses an unsigned token (alg: none)', async () => {
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    await expectRefused(`${encode({ alg: 'none', typ: 'JWT' })}.${encode(genuineClaims())}.`);
  });

  it('refuses HS512 with the right key (only HS256 is allowed) and HS256 with another key', async () => {
    await expectRefused(await forge(genuineClaims(), 'HS512'));
    await expectRefused(await forge(genuineClaims(), 'HS256', randomBytes(32).toString('hex')));
  });

  it('refuses a token without exp, or with another issuer or audience', async () => {
    const { exp: _exp, ...withoutExp } = genuineClaims();
    await expectRefused(await forge(withoutExp));
    await expectRefused(await forge({ ...genuineClaims(), iss: 'someone-else' }));
    await expectRefused(await forge({ ...genuineClaims(), aud: 'another-api' }));
  });

  it('refuses a signed token whose organization is not the user’s, or whose user does not exist', async () => {
    const other = await server.newOrganization();
    await expectRefused(await forge({ ...genuineClaims(), org: other.organizationId }));
    await expectRefused(await forge({ ...genuineClaims(), sub: '00000000-0000-4000-8000-000000000000' }));
  });

  it('answers 401 to a bearer that is neither a token nor a key, and to no credential at all', async () => {
    await expectRefused('not.a.jwt');
    expectErrorBody(await call(server, 'GET', '/organizations'), { statusCode: 401, error: 'Unauthorized', path: ORGANIZATIONS });
  });
});

describe('access tokens (key generated and kept in the database)', () => {
  const servers = restartsForSuite();

  it('keeps accepting tokens after a restart, because the signing key is kept in the database', async () => {
    const first = await servers.restart({ env: usersEnv() });
    const user = await createUser(first);
    const { accessToken } = await loginAs(first, user);
    const restarted = await servers.restart({ env: usersEnv() });
    const response = await call(restarted, 'GET', '/organizations', undefined, bearer(accessToken));
    expect(response.status).toBe(200);
    expect(response.body.organizations[0].id).toBe(user.organizationId);
  });

  it('refuses to start with a JWT_SECRET shorter than 32 characters', async () => {
    await expect(servers.restart({ env: usersEnv({ JWT_SECRET: 'too-short' }) })).rejects.toThrow(/JWT_SECRET/);
  });
});
