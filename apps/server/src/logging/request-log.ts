import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

/** MCP methods a client repeats while it waits: one line each at info would bury everything else. */
const ROUTINE_MCP_METHODS = new Set(['tasks/get', 'ping']);
const PROBE_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Fastify's request logging, one line per request instead of two ("incoming" is dropped), with the
 * MCP method and name from the Mcp-Method / Mcp-Name headers. Polls and probes that succeed go
 * to debug: a hundred pollers would otherwise make logging the server's main work. Failures and
 * everything else stay at info or above.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const status = reply.statusCode;
    const mcpMethod = header(request, 'mcp-method');
    const routine =
      PROBE_ROUTES.has(request.routeOptions.url ?? '') ||
      (mcpMethod !== undefined && ROUTINE_MCP_METHODS.has(mcpMethod));
    const level = error || status >= 500 ? 'error' : status >= 400 || !routine ? 'info' : 'debug';
    if (!(reply.log as Logger).isLevelEnabled(level)) return;
    // Fastify's own fields (req, res, responseTime), so its log tooling reads these lines.
    const mcp = mcpMethod ? { method: mcpMethod, name: header(request, 'mcp-name') } : undefined;
    reply.log[level](
      { req: request, res: reply, responseTime: reply.elapsedTime, mcp, err: error ?? undefined },
      error ? 'request errored' : 'request completed',
    );
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}
