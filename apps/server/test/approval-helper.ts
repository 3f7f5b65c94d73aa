// Raw JSON-RPC the way a 2026-07-28 client sends it, with the client capabilities chosen per call
// (the approval gate depends on whether the client declared elicitation).
import { PROTOCOL_VERSION, TASKS } from './helper.ts';

/** A client that declares the Tasks extension and can answer elicitations. */
export const ELICITING_CLIENT = { elicitation: {}, extensions: { [TASKS]: {} } };

export async function call(
  url: string,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = ELICITING_CLIENT,
): Promise<{ status: number; body: any }> {
  const name = (params.name ?? params.taskId) as string | undefined;
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: { 'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION, 'io.modelcontextprotocol/clientCapabilities': capabilities },
      },
    }),
  });
  const text = await res.text();
  const json = text.trimStart().startsWith('{') ? text : text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).pop()!;
  return { status: res.status, body: JSON.parse(json) };
}
