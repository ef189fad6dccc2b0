import { setFlagsFromString } from 'node:v8';
import { startApp } from './app.js';
import { loadConfig } from './config.js';
import { createLogger } from './logger.js';

/**
 * Prisma compiles queries with a WebAssembly module. It caches each query shape's plan, so the
 * compiler runs a few hundred times in a process's life, and V8's optimizing tier for it kept
 * about 60 MiB of an idle server's 150 for no measurable gain. Set before the database (and with
 * it the module) is opened.
 */
setFlagsFromString('--liftoff-only');

/** Process entry point: start, print where to reach the service, stop cleanly on signals. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const app = await startApp({ config, logger });
  logger.info({ url: app.url, database: config.databaseUrl.split(':')[0] }, 'whiteboard service listening');
  console.log(`\nWhiteboard service listening on ${app.url}  (API: ${app.url}/api/v1)`);
  if (app.developmentApiKey) {
    console.log(`Development API key (shown once, keep it): ${app.developmentApiKey}\n`);
  }

  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error) => {
  console.error('Failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
