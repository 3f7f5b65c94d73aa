// The benchmark's peer, run as its own process by sdk1-peer.ts: the official TypeScript SDK 1.x
// server with its experimental tasks, written the way that SDK's simpleStreamableHttp example is —
// McpServer with an InMemoryTaskStore shared by all sessions, a task tool registered through
// experimental.tasks.registerToolTask whose work runs out of band, and stateful Streamable HTTP
// (a session per initialize) on its Express app. Left out of the example: its other tools, OAuth,
// the per-request console.log and the resumability event store (polling clients never resume a
// stream); each of those would only slow the peer down. Tasks live in memory: a restart loses them.
// argv[2]: how long the tool's work takes, in ms (tasks stay `working` that long). Prints its URL.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { isInitializeRequest, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';

const workMs = Number(process.argv[2] ?? 60_000);
if (!Number.isInteger(workMs) || workMs < 0) {
  console.error(`sdk1-peer-server: the work duration must be a whole number of ms, got ${process.argv[2]}`);
  process.exit(2);
}

const taskStore = new InMemoryTaskStore();

function getServer(): McpServer {
  const server = new McpServer(
    { name: 'sdk1-peer', version: '1.0.0' },
    {
      capabilities: { tasks: { requests: { tools: { call: {} } } } },
      taskStore,
      taskMessageQueue: new InMemoryTaskMessageQueue(),
    },
  );
  // The example's `delay` tool: the task is created at once, its result stored when the wait is over.
  server.experimental.tasks.registerToolTask(
    'delay',
    {
      title: 'Delay',
      description: 'Completes after the given time; a task stays working until then',
      inputSchema: { duration: z.number().describe('Duration in milliseconds').default(workMs) },
    },
    {
      async createTask({ duration }, { taskStore: store, taskRequestedTtl }) {
        const task = await store.createTask({ ttl: taskRequestedTtl });
        setTimeout(() => {
          store
            .storeTaskResult(task.taskId, 'completed', {
              content: [{ type: 'text', text: `Completed ${duration}ms delay` }],
            })
            .catch(() => {}); // gone with its session or its TTL: nothing left to complete
        }, duration).unref();
        return { task };
      },
      async getTask(_args, { taskId, taskStore: store }) {
        return await store.getTask(taskId);
      },
      async getTaskResult(_args, { taskId, taskStore: store }) {
        // The store keeps any Result; this tool only ever stores a CallToolResult.
        return (await store.getTaskResult(taskId)) as CallToolResult;
      },
    },
  );
  return server;
}

// Express's own types are not installed: its requests and responses are Node's, plus the parsed body.
type Request = IncomingMessage & { body?: unknown };
type Response = ServerResponse;
const jsonError = (res: Response, status: number, code: number, message: string) =>
  res
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));

const sessions = new Map<string, StreamableHTTPServerTransport>();
const app = createMcpExpressApp();

app.post('/mcp', async (req: Request, res: Response) => {
  const sessionId = req.headers['mcp-session-id'] as string | undefined;
  try {
    const existing = sessionId ? sessions.get(sessionId) : undefined;
    if (existing) return await existing.handleRequest(req, res, req.body);
    if (!sessionId && isInitializeRequest(req.body)) {
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, transport);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await getServer().connect(transport);
      return await transport.handleRequest(req, res, req.body);
    }
    if (sessionId) jsonError(res, 404, -32001, 'Session not found');
    else jsonError(res, 400, -32000, 'Bad Request: No valid session ID provided');
  } catch (error) {
    console.error('sdk1-peer-server: error handling MCP request:', error);
    if (!res.headersSent) jsonError(res, 500, -32603, 'Internal server error');
  }
});

// GET (the standalone SSE stream) and DELETE (session end), as the example serves them.
const sessionRequest = async (req: Request, res: Response) => {
  const transport = sessions.get(req.headers['mcp-session-id'] as string);
  if (!transport) return void jsonError(res, 404, -32001, 'Session not found');
  await transport.handleRequest(req, res);
};
app.get('/mcp', sessionRequest);
app.delete('/mcp', sessionRequest);

const listener = app.listen(0, '127.0.0.1', (error?: Error) => {
  if (error) {
    console.error('sdk1-peer-server: failed to start:', error);
    process.exit(1);
  }
  console.log(`http://127.0.0.1:${(listener.address() as AddressInfo).port}/mcp`);
});
