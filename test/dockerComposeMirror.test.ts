import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startServiceProcess, type ServiceProcess } from './helpers/serviceProcess.js';
import { request } from './helpers/testServer.js';

/**
 * No Docker engine runs where the tests run, so this test runs the same processes that
 * docker-compose.yml starts (the app on PostgreSQL and Redis) with that file's environment,
 * only pointing the service host names at this machine's PostgreSQL and Redis.
 */
const LOCAL_POSTGRES = 'postgresql://postgres@127.0.0.1:5432/postgres';

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: LOCAL_POSTGRES, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** Resolves compose's `${NAME:-default}` the way Compose does with NAME unset. */
function composeValue(value: string): string {
  return value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');
}

const compose = parse(readFileSync(new URL('../docker-compose.yml', import.meta.url), 'utf8'));
const appEnvironment = compose.services.app.environment as Record<string, string>;
const available = await postgresReachable();

describe.skipIf(!available)('docker-compose.yml, run without Docker', () => {
  const database = `wb_compose_${randomBytes(5).toString('hex')}`;
  let service: ServiceProcess | undefined;

  afterAll(async () => {
    await service?.stop('SIGKILL');
    const admin = new pg.Client({ connectionString: LOCAL_POSTGRES });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  it('serves the API on PostgreSQL and Redis with the compose environment', async () => {
    const pgUrl = new URL(composeValue(appEnvironment.DATABASE_URL!));
    const admin = new pg.Client({ connectionString: LOCAL_POSTGRES });
    await admin.connect();
    await admin.query(`DO $$ BEGIN CREATE ROLE ${pgUrl.username} LOGIN PASSWORD '${pgUrl.password}'; EXCEPTION WHEN duplicate_object THEN NULL; END $$`);
    await admin.query(`CREATE DATABASE ${database} OWNER ${pgUrl.username}`);
    await admin.end();
    pgUrl.hostname = '127.0.0.1';
    pgUrl.pathname = `/${database}`;
    const redisUrl = new URL(composeValue(appEnvironment.REDIS_URL!));
    redisUrl.hostname = '127.0.0.1';

    const env = Object.fromEntries(Object.entries(appEnvironment).map(([key, value]) => [key, composeValue(String(value))]));
    service = await startServiceProcess({ ...env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: pgUrl.toString(), REDIS_URL: redisUrl.toString() });

    expect((await request(service.url, 'GET', '/ready')).body).toEqual({ status: 'ok', database: 'ok' });
    const apiKey = env.BOOTSTRAP_API_KEY!;
    const created = await request(service.url, 'POST', '/api/v1/boards', { title: 'Compose board' }, { 'x-api-key': apiKey });
    expect(created.status).toBe(201);
    const listed = await request(service.url, 'GET', '/api/v1/boards', undefined, { 'x-api-key': apiKey });
    expect(listed.body.map((board: { board_uuid: string }) => board.board_uuid)).toContain(created.body.board_uuid);
  });
});
