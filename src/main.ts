import { startApp } from './app.js';
import { loadConfig } from './config.js';
import { createLogger } from './logger.js';

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
