// The raw HTTP a 2026-07-28 MCP client sends, for a load tool that cannot run an SDK client per
// request: the same headers and per-request _meta the SDK's client puts on the wire.
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

/** The JSON-RPC body, declaring the tasks extension the way a polling client does. */
export function mcpBody(method: string, params: Record<string, unknown>, id: number | string = 1): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
      },
    },
  });
}

/** Sends one request and returns its JSON-RPC result, throwing on an error answer. */
export async function mcpCall(mcpUrl: string, method: string, params: Record<string, unknown>, name?: string): Promise<any> {
  const response = await fetch(mcpUrl, { method: 'POST', headers: mcpHeaders(method, name), body: mcpBody(method, params) });
  const text = await response.text();
  const body = JSON.parse(text.trimStart().startsWith('{') ? text : lastSseData(text));
  if (body.error) throw new Error(`${method} failed: ${JSON.stringify(body.error)}`);
  return body.result;
}

function lastSseData(text: string): string {
  return text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).pop() ?? '{}';
}
