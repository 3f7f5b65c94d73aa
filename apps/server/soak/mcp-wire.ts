// Raw JSON-RPC over fetch the way a 2026-07-28 client sends it (headers and `_meta` framing as in
// apps/server/test/helper.ts), counting every status and timing every request.
import type { TrafficStats } from './traffic-stats.ts';

export const PROTOCOL_VERSION = '2026-07-28';
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export interface RpcAnswer {
  status: number;
  result?: any;
  error?: { code: number; message: string };
}

let nextId = 0;

/** One request; `tasks` says whether this client declares the tasks extension. Network failures count as failures and return undefined. */
export async function rpc(
  mcpUrl: string,
  stats: TrafficStats,
  method: string,
  params: Record<string, unknown>,
  opts: { tasks: boolean; latency?: string },
): Promise<RpcAnswer | undefined> {
  const name = (params.name ?? params.taskId) as string | undefined;
  const started = performance.now();
  try {
    const res = await fetch(mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': PROTOCOL_VERSION,
        'mcp-method': method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++nextId,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
            'io.modelcontextprotocol/clientCapabilities': opts.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {},
          },
        },
      }),
    });
    const text = await res.text();
    stats.status(res.status);
    if (opts.latency) stats.latency(opts.latency, performance.now() - started);
    const body = parseBody(text);
    if (!body) {
      stats.error(method, `HTTP ${res.status} unparsable body`, false, text);
      return { status: res.status };
    }
    return { status: res.status, result: body.result, error: body.error };
  } catch (error) {
    stats.status('network error');
    stats.error(method, 'network error', false, String((error as Error).cause ?? error));
    return undefined;
  }
}

/** A JSON body, or the last `data:` event of an SSE body. */
function parseBody(text: string): { result?: any; error?: any } | undefined {
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
