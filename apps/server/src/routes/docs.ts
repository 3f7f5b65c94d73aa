import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/** OpenAPI for every route with a schema, served at /docs (JSON at /docs/json). Called on the root instance, before the routes, so swagger sees them all. */
export async function addDocsRoutes(app: FastifyInstance, options: { version: string }): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: 'Studio reflow operator API',
        description:
          'Tasks (list, detail with progress history, moves and unresolved bookings; cancel), rooms and bookings. MCP clients use POST /mcp instead.',
        version: options.version,
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: '/docs',
    // Swagger UI's CSP (hashes of its inline script and style), never framed, and without
    // upgrade-insecure-requests: the server is often reached over plain http on loopback.
    staticCSP: true,
    transformStaticCSP: (header) =>
      header.replace("frame-ancestors 'self'", "frame-ancestors 'none'").replace(/\s*upgrade-insecure-requests;/, ''),
  });
}
