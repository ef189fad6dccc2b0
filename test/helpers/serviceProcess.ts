import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LISTENING = /listening on (http:\/\/\S+)/;

/** How a service process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The service running as a real OS process, started by its real entry point. */
export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  exited: Promise<ProcessExit>;
  /** Everything the process printed so far. */
  output(): string;
  /** Sends a signal (unless it already ended) and waits for the process to exit. */
  stop(signal?: NodeJS.Signals): Promise<ProcessExit>;
}

/** Every service process a test started and that has not exited yet, for cleanup. */
export const runningServices = new Set<ServiceProcess>();

/** Kills (SIGKILL) every service process still running; for afterEach/afterAll. */
export async function killRunningServices(): Promise<void> {
  await Promise.all([...runningServices].map((service) => service.stop('SIGKILL')));
}

/**
 * Starts `src/main.ts` in a child process with `env` (on top of PATH and HOME only, so the
 * test's own environment does not leak in) and waits for its "listening on" line.
 */
export async function startServiceProcess(env: Record<string, string>, timeoutMs = 30_000): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: PROJECT_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      // Tests poll the API far faster than a client may; a test can pass its own limits.
      RATE_LIMIT_PER_MINUTE: '0',
      RATE_LIMIT_PER_HOUR: '0',
      RATE_LIMIT_PER_HOUR_PREMIUM: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<ProcessExit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const service: ServiceProcess = {
    url: '',
    child,
    exited,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  runningServices.add(service);
  void exited.then(() => runningServices.delete(service));
  service.url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start in ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.stdout.on('data', () => {
      const match = LISTENING.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`service exited (code ${code}, signal ${signal}) before listening:\n${output}`));
    });
  });
  return service;
}
