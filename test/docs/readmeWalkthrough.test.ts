import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { killRunningServices, startServiceProcess, type ServiceProcess } from '../helpers/serviceProcess.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

/**
 * The README's walk-through, run as written against the real service: the one ```sh block
 * under "## Walk-through", with only its base URL, key and receiver port rewritten.
 */
const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const WALKTHROUGH_TIMEOUT_MS = 120_000;

/** The sh blocks of the README's "## Walk-through" section (up to the next "## " heading). */
function walkthroughBlocks(): string[] {
  const readme = readFileSync(README, 'utf8');
  const start = readme.search(/^## Walk-through\s*$/m);
  expect(start, 'README.md has a "## Walk-through" heading').toBeGreaterThanOrEqual(0);
  const rest = readme.slice(start + 1);
  const end = rest.search(/^## /m);
  const section = end === -1 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

/** Replaces the one line `NAME=…` of the script, failing unless there is exactly one. */
function setVariable(script: string, name: string, value: string): string {
  const line = new RegExp(`^${name}=.*$`, 'gm');
  expect(script.match(line), `the walk-through sets ${name} on one line`).toHaveLength(1);
  return script.replace(line, `${name}=${value}`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The development key the service prints on its first start, as a reader copies it. */
async function printedKey(service: ServiceProcess): Promise<string> {
  for (let waited = 0; waited < 10_000; waited += 100) {
    const key = /Development API key \(shown once, keep it\): (wb_\S+)/.exec(service.output())?.[1];
    if (key) return key;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the service printed no development key:\n${service.output()}`);
}

/** Runs a script with bash in its own process group (so a receiver it leaves behind can be ended). */
function runBash(script: string, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const bash = spawn('bash', ['-s'], { cwd, detached: true, env: { PATH: process.env.PATH ?? '', HOME: cwd } });
    let output = '';
    bash.stdout.on('data', (chunk) => (output += chunk));
    bash.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => process.kill(-bash.pid!, 'SIGKILL'), 60_000);
    bash.once('error', reject);
    bash.once('exit', (code) => {
      clearTimeout(timer);
      // Anything the script started in the background (the receiver) ends with it.
      try {
        process.kill(-bash.pid!, 'SIGKILL');
      } catch {
        // the group is already gone
      }
      resolve({ code, output });
    });
    bash.stdin.end(script);
  });
}

const databases: TestDatabase[] = [];

afterAll(async () => {
  await killRunningServices();
  await Promise.all(databases.map((database) => database.drop()));
});

describe('the README walk-through', () => {
  it('is one sh block under "## Walk-through"', () => {
    expect(walkthroughBlocks()).toHaveLength(1);
  });

  it(
    'runs as written: a board, a zone with a personal link, and a signed webhook received',
    async () => {
      const database = await createTestDatabase();
      databases.push(database);
      const redis: Record<string, string> = process.env.REDIS_URL
        ? { REDIS_URL: process.env.REDIS_URL, CLUSTER_KEY_PREFIX: `wb:test:${randomBytes(6).toString('hex')}:` }
        : {};
      // Started as `npm start` runs it: no NODE_ENV, no key given, so it prints the development key.
      const service = await startServiceProcess({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: database.url, LOG_LEVEL: 'warn', ...redis });
      const key = await printedKey(service);

      let script = walkthroughBlocks()[0]!;
      script = setVariable(script, 'API', `${service.url}/api/v1`);
      script = setVariable(script, 'KEY', key);
      script = setVariable(script, 'HOOK_PORT', String(await freePort()));

      const workDir = mkdtempSync(join(tmpdir(), 'wb-walkthrough-'));
      const { code, output } = await runBash(script, workDir).finally(() => rmSync(workDir, { recursive: true, force: true }));
      expect(code, output).toBe(0);

      const board = new RegExp(`^board created: (${UUID})$`, 'm').exec(output)?.[1];
      expect(board, output).toBeDefined();
      expect(output).toMatch(new RegExp(`^open the host link in a browser: http://\\S+/boards/${board}\\?token=\\S+$`, 'm'));

      const zone = new RegExp(`^zone (${UUID}) assigned to ana, personal link: http://\\S+/boards/${board}\\?token=\\S+$`, 'm').exec(output)?.[1];
      expect(zone, output).toBeDefined();
      expect(output).toContain(`"zone_id":"${zone}"`);
      expect(output).toMatch(/^objects the guest link sees: 0$/m);

      const received = /^webhook received: (\S+) (\{.*\})$/m.exec(output);
      expect(received, output).not.toBeNull();
      const delivery = JSON.parse(received![2]!) as { delivery_id: string; event: string; data: { board_id: string } };
      expect(delivery.event).toBe(received![1]);
      expect(delivery.data.board_id).toBe(board);
      expect(output).toMatch(/^X-Webhook-Signature verified: [0-9a-f]{64}$/m);

      await service.stop();
    },
    WALKTHROUGH_TIMEOUT_MS,
  );
});
