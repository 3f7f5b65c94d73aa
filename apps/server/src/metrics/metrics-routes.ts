import type { FastifyInstance } from 'fastify';
import type { Metrics } from './service-metrics.ts';

/**
 * GET /metrics in the Prometheus text format, and the HTTP request counter. Called on the root
 * instance (not registered as an encapsulated plugin) so its hook sees every route.
 */
export function addMetricsRoutes(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the raw URL: task ids would make a label per task.
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ route, method: request.method, status: String(reply.statusCode) });
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
