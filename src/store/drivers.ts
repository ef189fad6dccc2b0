import { createRequire } from 'node:module';
import { lazy } from '../util/lazy.js';

/**
 * pg, loaded when the update and delivery logs open their PostgreSQL pools: a SQLite server
 * never loads it (about 4 MiB resident). It is CommonJS, so the constructors that create the
 * pools load it synchronously.
 */
export const pgDriver = lazy(() => createRequire(import.meta.url)('pg') as typeof import('pg'));
