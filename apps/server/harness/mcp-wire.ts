// The raw HTTP a 2026-07-28 MCP client sends, for the load tools, which cannot run an SDK client
// per request: the same headers and per-request _meta the SDK's client puts on the wire.
export const PROTOCOL_VERSION = '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Headers of one JSON-RPC POST /mcp; `name` is the tool or task the request is about. */
export function mcpHeaders(method: string, name?: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-method': method,
    ...(name ? { 'mcp-name': name } : {}),
  };
}

/**
 * The JSON-RPC body; `tasks` (the default) declares the tasks extension, as a polling client does;
 * `capabilities` replaces the declared client capabilities altogether.
 */
export function mcpBody(
  method: string,
  params: Record<string, unknown>,
  options: { id?: number | string; tasks?: boolean; capabilities?: Record<string, unknown> } = {},
): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: options.id ?? 1,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientCapabilities':
          options.capabilities ?? (options.tasks === false ? {} : { extensions: { [TASKS_EXTENSION]: {} } }),
      },
    },
  });
}

/** A JSON-RPC answer from a JSON body, or from the last `data:` event of an SSE body; undefined when neither parses. */
export function parseMcpBody(text: string): { result?: any; error?: any } | undefined {
  try {
    if (text.trimStart().startsWith('{')) return JSON.parse(text);
    const last = text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .pop();
    return last ? JSON.parse(last.slice(5)) : undefined;
  } catch {
    return undefined;
  }
}

/** Sends one request and returns its JSON-RPC result, throwing on an error answer. */
export async function mcpCall(
  mcpUrl: string,
  method: string,
  params: Record<string, unknown>,
  name?: string,
): Promise<any> {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: mcpHeaders(method, name),
    body: mcpBody(method, params),
  });
  const body = parseMcpBody(await response.text());
  if (!body || body.error)
    throw new Error(
      `${method} failed (HTTP ${response.status}): ${JSON.stringify(body?.error ?? 'unparsable answer')}`,
    );
  return body.result;
}
