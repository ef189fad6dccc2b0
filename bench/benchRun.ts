/**
 * How a bench runs: its main under a watchdog, its cleanup (stop the server, close clients)
 * after success, after a failure, after Ctrl+C and when the watchdog fires; a failed run
 * says why and exits 1.
 */
export interface BenchRun {
  /** Set by main as soon as there is something to clean up; it runs once. */
  cleanup: () => Promise<void>;
  /** Stops the run for a reason (a server that exited, a timeout). */
  abort: (reason: string) => void;
}

export async function runBench(name: string, budgetMs: number, main: (run: BenchRun) => Promise<void>): Promise<void> {
  let cleanup: () => Promise<void> = async () => undefined;
  const cleanupOnce = async () => {
    const current = cleanup;
    cleanup = async () => undefined;
    await current();
  };
  const run: BenchRun = {
    get cleanup() {
      return cleanupOnce;
    },
    set cleanup(next) {
      cleanup = next;
    },
    abort(reason) {
      console.error(`${name} aborted: ${reason}`);
      void cleanupOnce().finally(() => process.exit(1));
    },
  };
  const watchdog = setTimeout(() => run.abort(`the run took longer than ${Math.round(budgetMs / 1000)} s`), budgetMs);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => run.abort(`interrupted (${signal})`));
  try {
    await main(run);
    await cleanupOnce();
    clearTimeout(watchdog);
    process.exit(0);
  } catch (error) {
    run.abort(error instanceof Error ? (error.stack ?? error.message) : String(error));
  }
}

/** The server's warnings and errors during the run, most frequent first. */
export function printServerLog(logged: Map<string, number>): void {
  if (logged.size === 0) return;
  console.log('server warnings and errors:');
  for (const [entry, count] of [...logged].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`  ${count}× ${entry}`);
}
