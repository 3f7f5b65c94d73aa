import {
  McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { TaskStore, TaskView } from './task-store.ts';
import { createTaskResult, declaresTasks, getTaskResult, TASKS_EXTENSION_ID } from './wire.ts';

/** What a task tool's handlers learn about the call. */
export interface ToolCall {
  principal: string;
  signal: AbortSignal;
  /** Sends notifications/progress when the caller asked for progress (synchronous path only). */
  reportProgress(message: string): Promise<void>;
}

export interface TaskToolDefinition<Args> {
  title?: string;
  description: string;
  inputSchema: z.ZodType<Args>;
  outputSchema: z.ZodType<Record<string, unknown>>;
  /** Durable path, for clients that declared the extension: create the task and return it at once. */
  start(args: Args, call: ToolCall): TaskView | Promise<TaskView>;
  /** The same work answered synchronously, for clients that did not. */
  run(args: Args, call: ToolCall): Promise<CallToolResult>;
}

export interface TasksExtensionOptions {
  store: TaskStore;
  /** Who is asking: tasks belong to the principal that created them. */
  principal?: (ctx: ServerContext) => string;
}

const TaskIdParams = z.object({ taskId: z.string().min(1).max(200) }).passthrough();
const UpdateParams = TaskIdParams.extend({ inputResponses: z.record(z.string(), z.unknown()) });

type Handler = (request: any, ctx: ServerContext) => Promise<any>;

/**
 * The MCP Tasks extension (SEP-2663) for one McpServer: advertises the capability, serves
 * tasks/get, tasks/update and tasks/cancel over a TaskStore, and lets declared task tools answer
 * a declaring client with a CreateTaskResult. Attach it once per server, after registering the
 * server's other tools and before connecting.
 */
export class TasksExtension {
  readonly id = TASKS_EXTENSION_ID;
  readonly #store: TaskStore;
  readonly #principal: (ctx: ServerContext) => string;
  readonly #tools = new Map<string, TaskToolDefinition<any>>();
  readonly #attached = new WeakSet<McpServer>();

  constructor(options: TasksExtensionOptions) {
    this.#store = options.store;
    this.#principal = options.principal ?? ((ctx) => ctx.http?.authInfo?.clientId ?? 'anonymous');
  }

  /** Declares a tool that may answer with a task. */
  tool<Args>(name: string, definition: TaskToolDefinition<Args>): this {
    if (this.#tools.has(name)) throw new Error(`task tool ${name} is already declared`);
    this.#tools.set(name, definition);
    return this;
  }

  attach(mcp: McpServer): void {
    if (this.#attached.has(mcp)) return;
    if (mcp.isConnected()) throw new Error('attach the tasks extension before connecting the server');
    const server = mcp.server;
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) server.assertCanSetRequestHandler(method);

    for (const [name, tool] of this.#tools) {
      mcp.registerTool(
        name,
        { title: tool.title, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema },
        (args: unknown, ctx: ServerContext) => tool.run(args, this.#call(ctx)),
      );
    }
    this.#routeTaskCalls(server);

    server.setRequestHandler('tasks/get', { params: TaskIdParams }, async (params, ctx) => {
      return getTaskResult(await this.#visible(params.taskId, ctx));
    });
    server.setRequestHandler('tasks/update', { params: UpdateParams }, async (params, ctx) => {
      const principal = this.#declaredPrincipal(ctx);
      const found = this.#store.update
        ? await this.#store.update(params.taskId, principal, params.inputResponses)
        : (await this.#store.get(params.taskId, principal)) !== undefined;
      if (!found) throw await this.#missing(params.taskId, principal);
      return { resultType: 'complete' };
    });
    server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, async (params, ctx) => {
      const principal = this.#declaredPrincipal(ctx);
      if (!(await this.#store.cancel(params.taskId, principal))) throw await this.#missing(params.taskId, principal);
      return { resultType: 'complete' };
    });
    server.registerCapabilities({ extensions: { [TASKS_EXTENSION_ID]: {} } } as never);
    this.#attached.add(mcp);
  }

  /**
   * McpServer validates every tool result against the tool's outputSchema, which a CreateTaskResult
   * cannot satisfy (typescript-sdk#2637). So declared task tools called by a declaring client are
   * answered here, in front of McpServer's own tools/call handler, which serves everything else.
   */
  #routeTaskCalls(server: McpServer['server']): void {
    const inner = (server as unknown as { _getRequestHandler(m: string): Handler | undefined })._getRequestHandler('tools/call');
    if (!inner) throw new Error('no tools/call handler to route from');
    server.removeRequestHandler('tools/call');
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const tool = this.#tools.get(request.params.name);
      if (!tool || !declaresTasks(ctx.mcpReq.envelope as Record<string, unknown> | undefined)) return inner(request, ctx);
      const parsed = tool.inputSchema.safeParse(request.params.arguments ?? {});
      if (!parsed.success) {
        const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
        return { content: [{ type: 'text', text: `Invalid arguments for tool ${request.params.name}: ${problems}` }], isError: true };
      }
      try {
        return createTaskResult(await tool.start(parsed.data, this.#call(ctx))) as never;
      } catch (error) {
        if (error instanceof ProtocolError) throw error;
        return { content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }], isError: true };
      }
    });
  }

  #call(ctx: ServerContext): ToolCall {
    const token = ctx.mcpReq._meta?.progressToken;
    let progress = 0;
    return {
      principal: this.#principal(ctx),
      signal: ctx.mcpReq.signal,
      reportProgress: async (message) => {
        if (token === undefined) return;
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: ++progress, message } });
      },
    };
  }

  #declaredPrincipal(ctx: ServerContext): string {
    if (!declaresTasks(ctx.mcpReq.envelope as Record<string, unknown> | undefined))
      throw new MissingRequiredClientCapabilityError(
        { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } as never },
        `This request did not declare the ${TASKS_EXTENSION_ID} extension in its client capabilities`,
      );
    return this.#principal(ctx);
  }

  async #visible(taskId: string, ctx: ServerContext): Promise<TaskView> {
    const principal = this.#declaredPrincipal(ctx);
    const task = await this.#store.get(taskId, principal);
    if (!task) throw await this.#missing(taskId, principal);
    return task;
  }

  /** -32602 either way; the owner of an expired task is told it expired, everyone else "not found". */
  async #missing(taskId: string, principal: string): Promise<ProtocolError> {
    const expired = (await this.#store.expired?.(taskId, principal)) ?? false;
    return new ProtocolError(ProtocolErrorCode.InvalidParams, expired ? 'Task has expired' : 'Task not found', { taskId });
  }
}
