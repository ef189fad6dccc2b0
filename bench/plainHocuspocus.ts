/**
 * The baseline of `npm run bench:realtime`: a plain @hocuspocus/server with no hooks and
 * no persistence, so the cost of the service's own extensions shows as a ratio. The bench
 * compiles it to dist/bench/plainHocuspocus.mjs and runs that under bare `node`, as the
 * service's compiled dist/main.js runs (tsx's loader cost is in neither).
 */
import { Server } from '@hocuspocus/server';

const server = new Server({ port: Number(process.env.PORT ?? 0), address: '127.0.0.1', quiet: true, stopOnSignals: true });
await server.listen();
console.log(`plain hocuspocus listening on http://127.0.0.1:${server.address.port}`);
