import type { FastifyError, FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { databaseTrouble, isDatabaseUnavailable } from '../database-unavailable.ts';
import { errorBodySchema } from './api-errors.ts';
import { sharedSchemas } from './api-schemas.ts';
import { approvalRoutes } from './approval-routes.ts';
import { reflowRoutes } from './reflow-routes.ts';
import { exportRoutes } from './export-routes.ts';
import { nodeListSchema, nodeRoutes } from './node-routes.ts';
import { siteRoutes } from './site-routes.ts';
import { useStrictValidation } from './strict-validation.ts';
import { taskRoutes } from './task-routes.ts';

const ALLOWED_QUERY: Partial<Record<string, string[]>> = {
  '/api/tasks': ['status', 'kind', 'since', 'awaiting', 'limit', 'cursor'],
  '/api/bookings': ['month', 'room'],
};

/**
 * The operator API, registered under /api as one plugin so a hook added here (authentication)
 * covers every route. Errors answer `{error, code}` with a stable code.
 */
export async function apiRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  app.addSchema(errorBodySchema);
  for (const schema of [...sharedSchemas, nodeListSchema]) app.addSchema(schema);
  useStrictValidation(app, [...sharedSchemas]);

  // ajv would drop unknown query parameters silently; a misspelt filter must not list everything.
  app.addHook('preValidation', async (request) => {
    const allowed = ALLOWED_QUERY[request.routeOptions.url ?? ''];
    if (!allowed) return;
    const unknown = Object.keys(request.query as object).filter((k) => !allowed.includes(k));
    if (unknown.length) {
      throw Object.assign(new Error(`Unknown query parameter ${unknown[0]}; this route takes ${allowed.join(', ')}`), {
        statusCode: 400,
        code: 'RFL_BAD_FILTER',
      });
    }
  });

  // Every line logged about one task carries its id (the request id is already on each line).
  app.addHook('onRequest', async (request, reply) => {
    const id = (request.params as { id?: string } | undefined)?.id;
    if (id) {
      request.log = request.log.child({ taskId: id });
      reply.log = request.log;
    }
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.validation) {
      const where = error.validationContext === 'querystring' ? 'RFL_BAD_FILTER' : 'RFL_BAD_REQUEST';
      return reply.code(400).send({ error: error.message, code: where });
    }
    if (isDatabaseUnavailable(error)) {
      const { code, message } = databaseTrouble(error);
      request.log.warn({ err: error, code }, 'database unavailable');
      return reply.code(503).header('retry-after', '1').send({ error: message, code });
    }
    throw error; // the application's handler: logs 5xx, hides their details, keeps code and status
  });

  app.setNotFoundHandler((request, reply) => {
    reply
      .code(404)
      .send({ error: `No route ${request.method} ${request.url.split('?')[0]}; see /docs`, code: 'RFL_NO_ROUTE' });
  });

  await app.register(taskRoutes, { services: options.services });
  await app.register(siteRoutes, { services: options.services });
  await app.register(approvalRoutes, { services: options.services });
  await app.register(reflowRoutes, { services: options.services });
  await app.register(exportRoutes, { services: options.services });
  await app.register(nodeRoutes, { services: options.services });
}
