// What both task APIs (the SEP-2663 extension and the 2025-11-25 API) share about task tools: how
// a tool is declared, what its handlers learn about the call, and how calls reach them in front
// of McpServer's own tools/call handler.
import type { CallToolResult, InputRequiredResult, McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { TaskView } from './task-store.ts';
import { answeringRun } from './start-errors.ts';

/** What a task tool's handlers learn about the call. */
export interface ToolCall {
  principal: string;
  signal: AbortSignal;
  /** Sends notifications/progress when the caller asked for progress (synchronous path only). */
  reportProgress(message: string): Promise<void>;
  /** The capabilities this request declared (2026-07-28: per request), e.g. `elicitation`: ask only what the client can answer. */
  clientCapabilities: Record<string, unknown>;
  /**
   * Whether a task started by this call can ask its caller for input mid-task (input_required,
   * answered through tasks/update). False for the 2025-11-25 task API, which has no tasks/update.
   */
  canAskForInput: boolean;
  /** Answers a retried tools/call carries for input requested in an earlier round (SEP-2322), by key. */
  inputResponses?: Record<string, unknown>;
}

export interface TaskToolDefinition<Args> {
  title?: string;
  description: string;
  inputSchema: z.ZodType<Args>;
  outputSchema?: z.ZodType<Record<string, unknown>>;
  /**
   * `required`: only clients that declared the extension may call it; others get -32021 before any
   * work. Default `optional`: they get the synchronous answer from `run`.
   */
  taskSupport?: 'optional' | 'required';
  /**
   * For an `optional` tool: whether these arguments can be served only as a task (say, the work
   * waits for an answer through tasks/update). A client that did not declare the extension then
   * gets -32021 before any work, as for a `required` tool.
   */
  taskOnly?(args: Args): boolean;
  /**
   * Durable path, for clients that declared the extension: create the task and return it at once,
   * or first ask the caller for input in this same call (an InputRequiredResult, SEP-2322).
   */
  start(args: Args, call: ToolCall): TaskView | InputRequiredResult | Promise<TaskView | InputRequiredResult>;
  /** The same work answered synchronously, for clients that did not (not called for `required` tools). */
  run(args: Args, call: ToolCall): Promise<CallToolResult>;
}

/** Task tools by name; declaring one twice is a programming error. */
export class TaskTools extends Map<string, TaskToolDefinition<any>> {
  declare<Args>(name: string, definition: TaskToolDefinition<Args>): void {
    if (this.has(name)) throw new Error(`task tool ${name} is already declared`);
    this.set(name, definition);
  }

  /** Registers every tool with McpServer for its synchronous path; returns what McpServer registered. */
  registerSync(mcp: McpServer, call: (ctx: ServerContext) => ToolCall) {
    return [...this].map(([name, tool]) =>
      mcp.registerTool(
        name,
        {
          title: tool.title,
          description: tool.description,
          inputSchema: tool.inputSchema,
          outputSchema: tool.outputSchema,
        },
        (args: unknown, ctx: ServerContext) => answeringRun(name, () => tool.run(args, call(ctx))),
      ),
    );
  }
}

/** Tasks belong to the authenticated client, or to `anonymous` where nobody authenticates. */
export const principalFromAuth = (ctx: ServerContext): string => ctx.http?.authInfo?.clientId ?? 'anonymous';

/** notifications/progress for a caller that sent a progress token; nothing for one that did not. */
export function progressReporter(ctx: ServerContext): ToolCall['reportProgress'] {
  const token = ctx.mcpReq._meta?.progressToken;
  let progress = 0;
  return async (message) => {
    if (token === undefined) return;
    await ctx.mcpReq.notify({
      method: 'notifications/progress',
      params: { progressToken: token, progress: ++progress, message },
    });
  };
}

/** The message for arguments a tool's schema refused, naming each field. */
export function invalidArguments(tool: string, error: z.ZodError): string {
  const problems = error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
  return `Invalid arguments for tool ${tool}: ${problems}`;
}

type Handler = (request: any, ctx: ServerContext) => Promise<any>;

/**
 * Puts `route` in front of McpServer's tools/call handler, which gets every call `route` passes on.
 * McpServer validates every tool result against the tool's outputSchema, which a task result cannot
 * satisfy (typescript-sdk#2637); the server's protected `_getRequestHandler` is there for chaining.
 */
export function routeToolCalls(
  server: McpServer['server'],
  route: (request: any, ctx: ServerContext, inner: Handler) => Promise<any>,
): void {
  const inner = (server as unknown as { _getRequestHandler(m: string): Handler | undefined })._getRequestHandler(
    'tools/call',
  );
  if (!inner) throw new Error('no tools/call handler to route from');
  server.removeRequestHandler('tools/call');
  server.setRequestHandler('tools/call', (request, ctx) => route(request, ctx, inner));
}
