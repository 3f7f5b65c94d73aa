import { MissingRequiredClientCapabilityError, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { clientCapabilities } from '@reflow/mcp-tasks';

type Handler = (request: any, ctx: ServerContext) => Promise<any>;

/**
 * Rejects calls to the named tools with -32021 (HTTP 400) when the request did not declare the
 * capability each needs. McpServer turns anything a tool callback throws into an isError result, so
 * the check sits in front of its tools/call handler, the way the Tasks extension routes task tools.
 * Call after everything else has registered its tools/call handling.
 */
export function requireDeclaredCapabilities(mcp: McpServer, needs: Record<string, string>): void {
  const server = mcp.server;
  const inner = (server as unknown as { _getRequestHandler(m: string): Handler | undefined })._getRequestHandler(
    'tools/call',
  );
  if (!inner) throw new Error('no tools/call handler to guard');
  server.removeRequestHandler('tools/call');
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const capability = Object.hasOwn(needs, request.params.name) ? needs[request.params.name] : undefined;
    if (capability && !clientCapabilities(ctx.mcpReq.envelope)[capability])
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: { [capability]: {} } },
        `Tool ${request.params.name} needs the ${capability} capability declared in the request's client capabilities`,
      );
    return inner(request, ctx);
  });
}
