import express from 'express';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errors } from '../errors.js';
import { errorHandler, notFoundHandler } from './errorBody.js';

describe('errorHandler', () => {
  const logged: unknown[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
  const app = express();
  app.get('/boom', () => {
    throw new Error('SELECT * FROM secrets failed at /srv/app/db.ts:42');
  });
  app.get('/known', () => {
    throw errors.conflict('Zone overlaps another zone');
  });
  app.use(notFoundHandler);
  app.use(errorHandler(logger, () => new Date('2026-01-02T03:04:05.000Z')));
  let url = '';
  let server: ReturnType<typeof app.listen>;

  beforeAll(async () => {
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('answers an unexpected error with a generic 500 and logs the real one', async () => {
    const response = await fetch(`${url}/boom`);
    const text = await response.text();
    expect(response.status).toBe(500);
    expect(JSON.parse(text)).toEqual({
      statusCode: 500,
      message: 'An unexpected error occurred',
      error: 'Internal Server Error',
      timestamp: '2026-01-02T03:04:05.000Z',
      path: '/boom',
    });
    expect(text).not.toMatch(/secrets|db\.ts|at /);
    expect(JSON.stringify(logged)).toContain('SELECT * FROM secrets failed');
  });

  it('renders catalogue errors with their status and message', async () => {
    const response = await fetch(`${url}/known?x=1`);
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({
      statusCode: 409,
      message: 'Zone overlaps another zone',
      error: 'Conflict',
      timestamp: '2026-01-02T03:04:05.000Z',
      path: '/known',
    });
  });

  it('answers unknown routes with 404 in the same body', async () => {
    const response = await fetch(`${url}/nowhere`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ statusCode: 404, error: 'Not Found', path: '/nowhere' });
  });
});
