// The raw HTTP a 2025-11-25 MCP client sends after its initialize (a stateless server gives it no
// session): the version header, no Mcp-Method or Mcp-Name, and the JSON-RPC members in the order a
// TS SDK 1.x client writes them.
export const LEGACY_PROTOCOL_VERSION = '2025-11-25';

export function legacyMcpHeaders(): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': LEGACY_PROTOCOL_VERSION,
  };
}

/** The JSON-RPC body; no params member at all when `params` is undefined. */
export function legacyMcpBody(method: string, params?: Record<string, unknown>, id: number | string = 1): string {
  return JSON.stringify(params === undefined ? { method, jsonrpc: '2.0', id } : { method, params, jsonrpc: '2.0', id });
}
