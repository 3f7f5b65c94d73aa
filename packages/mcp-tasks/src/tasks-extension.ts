import {
  isInputRequiredResult,
  McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { invalidInputResponses } from './input-responses.ts';
import { refusalOrThrow, refusalResult } from './start-errors.ts';
import type { TaskStore, TaskView } from './task-store.ts';
import {
  invalidArguments,
  principalFromAuth,
  progressReporter,
  routeToolCalls,
  TaskTools,
  type TaskToolDefinition,
  type ToolCall,
} from './task-tools.ts';
import { clientCapabilities, createTaskResult, declaresTasks, getTaskResult, TASKS_EXTENSION_ID } from './wire.ts';

export interface TasksExtensionOptions {
  store: TaskStore;
  /** Who is asking: tasks belong to the principal that created them. */
  principal?: (ctx: ServerContext) => string;
}

const TaskIdParams = z.object({ taskId: z.string().min(1).max(200) }).passthrough();
// The SDK lifts `inputResponses` out of the params into ctx.mcpReq.inputResponses (SEP-2322), so
// the params schema cannot require it; answers are checked against what the task waits on instead.
const UpdateParams = TaskIdParams.extend({ inputResponses: z.record(z.string(), z.unknown()).optional() });

/**
 * The MCP Tasks extension (SEP-2663) for one McpServer: advertises the capability, serves
 * tasks/get, tasks/update and tasks/cancel over a TaskStore, and lets declared task tools answer
 * a declaring client with a CreateTaskResult. Attach it once per server, after registering the
 * server's other tools and before connecting. What a tool's `start` throws (start-errors.ts): a
 * ProtocolError is the call's JSON-RPC error; a refusal (a ToolRefusal, `RFL_UNKNOWN_ROOM: …`) is a
 * tool error with its message; anything else is a generic internal error, the error itself going to
 * the request's listener.
 */
export class TasksExtension {
  readonly id = TASKS_EXTENSION_ID;
  readonly #store: TaskStore;
  readonly #principal: (ctx: ServerContext) => string;
  readonly #tools = new TaskTools();
  readonly #attached = new WeakSet<McpServer>();

  constructor(options: TasksExtensionOptions) {
    this.#store = options.store;
    this.#principal = options.principal ?? principalFromAuth;
  }

  /** Declares a tool that may answer with a task. */
  tool<Args>(name: string, definition: TaskToolDefinition<Args>): this {
    this.#tools.declare(name, definition);
    return this;
  }

  attach(mcp: McpServer): void {
    if (this.#attached.has(mcp)) return;
    if (mcp.isConnected()) throw new Error('attach the tasks extension before connecting the server');
    const server = mcp.server;
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) server.assertCanSetRequestHandler(method);

    this.#tools.registerSync(mcp, (ctx) => this.#call(ctx));
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
      const problem = invalidInputResponses(
        task.inputRequests ?? {},
        responses,
        ctx.mcpReq.droppedInputResponseKeys ?? [],
      );
      if (problem) throw new ProtocolError(ProtocolErrorCode.InvalidParams, problem);
      if (this.#store.update && !(await this.#store.update(params.taskId, principal, responses)))
        throw await this.#missing(params.taskId, principal);
      return { resultType: 'complete' };
    });
    server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, async (params, ctx) => {
      const principal = this.#declaredPrincipal(ctx);
      if (!(await this.#store.cancel(params.taskId, principal))) throw await this.#missing(params.taskId, principal);
      return { resultType: 'complete' };
    });
    server.registerCapabilities({ extensions: { [TASKS_EXTENSION_ID]: {} } });
    this.#attached.add(mcp);
  }

  /** Declared task tools called by a declaring client are answered here; everything else by McpServer. */
  #routeTaskCalls(server: McpServer['server']): void {
    routeToolCalls(server, async (request, ctx, inner) => {
      const tool = this.#tools.get(request.params.name);
      const declared = declaresTasks(ctx.mcpReq.envelope);
      if (tool?.taskSupport === 'required' && !declared)
        throw missingTasksCapability(`Tool ${request.params.name} runs only as a task: it`);
      if (!tool) return inner(request, ctx);
      const parsed = tool.inputSchema.safeParse(request.params.arguments ?? {});
      if (!declared) {
        if (parsed.success && tool.taskOnly?.(parsed.data))
          throw missingTasksCapability(`Tool ${request.params.name} with these arguments runs only as a task: it`);
        return inner(request, ctx);
      }
      if (!parsed.success)
        return {
          content: [{ type: 'text', text: invalidArguments(request.params.name, parsed.error) }],
          isError: true,
        };
      try {
        const started = await tool.start(parsed.data, this.#call(ctx));
        return isInputRequiredResult(started) ? started : createTaskResult(started);
      } catch (error) {
        // A refusal is the caller's to read; anything else (a driver's error, a bug) is the server's.
        return refusalResult(refusalOrThrow(request.params.name, error, 'start'));
      }
    });
  }

  #call(ctx: ServerContext): ToolCall {
    return {
      principal: this.#principal(ctx),
      signal: ctx.mcpReq.signal,
      clientCapabilities: clientCapabilities(ctx.mcpReq.envelope),
      canAskForInput: true,
      ...(ctx.mcpReq.inputResponses ? { inputResponses: ctx.mcpReq.inputResponses } : {}),
      reportProgress: progressReporter(ctx),
    };
  }

  #declaredPrincipal(ctx: ServerContext): string {
    if (!declaresTasks(ctx.mcpReq.envelope)) throw missingTasksCapability('This request');
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
    return new ProtocolError(ProtocolErrorCode.InvalidParams, expired ? 'Task has expired' : 'Task not found', {
      taskId,
    });
  }
}

function missingTasksCapability(who: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } } },
    `${who} needs the ${TASKS_EXTENSION_ID} extension declared in the request's client capabilities`,
  );
}
