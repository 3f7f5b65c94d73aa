// Raw JSON-RPC over fetch the way a 2026-07-28 client sends it (the shared wire of
// apps/server/harness/mcp-wire.ts), counting every status and timing every request.
import { mcpBody, mcpHeaders, parseMcpBody } from '../harness/mcp-wire.ts';
import type { TrafficStats } from './traffic-stats.ts';

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
      headers: mcpHeaders(method, typeof name === 'string' ? name : undefined),
      body: mcpBody(method, params, { id: ++nextId, tasks: opts.tasks }),
    });
    const text = await res.text();
    stats.status(res.status);
    if (opts.latency) stats.latency(opts.latency, performance.now() - started);
    const body = parseMcpBody(text);
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
