import { migrationsApplied } from '@reflow/db';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';

/** /healthz: the process answers. /readyz: the database answers, its migrations are applied, the pool is open. */
export async function healthRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const { services } = options;
    let database: boolean;
    let migrations = false;
    try {
      database = services.connection.sqlite.prepare('SELECT 1 AS ok').get() !== undefined;
      migrations = migrationsApplied(services.connection);
    } catch {
      database = false;
    }
    const pool = !services.pool.closed;
    const ready = database && migrations && pool;
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', database, migrations, pool });
  });
}
