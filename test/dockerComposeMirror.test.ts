import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { addObject, connectBoardClient, type BoardClient } from './helpers/realtimeClient.js';
import { startRoundRobinProxy, type RoundRobinProxy } from './helpers/roundRobinProxy.js';
import { killRunningServices, startServiceProcess, type ServiceProcess } from './helpers/serviceProcess.js';
import { eventually, request } from './helpers/testServer.js';

/**
 * No Docker engine runs where the tests run, so this test runs the topology docker-compose.yml
 * starts: its two app replicas as two service processes with that file's environment, behind a
 * round-robin proxy on loopback that stands for the file's nginx (deploy/nginx.conf), on this
 * machine's PostgreSQL and Redis (the service host names pointed at them).
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
/** The app replicas: the services the proxy's upstream names. */
const nginx = readFileSync(new URL('../deploy/nginx.conf', import.meta.url), 'utf8');
const replicas = [...nginx.matchAll(/^\s*server\s+([a-z0-9-]+):3000\b/gm)].map((match) => match[1]!);
const available = await postgresReachable();

describe.skipIf(!available)('docker-compose.yml, run without Docker', () => {
  const database = `wb_compose_${randomBytes(5).toString('hex')}`;
  const services: ServiceProcess[] = [];
  const clients: BoardClient[] = [];
  let proxy: RoundRobinProxy | undefined;

  afterAll(async () => {
    for (const client of clients) client.destroy();
    await proxy?.close();
    await killRunningServices();
    const admin = new pg.Client({ connectionString: LOCAL_POSTGRES });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  it('names two app replicas of one image and configuration behind a proxy that passes WebSockets', () => {
    expect(replicas).toEqual(['app1', 'app2']);
    for (const replica of replicas) expect(compose.services[replica]).toEqual(compose.services.app1);
    expect(compose.services.app1.environment.REDIS_URL).toBeTruthy();
    expect(nginx).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
    expect(compose.services.proxy.depends_on).toEqual(replicas);
  });

  it('serves one board from both replicas, and a replica killed mid-session loses no acknowledged update', async () => {
    const env = await composeEnvironment(database);
    // Started together on an empty database, as `docker compose up` does.
    services.push(...(await Promise.all(replicas.map(() => startServiceProcess({ ...env, PORT: '0', HOST: '127.0.0.1' })))));
    proxy = await startRoundRobinProxy(services.map((service) => ({ host: '127.0.0.1', port: Number(new URL(service.url).port) })));
    for (const service of services) expect((await request(service.url, 'GET', '/ready')).body).toEqual({ status: 'ok', database: 'ok', redis: 'ok' });

    const apiKey = env.BOOTSTRAP_API_KEY!;
    const created = await request(services[0]!.url, 'POST', '/api/v1/boards', { title: 'Compose board' }, { 'x-api-key': apiKey });
    expect(created.status).toBe(201);
    const boardId = created.body.board_uuid as string;
    const token = new URL(created.body.access_links.guest as string).searchParams.get('token')!;
    const socketUrl = `${proxy.url.replace(/^http/, 'ws')}/api/v1/realtime?token=${token}`;

    // Through the proxy, one client lands on each replica.
    const first = connectBoardClient({ url: socketUrl, name: boardId, reconnect: true });
    clients.push(first);
    await first.saved();
    const second = connectBoardClient({ url: socketUrl, name: boardId, reconnect: true });
    clients.push(second);
    await second.saved();
    expect(new Set(proxy.routed.slice(-2)).size).toBe(2);
    const onKilled = proxy.routed.at(-2)!;

    for (let index = 0; index < 10; index += 1) addObject(first.doc, { id: `acknowledged-${index}`, x: index, y: 0 });
    await first.saved();
    addObject(second.doc, { id: 'from-the-survivor', x: 0, y: 10 });
    await second.saved();
    await eventually(() => first.doc.getMap('objects').has('from-the-survivor') && second.doc.getMap('objects').has('acknowledged-9'));

    await services[onKilled]!.stop('SIGKILL');
    // The killed replica's client reconnects through the proxy, to the other one, and goes on.
    await eventually(() => first.closes.length > 0, 10_000);
    await first.saved();
    addObject(first.doc, { id: 'after-the-kill', x: 0, y: 20 });
    await first.saved();
    await eventually(() => second.doc.getMap('objects').has('after-the-kill'), 10_000);

    const survivor = services[1 - onKilled]!;
    const read = await request(survivor.url, 'GET', `/api/v1/boards/${boardId}`, undefined, { 'x-api-key': apiKey });
    const ids = (read.body.state.objects as Array<{ id: string }>).map((object) => object.id);
    for (let index = 0; index < 10; index += 1) expect(ids).toContain(`acknowledged-${index}`);
    expect(ids).toEqual(expect.arrayContaining(['from-the-survivor', 'after-the-kill']));
  });
});

/** The replicas' environment from the compose file, its host names pointed at this machine's PostgreSQL and Redis. */
async function composeEnvironment(database: string): Promise<Record<string, string>> {
  const appEnvironment = compose.services.app1.environment as Record<string, string>;
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
  // This run's own Redis keys: other test runs may share the Redis.
  return { ...env, DATABASE_URL: pgUrl.toString(), REDIS_URL: redisUrl.toString(), CLUSTER_KEY_PREFIX: `wb:compose:${randomBytes(5).toString('hex')}:` };
}
