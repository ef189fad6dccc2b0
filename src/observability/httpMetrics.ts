import { METHODS, type RequestListener } from 'node:http';
import { Histogram, type Registry } from 'prom-client';
import { RoutePatterns, type RoutedApp } from './routePatterns.js';

const LATENCY_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const KNOWN_METHODS = new Set(METHODS);

/**
 * Wraps the Express app: every request it answers is timed from arrival to the end of its
 * response, labelled with its method, route pattern and status. Every label value comes from
 * a bounded set (a URL never becomes one: each would be a new series); a request the client
 * gave up on before its answer was sent has the status `aborted`.
 */
export function observeHttp(registry: Registry, app: RequestListener & RoutedApp): RequestListener {
  const latency = new Histogram({
    name: 'whiteboard_http_request_duration_seconds',
    help: 'HTTP requests answered by the API and pages (probes and /metrics excluded), by method, route pattern and status; route="unmatched" when no route matched.',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS_S,
    registers: [registry],
  });
  const routes = new RoutePatterns(app);
  return (req, res) => {
    const started = performance.now();
    res.once('close', () => {
      const method = KNOWN_METHODS.has(req.method ?? '') ? req.method! : 'OTHER';
      const status = res.writableFinished ? String(res.statusCode) : 'aborted';
      latency.observe({ method, route: routes.of(req), status }, (performance.now() - started) / 1000);
    });
    app(req, res);
  };
}
