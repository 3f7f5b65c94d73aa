import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * The page's files: beside the sources (apps/server/public), or under the working directory when
 * running the bundle (the Docker image copies apps/server/public to /app/apps/server/public).
 */
export function findPublicDir(): string {
  const candidates = [
    fileURLToPath(new URL('../../public', import.meta.url)),
    resolve(process.cwd(), 'apps/server/public'),
  ];
  const found = candidates.find((dir) => existsSync(resolve(dir, 'index.html')));
  if (!found) throw new Error(`The operator page's files are missing; looked in ${candidates.join(', ')}`);
  return found;
}

/** GET /ui: the operator page, plain HTML/CSS/JS modules that use only /api. */
export async function uiRoutes(app: FastifyInstance): Promise<void> {
  await app.register(fastifyStatic, { root: findPublicDir(), prefix: '/ui/', redirect: true, index: 'index.html' });
  app.get('/ui', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/ui/'));
  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/ui/'));
}
