// The raw HTTP a 2025-11-25 MCP client sends, for the load tool: it initializes first (a stateful
// server answers with a session, which every later request names), then sends each request with
// the negotiated version in MCP-Protocol-Version and no per-request _meta. Works against our
// server and against the SDK 1.x peer (both: a session per initialize).
import { parseMcpBody } from '../harness/mcp-wire.ts';

export const PROTOCOL_2025 = '2025-11-25';

export interface Session2025 {
  /** Headers for every request after the handshake (with the session, when the server keeps one). */
  headers: Record<string, string>;
  /** Sends one request on this session and returns its JSON-RPC result, throwing on an error answer. */
  call(method: string, params: Record<string, unknown>): Promise<any>;
}

const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export function body2025(method: string, params: Record<string, unknown>, id: number | string = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

/** initialize + notifications/initialized, as the SDK 1.x Client does on connect. */
export async function openSession2025(mcpUrl: string): Promise<Session2025> {
  const initialize = await fetch(mcpUrl, {
    method: 'POST',
    headers: POST_HEADERS,
    body: body2025('initialize', {
      protocolVersion: PROTOCOL_2025,
      capabilities: { tasks: { requests: {} } },
      clientInfo: { name: 'reflow-bench-2025', version: '0.0.0' },
    }),
  });
  const answer = parseMcpBody(await initialize.text());
  if (answer?.result?.protocolVersion !== PROTOCOL_2025)
    throw new Error(`initialize at ${mcpUrl} (HTTP ${initialize.status}): ${JSON.stringify(answer).slice(0, 300)}`);
  const sessionId = initialize.headers.get('mcp-session-id');
  const headers: Record<string, string> = {
    ...POST_HEADERS,
    'mcp-protocol-version': PROTOCOL_2025,
    ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
  };
  const initialized = await fetch(mcpUrl, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  if (!initialized.ok) throw new Error(`notifications/initialized at ${mcpUrl}: HTTP ${initialized.status}`);
  await initialized.arrayBuffer();
  let id = 1;
  return {
    headers,
    async call(method, params) {
      const response = await fetch(mcpUrl, { method: 'POST', headers, body: body2025(method, params, ++id) });
      const parsed = parseMcpBody(await response.text());
      if (!parsed || parsed.error)
        throw new Error(`${method} failed (HTTP ${response.status}): ${JSON.stringify(parsed?.error ?? 'unparsable')}`);
      return parsed.result;
    },
  };
}

/** A 2025-11-25 CreateTaskResult (`{ task: { taskId, status: "working", … } }`), from a JSON or SSE body. */
export function isCreateTaskResult2025(text: string): boolean {
  const task = parseMcpBody(text)?.result?.task;
  return typeof task?.taskId === 'string' && task.status === 'working';
}

/** A 2025-11-25 tasks/get answer for a task still working. */
export function isWorkingTask2025(text: string): boolean {
  const result = parseMcpBody(text)?.result;
  return typeof result?.taskId === 'string' && result.status === 'working';
}
