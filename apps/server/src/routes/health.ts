import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';

/** /healthz: the process answers. */
export async function healthRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const { services } = options;
    let database = false;
    try {
      database = services.connection.sqlite.prepare('SELECT 1 AS ok').get() !== undefined;
    } catch {
      database = false;
    }
    const pool = !services.pool.closed;
    const ready = database && pool;
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', database, pool });
  });
}
