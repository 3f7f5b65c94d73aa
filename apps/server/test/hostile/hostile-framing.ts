// Frames the hostile test's requests the way a 2026-07-28 client does (headers that agree with the
// body, the per-request envelope, the attacker's own valid token), so each case breaks one thing.
import fc from 'fast-check';
import type { Check } from './hostile-checks.ts';

export interface HostileContext {
  /** Host header of the server as a legitimate client sends it (`127.0.0.1:port`). */
  host: string;
  /** The attacker's own valid token (most attacks come from an authenticated client). */
  token: string;
  /** Tasks of another principal. */
  foreignTaskIds: string[];
  rooms: string[];
  bodyLimit: number;
}

export interface HostileCase {
  category: string;
  name: string;
  headers: Record<string, string>;
  body: string;
  check: Check;
}

export interface Framed {
  headers: Record<string, string>;
  body: string;
}

export const PV = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';

/** Seeded samples, so a failing case reproduces. */
export const sample = <T>(arb: fc.Arbitrary<T>, n: number, seed: number): T[] => fc.sample(arb, { seed, numRuns: n });

export const envelope = (declare: boolean) => ({
  'io.modelcontextprotocol/protocolVersion': PV,
  'io.modelcontextprotocol/clientCapabilities': declare ? { extensions: { [TASKS]: {} } } : {},
});

export function framer(ctx: HostileContext) {
  let nextId = 1;
  const cases: HostileCase[] = [];
  const baseHeaders = (extra: Record<string, string> = {}) => ({
    host: ctx.host,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PV,
    authorization: `Bearer ${ctx.token}`,
    ...extra,
  });
  /** A well-framed request (headers agree with the body) carrying whatever params it is given. */
  const call = (
    method: string,
    params: Record<string, unknown>,
    opts: { declare?: boolean; headers?: Record<string, string> } = {},
  ): Framed => {
    // The 2026-07-28 transport mirrors the tool name (tools/call) and the task id (tasks/*) in Mcp-Name.
    const named = method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : undefined;
    const name: Record<string, string> = typeof named === 'string' ? { 'mcp-name': named } : {};
    return {
      headers: baseHeaders({ 'mcp-method': method, ...name, ...opts.headers }),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: nextId++,
        method,
        params: { ...params, _meta: envelope(opts.declare ?? true) },
      }),
    };
  };
  return {
    ctx,
    cases,
    call,
    nextId: () => nextId++,
    reflow: (args: unknown, declare = true) =>
      call('tools/call', { name: 'reflow_month', arguments: args }, { declare }),
    valid: { month: '2026-09', offline_rooms: [ctx.rooms[0]], from: '2026-09-07', to: '2026-09-20', dry_run: true },
    add: (category: string, name: string, req: Framed, check: Check) =>
      void cases.push({ category, name, ...req, check }),
  };
}

export type Framer = ReturnType<typeof framer>;
