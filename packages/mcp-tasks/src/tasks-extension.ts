import {
  isInputRequiredResult,
  McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type InputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { invalidInputResponses } from './input-responses.ts';
import type { TaskStore, TaskView } from './task-store.ts';
import { clientCapabilities, createTaskResult, declaresTasks, getTaskResult, TASKS_EXTENSION_ID } from './wire.ts';

/** What a task tool's handlers learn about the call. */
export interface ToolCall {
  principal: string;
  signal: AbortSignal;
  /** Sends notifications/progress when the caller asked for progress (synchronous path only). */
  reportProgress(message: string): Promise<void>;
  /** The capabilities this request declared (2026-07-28: per request), e.g. `elicitation`: ask only what the client can answer. */
  clientCapabilities: Record<string, unknown>;
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
   * Durable path, for clients that declared the extension: create the task and return it at once,
   * or first ask the caller for input in this same call (an InputRequiredResult, SEP-2322).
   */
  start(args: Args, call: ToolCall): TaskView | InputRequiredResult | Promise<TaskView | InputRequiredResult>;
  /** The same work answered synchronously, for clients that did not (not called for `required` tools). */
  run(args: Args, call: ToolCall): Promise<CallToolResult>;
}

export interface TasksExtensionOptions {
  store: TaskStore;
  /** Who is asking: tasks belong to the principal that created them. */
  principal?: (ctx: ServerContext) => string;
}

const TaskIdParams = z.object({ taskId: z.string().min(1).max(200) }).passthrough();
// The SDK lifts `inputResponses` out of the params into ctx.mcpReq.inputResponses (SEP-2322), so
// the params schema cannot require it; answers are checked against what the task waits on instead.
const UpdateParams = TaskIdParams.extend({ inputResponses: z.record(z.string(), z.unknown()).optional() });

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
      const responses = { ...params.inputResponses, ...ctx.mcpReq.inputResponses };
      const task = await this.#store.get(params.taskId, principal);
      if (!task) throw await this.#missing(params.taskId, principal);
      // A malformed answer to a pending key is refused whole, before anything is recorded.
      const problem = invalidInputResponses(task.inputRequests ?? {}, responses, ctx.mcpReq.droppedInputResponseKeys ?? []);
      if (problem) throw new ProtocolError(ProtocolErrorCode.InvalidParams, problem);
      if (this.#store.update && !(await this.#store.update(params.taskId, principal, responses))) throw await this.#missing(params.taskId, principal);
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
      const declared = declaresTasks(ctx.mcpReq.envelope as Record<string, unknown> | undefined);
      if (tool?.taskSupport === 'required' && !declared) throw missingTasksCapability(`Tool ${request.params.name} runs only as a task: it`);
      if (!tool || !declared) return inner(request, ctx);
      const parsed = tool.inputSchema.safeParse(request.params.arguments ?? {});
      if (!parsed.success) {
        const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
        return { content: [{ type: 'text', text: `Invalid arguments for tool ${request.params.name}: ${problems}` }], isError: true };
      }
      try {
        const started = await tool.start(parsed.data, this.#call(ctx));
        return (isInputRequiredResult(started) ? started : createTaskResult(started)) as never;
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
      clientCapabilities: clientCapabilities(ctx.mcpReq.envelope as Record<string, unknown> | undefined),
      ...(ctx.mcpReq.inputResponses ? { inputResponses: ctx.mcpReq.inputResponses } : {}),
      reportProgress: async (message) => {
        if (token === undefined) return;
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: ++progress, message } });
      },
    };
  }

  #declaredPrincipal(ctx: ServerContext): string {
    if (!declaresTasks(ctx.mcpReq.envelope as Record<string, unknown> | undefined)) throw missingTasksCapability('This request');
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

function missingTasksCapability(who: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } as never },
    `${who} needs the ${TASKS_EXTENSION_ID} extension declared in the request's client capabilities`,
  );
}
