import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { freshDatabase } from './freshDatabase.js';

/**
 * bench:agents' service under test: the server as its own process (a fresh SQLite file, or a
 * throwaway PostgreSQL database when DATABASE_URL names a PostgreSQL server; enterprise plan,
 * rate limits off, the rule engine), the warnings and errors it logs, and the REST client the
 * bench drives it with.
 */

export const REQUEST_TIMEOUT_MS = 15_000;

export type Service = Awaited<ReturnType<typeof startService>>;

/** Starts the server; `onUnexpectedExit` hears of it exiting before `stop()` was called. */
export async function startService(onUnexpectedExit: (reason: string) => void, overrides: NodeJS.ProcessEnv = {}) {
  const database = await freshDatabase('wb_bench_service');
  const apiKey = `wb_bench_${randomBytes(8).toString('hex')}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: database.url, BOOTSTRAP_API_KEY: apiKey,
    BOOTSTRAP_PLAN: 'enterprise', LOG_LEVEL: 'warn', NODE_ENV: 'production', RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_HOUR: '0', RATE_LIMIT_PER_HOUR_PREMIUM: '0',
  };
  Object.assign(env, overrides);
  // The rule engine: an LLM configured in the caller's shell would measure the LLM instead.
  for (const name of ['LLM_BASE_URL', 'LLM_API_KEY', 'LLM_MODEL']) delete env[name];
  // BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") apply to the server process only.
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/main.ts'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let stopping = false;
  const logged = new Map<string, number>();
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (output.length < 100_000) output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) countLogLine(line, logged);
    });
    child.once('exit', (code) => {
      reject(new Error(`server exited with ${code}: ${output}`));
      if (!stopping) onUnexpectedExit(`the server exited during the run (code ${code})`);
    });
  });
  return {
    url,
    apiKey,
    child,
    /** Warnings and errors the server logged, counted by level, message and error message. */
    logged,
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(force);
      }
      await database.drop();
    },
  };
}

/** Counts one pino line of the server's (LOG_LEVEL=warn: every entry is a warning or an error). */
function countLogLine(line: string, logged: Map<string, number>): void {
  let entry: { level?: string; msg?: string; err?: { message?: string } };
  // Cheap for info lines (bench:api runs at the production default, one line per request).
  if (!line.startsWith('{') || !/"level":"(?:warn|error|fatal)"/.test(line)) return;
  try {
    entry = JSON.parse(line) as typeof entry;
  } catch {
    return; // the banner, or another line that is not a log entry
  }
  const key = `${entry.level}: ${entry.msg}${entry.err?.message ? ` (${entry.err.message.slice(0, 100)})` : ''}`;
  logged.set(key, (logged.get(key) ?? 0) + 1);
}

export async function api(service: Service, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${service.url}/api/v1${path}`, {
    method,
    headers: { 'x-api-key': service.apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
}

export async function expectOk<T>(service: Service, method: string, path: string, body?: unknown): Promise<T> {
  const answer = await api(service, method, path, body);
  if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body as T;
}
