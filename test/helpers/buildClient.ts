import { buildClient } from '../../client/build.mjs';

/** Vitest global setup: the servers the tests start serve the browser client from this build. */
export default async function setup(): Promise<void> {
  await buildClient({ quiet: true });
}
