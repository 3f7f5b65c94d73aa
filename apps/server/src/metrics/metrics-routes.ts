import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from './service-metrics.ts';

/**
 * GET /metrics in the Prometheus text format, and the HTTP request counter. Called on the root
 * instance (not registered as an encapsulated plugin) so its hook sees every route.
 */
export function addMetricsRoutes(app: FastifyInstance, metrics: Metrics, options: { token?: string } = {}): void {
  const scraper = options.token === undefined ? undefined : sha256(options.token);
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the raw URL: task ids would make a label per task.
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ route, method: request.method, status: String(reply.statusCode) });
  });
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    // METRICS_TOKEN set: only a scraper presenting it (compared as digests, in constant time).
    if (scraper) {
      const presented = /^Bearer[ ]+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
      if (presented === undefined || !timingSafeEqual(sha256(presented), scraper))
        return reply.code(401).header('www-authenticate', 'Bearer realm="studio-reflow-metrics"').send({
          error: 'GET /metrics needs the scrape token (Authorization: Bearer <METRICS_TOKEN>)',
          code: 'RFL_UNAUTHENTICATED',
        });
    }
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();
