import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger as PinoLogger } from 'pino';
import { CreationLimits } from './auth/creation-limits.ts';
import { listSetting, registerSecurity } from './auth/security.ts';
import { addSecurityHeaders } from './auth/security-headers.ts';
import { loadTokenTable, type TokenTable } from './auth/token-table.ts';
import { endIdleConnectionsOnClose } from './close-connections.ts';
import type { Config } from './config.ts';
import { RequestLogController } from './logging/request-log.ts';
import { addMetricsRoutes } from './metrics/metrics-routes.ts';
import { addDocsRoutes } from './routes/docs.ts';
import { apiRoutes } from './routes/api/index.ts';
import { healthRoutes } from './routes/health.ts';
import { lazySerializerFactory } from './lazy-serializers.ts';
import { uiRoutes } from './ui/ui-routes.ts';
import { mcpRoutes } from './routes/mcp.ts';
import type { Services } from './services.ts';

export const VERSION = '0.1.0';

/** The application: routes over already-created services. Tests build it the same way the server does. */
export async function buildApp(
  config: Config,
  services: Services,
  logger: PinoLogger,
  tokens: TokenTable = loadTokenTable(config),
): Promise<FastifyInstance> {
  // Typed as Fastify's own logger so the instance is the plain FastifyInstance the routes take.
  const loggerInstance: FastifyBaseLogger = logger;
  const app = Fastify({
    loggerInstance,
    bodyLimit: config.BODY_LIMIT_BYTES,
    // A client slower than this to send its request is cut off (Fastify's default, 0, waits forever).
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    genReqId: (req) =>
      typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'].slice(0, 100) : randomUUID(),
    requestIdHeader: false,
    logController: new RequestLogController(),
    schemaController: { compilersFactory: { buildSerializer: lazySerializerFactory() } },
  });
  // Closing waits for requests in flight, not for connections that carry none.
  endIdleConnectionsOnClose(app);
  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    reply.code(status).send({ error: status >= 500 ? 'Internal Server Error' : error.message, code: error.code });
  });
  // First, before any route: hooks cover only routes registered after them (/mcp, /api, /ui …).
  addSecurityHeaders(app);
  await registerSecurity(app, {
    host: config.HOST,
    tokens,
    allowedHosts: listSetting(config.ALLOWED_HOSTS),
    allowedOrigins: listSetting(config.ALLOWED_ORIGINS),
    corsOrigins: listSetting(config.CORS_ORIGINS),
    httpRatePerMinute: config.HTTP_RATE_LIMIT_PER_MINUTE,
  });
  const limits = new CreationLimits({
    burst: config.TASK_RATE_BURST,
    perMinute: config.TASK_RATE_PER_MINUTE,
    maxActive: config.MAX_ACTIVE_TASKS_PER_PRINCIPAL,
  });
  addMetricsRoutes(app, services.metrics, { token: config.METRICS_TOKEN });
  await addDocsRoutes(app, { version: VERSION });
  await app.register(healthRoutes, { services });
  await app.register(apiRoutes, { prefix: '/api', services });
  await app.register(uiRoutes);
  await app.register(mcpRoutes, {
    services,
    version: VERSION,
    bodyLimit: config.BODY_LIMIT_BYTES,
    limits,
    heldPerPrincipal: config.MAX_HELD_REQUESTS_PER_PRINCIPAL,
    fastTasksGet: config.MCP_FAST_TASKS_GET,
    fastTaskCalls: config.MCP_FAST_TASK_CALLS,
  });
  return app;
}
