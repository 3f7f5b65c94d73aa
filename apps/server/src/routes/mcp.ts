import { Readable } from 'node:stream';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { FastifyInstance } from 'fastify';
import type { CreationLimits } from '../auth/creation-limits.ts';
import { toAuthInfo } from '../auth/principal-auth-info.ts';
import { mcpServerFactory } from '../mcp-server.ts';
import type { Services } from '../services.ts';

export interface McpRouteOptions {
  services: Services;
  version: string;
  bodyLimit: number;
  /** Per-principal limits on creating tasks. */
  limits?: CreationLimits;
}

/**
 * POST /mcp (and the 405s for GET/DELETE) through the SDK's createMcpHandler, which serves the
 * 2026-07-28 era and, statelessly, 2025-era clients from one factory. The body reaches the SDK
 * unparsed so it answers malformed JSON and wrong media types itself, as the transport spec says.
 */
export async function mcpRoutes(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  const handler = createMcpHandler(mcpServerFactory(options.services, options.version, options.limits), {
    maxRequestBodySize: options.bodyLimit,
    onerror: (error) => app.log.debug({ err: error }, 'mcp request rejected'),
  });
  app.addHook('onClose', async () => handler.close());
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: options.bodyLimit }, (_req, body, done) => done(null, body));

  app.route({
    method: ['POST', 'GET', 'DELETE'],
    url: '/mcp',
    handler: async (request, reply) => {
      const url = `http://${request.headers.host ?? 'localhost'}${request.url}`;
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const body = request.method === 'POST' ? (request.body as Buffer | undefined) : undefined;
      // The auth hook has verified the caller; the SDK hands it to the server factory as authInfo.
      const authInfo = request.principal && !request.principal.local ? toAuthInfo(request.principal) : undefined;
      const response = await handler.fetch(new Request(url, { method: request.method, headers, body: body && body.length ? body : undefined }), { authInfo });
      reply.code(response.status);
      response.headers.forEach((value, name) => reply.header(name, value));
      return response.body ? reply.send(Readable.fromWeb(response.body as never)) : reply.send();
    },
  });
}
