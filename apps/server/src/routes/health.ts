import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';

/** /healthz: the process answers. /readyz: the store answers, its migrations are applied, the pool is open. */
export async function healthRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const { services } = options;
    let database = false;
    let migrations = false;
    try {
      await services.store.ping();
      database = true;
      migrations = await services.store.migrationsApplied();
    } catch {
      // Unreachable or failing: not ready, answered at once.
    }
    const pool = !services.pool.closed;
    const ready = database && migrations && pool;
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', database, migrations, pool });
  });
}
