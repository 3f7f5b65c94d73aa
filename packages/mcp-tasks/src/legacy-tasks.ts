import {
  isInputRequiredResult,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
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
import { LEGACY_TASKS_CAPABILITY, legacyCreateTaskResult, legacyTask, withRelatedTask } from './legacy-wire.ts';
import { TASKS_EXTENSION_ID } from './wire.ts';
import { HeldRequestsLimitError, holdFor, type HeldRequests } from './held-requests.ts';
import { legacyStartError } from './start-errors.ts';

/** What the 2025-11-25 task API needs beyond TaskStore: the caller's own tasks, a page at a time. */
export interface LegacyTaskStore extends TaskStore {
  /** Newest first. Throws (or returns undefined) for a cursor it did not issue. */
  list(
    principal: string,
    page: { cursor?: string; limit: number },
  ): Promise<{ tasks: TaskView[]; nextCursor?: string } | undefined>;
}

export interface LegacyTasksOptions {
  store: LegacyTaskStore;
  principal?: (ctx: ServerContext) => string;
  /**
   * Whether requestors are told apart (authenticated). Without that everyone is one principal and
   * tasks/list would show each caller everyone's tasks: it is then neither declared nor served
   * (2025-11-25: receivers that cannot identify requestors SHOULD NOT declare tasks.list).
   */
  identifiesRequestors?: boolean;
  /** tasks/list page size. */
  pageSize?: number;
  /** How often tasks/result re-reads a task it is waiting on (it blocks until the task settles). */
  resultPollMs?: number;
  /** The caller's cap on requests held open (a tasks/result that waits is one); none: not limited. */
  held?: HeldRequests;
  /**
   * Aborts when the server stops serving waits (it is shutting down, and no task moves here any
   * more): a tasks/result still waiting then answers so (`RFL_SHUTTING_DOWN`, naming the task, which
   * is durable), instead of holding the server's close until its client gives up.
   */
  stopped?: AbortSignal;
}

/** tasks/list's page size unless told otherwise (the direct poll path pages the same way). */
export const LEGACY_TASKS_PAGE_SIZE = 50;

const TaskIdParams = z.object({ taskId: z.string().min(1).max(200) }).passthrough();
const ListParams = z.object({ cursor: z.string().max(500).optional() }).passthrough();
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * The 2025-11-25 task API for 2025-era clients, over the same durable store as the SEP-2663
 * extension: `params.task` on tools/call creates a task (CreateTaskResult with a nested `task`),
 * tasks/get, tasks/result (blocks until the task settles), tasks/list (the caller's tasks only)
 * and tasks/cancel. Task tools advertise `execution.taskSupport: "optional"`; a call without
 * `params.task` is answered synchronously. Attach once per legacy-era server, before connecting.
 */
export class LegacyTasks {
  readonly #o: Required<Omit<LegacyTasksOptions, 'principal' | 'held' | 'stopped'>> & {
    principal: (ctx: ServerContext) => string;
    held?: HeldRequests;
    stopped?: AbortSignal;
  };
  readonly #tools = new TaskTools();
  readonly #attached = new WeakSet<McpServer>();

  constructor(options: LegacyTasksOptions) {
    this.#o = {
      pageSize: LEGACY_TASKS_PAGE_SIZE,
      resultPollMs: 200,
      principal: principalFromAuth,
      identifiesRequestors: true,
      ...options,
    };
  }

  tool<Args>(name: string, definition: TaskToolDefinition<Args>): this {
    this.#tools.declare(name, definition);
    return this;
  }

  attach(mcp: McpServer): void {
    if (this.#attached.has(mcp)) return;
    if (mcp.isConnected()) throw new Error('attach the 2025-11-25 task API before connecting the server');
    const server = mcp.server;
    const listable = this.#o.identifiesRequestors;
    for (const method of ['tasks/get', 'tasks/result', ...(listable ? ['tasks/list'] : []), 'tasks/cancel'])
      server.assertCanSetRequestHandler(method);
    const registered = this.#tools.registerSync(mcp, (ctx) => this.#call(ctx));
    for (const [i, [, tool]] of [...this.#tools].entries())
      registered[i].execution = { taskSupport: tool.taskSupport ?? 'optional' };
    this.#routeTaskCalls(server);

    server.setRequestHandler('tasks/get', { params: TaskIdParams }, async (params, ctx) =>
      legacyTask(await this.#visible(params.taskId, ctx)),
    );
    server.setRequestHandler('tasks/result', { params: TaskIdParams }, async (params, ctx) =>
      this.#result(params.taskId, ctx),
    );
    if (listable)
      server.setRequestHandler('tasks/list', { params: ListParams.optional() }, async (params, ctx) => {
        let page: Awaited<ReturnType<LegacyTaskStore['list']>>;
        try {
          page = await this.#o.store.list(this.#o.principal(ctx), { cursor: params?.cursor, limit: this.#o.pageSize });
        } catch {
          page = undefined;
        }
        if (!page) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid cursor: ${params?.cursor}`);
        return {
          tasks: page.tasks.map((task) => legacyTask(task)),
          ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
        };
      });
    server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, async (params, ctx) => {
      const principal = this.#o.principal(ctx);
      const task = await this.#visible(params.taskId, ctx);
      if (TERMINAL.has(task.status))
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Cannot cancel task ${params.taskId}: it already ended ${task.status}`,
        );
      await this.#o.store.cancel(params.taskId, principal);
      return legacyTask((await this.#o.store.get(params.taskId, principal)) ?? task);
    });
    const { list: _, ...unlisted } = LEGACY_TASKS_CAPABILITY;
    server.registerCapabilities({ tasks: listable ? LEGACY_TASKS_CAPABILITY : unlisted });
    this.#attached.add(mcp);
  }

  /** Task-augmented calls (params.task) to declared task tools are answered here; everything else by McpServer. */
  #routeTaskCalls(server: McpServer['server']): void {
    routeToolCalls(server, async (request, ctx, inner) => {
      const params = request.params as { name: string; arguments?: unknown; task?: unknown };
      const tool = this.#tools.get(params.name);
      // 2025-11-25: a tool advertised taskSupport "required" called without params.task MUST be -32601.
      if (params.task === undefined && tool?.taskSupport === 'required')
        throw new ProtocolError(
          ProtocolErrorCode.MethodNotFound,
          `Tool ${params.name} runs only as a task: call it with params.task`,
        );
      if (params.task === undefined) return inner(request, ctx);
      if (!tool)
        throw new ProtocolError(
          ProtocolErrorCode.MethodNotFound,
          `Tool ${params.name} does not support task-augmented calls`,
        );
      const parsed = tool.inputSchema.safeParse(params.arguments ?? {});
      if (!parsed.success)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, invalidArguments(params.name, parsed.error));
      let task: TaskView;
      try {
        const started = await tool.start(parsed.data, this.#call(ctx));
        // Asking in the call itself (SEP-2322) is a 2026-07-28 feature this task API cannot carry.
        if (isInputRequiredResult(started))
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            `Tool ${params.name} needs input first, which the 2025-11-25 task API cannot ask for`,
          );
        task = started;
      } catch (error) {
        // A refusal is the caller's to read (this API answers it as -32602); anything else is the server's.
        throw legacyStartError(params.name, error);
      }
      const immediate = `Started task ${task.taskId} (${task.statusMessage ?? task.status}); the result follows when it completes.`;
      return legacyCreateTaskResult(task, immediate) as never;
    });
  }

  /** tasks/result: blocks until the task settles, then answers exactly what the call would have. */
  async #result(taskId: string, ctx: ServerContext) {
    let task = await this.#visible(taskId, ctx);
    // A wait holds this request open: one of the caller's held requests, for as long as it lasts.
    const release = TERMINAL.has(task.status) ? undefined : this.#hold(ctx);
    try {
      task = await this.#waitUntilSettled(taskId, task, ctx);
    } finally {
      release?.();
    }
    if (task.status === 'failed')
      throw new ProtocolError(
        task.error?.code ?? ProtocolErrorCode.InternalError,
        task.error?.message ?? 'Task failed',
        task.error?.data,
      );
    if (task.status === 'cancelled')
      return withRelatedTask(
        { content: [{ type: 'text', text: `Task ${taskId} was cancelled` }], isError: true },
        taskId,
      );
    return withRelatedTask(task.result ?? { content: [] }, taskId);
  }

  /**
   * Re-reads the task until it settles, the request ends (cancelled, or its client gone), or the
   * server stops serving waits: then, read once more, the task answers if it settled, else the wait
   * says the server is shutting down.
   */
  async #waitUntilSettled(taskId: string, task: TaskView, ctx: ServerContext): Promise<TaskView> {
    const { stopped } = this.#o;
    // Ends the pause between two reads: the request ending, or the server stopping.
    const pause = stopped ? AbortSignal.any([ctx.mcpReq.signal, stopped]) : ctx.mcpReq.signal;
    while (!TERMINAL.has(task.status)) {
      // This API cannot deliver what the task waits for (it has no tasks/update, and a stateless
      // server cannot take the answer to a request sent on this stream): say so now rather than
      // block until the task expires.
      if (task.status === 'input_required')
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Task ${taskId} is waiting for input, which the 2025-11-25 task API cannot deliver; answer it with tasks/update through the 2026-07-28 Tasks extension (${TASKS_EXTENSION_ID}), or cancel it`,
          { taskId, status: task.status },
        );
      if (stopped?.aborted)
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          `The server is shutting down; task ${taskId} is durable and goes on without this wait: ask again (tasks/result, or poll tasks/get) on another server or once this one is back`,
          { code: 'RFL_SHUTTING_DOWN', taskId },
        );
      await sleep(this.#o.resultPollMs, undefined, { signal: pause }).catch((error: unknown) => {
        // The request ended: so does the wait. The server stopped: one more read.
        if (ctx.mcpReq.signal.aborted || !stopped?.aborted) throw error;
      });
      task = await this.#visible(taskId, ctx);
    }
    return task;
  }

  /** One of the caller's held requests, or a JSON-RPC error saying the caller holds too many. */
  #hold(ctx: ServerContext): () => void {
    const release = holdFor(this.#o.held, this.#o.principal(ctx));
    if (release instanceof HeldRequestsLimitError)
      throw new ProtocolError(ProtocolErrorCode.InternalError, release.message, release.data);
    return release;
  }

  #call(ctx: ServerContext): ToolCall {
    return {
      principal: this.#o.principal(ctx),
      signal: ctx.mcpReq.signal,
      // This API has no tasks/update, so nothing is asked of its clients mid-task, whatever they declared.
      clientCapabilities: {},
      canAskForInput: false,
      reportProgress: progressReporter(ctx),
    };
  }

  async #visible(taskId: string, ctx: ServerContext): Promise<TaskView> {
    const principal = this.#o.principal(ctx);
    const task = await this.#o.store.get(taskId, principal);
    if (task) return task;
    // The same two answers as the 2026-07-28 path: only the owner hears that a task expired.
    const expired = (await this.#o.store.expired?.(taskId, principal)) ?? false;
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, expired ? 'Task has expired' : 'Task not found', {
      taskId,
    });
  }
}
