import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { request, type ApiResponse, type TestServer } from '../helpers/testServer.js';

export const ADMIN_TOKEN = `admin-${randomBytes(16).toString('hex')}`;

/** The server environment of these tests: the admin API on, and Redis when the run has one. */
export function usersEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { ADMIN_TOKEN, ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}), ...extra };
}

export interface TestUser {
  id: string;
  email: string;
  password: string;
  organizationId: string;
}

/** Creates a user through the operator's admin API. */
export async function createUser(server: TestServer, organizationId = server.organizationId): Promise<TestUser> {
  const email = `user-${randomBytes(6).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const created = await request(server.url, 'POST', '/api/v1/admin/users', { email, password, organizationId }, { authorization: `Bearer ${ADMIN_TOKEN}` });
  expect(created.status).toBe(201);
  return { id: created.body.id, email, password, organizationId };
}

/** Calls the API with no credential but the given headers (unlike `server.api`, no API key). */
export function call(server: TestServer, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
  return request(server.url, method, `/api/v1${path}`, body, headers);
}

export function login(server: TestServer, email: string, password: string): Promise<ApiResponse> {
  return call(server, 'POST', '/auth/login', { email, password });
}

/** Logs `user` in and answers the access and refresh tokens. */
export async function loginAs(server: TestServer, user: TestUser): Promise<{ accessToken: string; refreshToken: string }> {
  const response = await login(server, user.email, user.password);
  expect(response.status).toBe(200);
  return { accessToken: response.body.accessToken, refreshToken: response.body.refresh_token };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The decoded header and claims of a JWT (no verification). */
export function decodeJwt(token: string): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  const [header, claims] = token.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>);
  return { header: header!, claims: claims! };
}
