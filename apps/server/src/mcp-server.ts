import {
  McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type McpRequestContext,
} from '@modelcontextprotocol/server';
import {
  HeldRequestsLimitError,
  ToolRefusal,
  holdFor,
  LegacyTasks,
  TASKS_EXTENSION_ID,
  TasksExtension,
  type HeldRequests,
  type TaskToolDefinition,
} from '@reflow/mcp-tasks';
import {
  listBookings,
  listBookingsArgsSchema,
  listRooms,
  REFLOW_KIND,
  ReflowInputError,
  resolveReflowArgs,
  revertResultSchema,
  type ReflowInput,
} from '@reflow/reflow';
import type { StoreQueries } from '@reflow/db';
import { EngineStoppingError, toTaskView } from '@reflow/tasks';
import { z } from 'zod';
import {
  FIXTURE_CAPABILITY_NEEDS,
  registerConformanceFixtures,
  requireDeclaredCapabilities,
} from './conformance/index.ts';
import { CreationLimitError, type CreationLimits } from './auth/creation-limits.ts';
import { callerOf } from './auth/principal-auth-info.ts';
import type { Principal } from './auth/token-table.ts';
import type { Services } from './services.ts';
import { cachedJsonSchema } from './tools/cached-json-schema.ts';
import { ListedTaskStore } from './tools/listed-task-store.ts';
import { reflowToolArgsSchema, reflowToolOutputSchema } from './tools/reflow-schemas.ts';
import { registerTaskStatusTools } from './tools/task-status-tools.ts';
import { RevertRefused, startRevert } from './tools/start-revert.ts';

const REFLOW_DESCRIPTION =
  'Move every confirmed booking out of rooms going offline for some days of a month: to another room or a nearby time ' +
  "within each booking's flex, maximising how many move, then minimising how far. Long-running: clients that declare " +
  'the io.modelcontextprotocol/tasks extension get a task handle at once and poll tasks/get. Without a task protocol, ' +
  'pass background:true to get the task id at once, then call reflow_status {taskId} until it completes (reflow_cancel stops it).';

export const SERVER_NAME = 'studio-reflow';

// Schemas converted to JSON Schema once, not by every request's server.
const NO_ARGS = cachedJsonSchema(z.object({}).strict());
const LIST_BOOKINGS_ARGS = cachedJsonSchema(listBookingsArgsSchema);
const REVERT_ARGS = cachedJsonSchema(
  z.object({ taskId: z.string().min(1).max(200).describe('The reflow_month task to revert') }).strict(),
);
const REVERT_RESULT = cachedJsonSchema(revertResultSchema);

/** Builds the MCP server for one request (createMcpHandler is stateless): cheap, everything durable lives in services. */
export function mcpServerFactory(services: Services, version: string, limits?: CreationLimits, held?: HeldRequests) {
  return (ctx: McpRequestContext) => {
    const { caller, store } = callerTasks(services, ctx.authInfo);
    const callerHeld = heldBy(caller, limits, held);
    const principalOf = () => caller.id;
    const mcp = new McpServer({ name: SERVER_NAME, version });
    mcp.registerTool(
      'list_rooms',
      {
        description: 'The rooms of the site: capacity, features and opening hours',
        inputSchema: NO_ARGS,
      },
      async () => {
        const rooms = await listRooms(services.store);
        return {
          content: [
            { type: 'text', text: rooms.rooms.map((r) => `${r.id}: ${r.name}, ${r.capacity} people`).join('\n') },
          ],
          structuredContent: rooms,
        };
      },
    );
    mcp.registerTool(
      'list_bookings',
      { description: 'Bookings of a month, optionally in one room', inputSchema: LIST_BOOKINGS_ARGS },
      async (args) => {
        const result = await guard(async () => listBookings(args, services.store));
        return { content: [{ type: 'text', text: `${result.bookings.length} bookings` }], structuredContent: result };
      },
    );
    registerTaskStatusTools(mcp, store, principalOf);
    // 2026-07-28 clients get the SEP-2663 extension; 2025-era clients the 2025-11-25 task API. Same store.
    const tasks =
      ctx.era === 'legacy'
        ? new LegacyTasks({
            store,
            principal: principalOf,
            identifiesRequestors: !caller.local,
            held: callerHeld,
            // Its tasks/result waits end, answered, when the engine has stopped (the shutdown's grace over).
            stopped: services.engine.stopped,
          })
        : new TasksExtension({ store, principal: principalOf });
    for (const [name, tool] of taskToolsFor(services, caller, limits, callerHeld)) tasks.tool(name, tool);
    if (services.conformanceFixtures) registerConformanceFixtures(mcp, tasks, services.engine);
    tasks.attach(mcp);
    if (services.conformanceFixtures) requireDeclaredCapabilities(mcp, FIXTURE_CAPABILITY_NEEDS);
    return mcp;
  };
}

/**
 * The task tools a caller may call (reflow_month, revert_reflow), by name: registered on every
 * request's server, and answered directly by the create's fast path (routes/mcp.ts).
 */
export function taskToolsFor(
  services: Services,
  caller: Principal,
  limits?: CreationLimits,
  held?: HeldRequests,
): Map<string, TaskToolDefinition<any>> {
  // No limits for this caller (none configured, or an operator): the create checks nothing, and on
  // PostgreSQL it is one statement.
  const admit =
    limits && limits.appliesTo(caller)
      ? async (tx: StoreQueries) => guard(async () => limits.admit(tx, caller))
      : undefined;
  const reflowMonth: TaskToolDefinition<z.infer<typeof reflowToolArgsSchema>> = {
    title: 'Reflow a month',
    description: REFLOW_DESCRIPTION,
    inputSchema: reflowToolArgsSchema,
    outputSchema: reflowToolOutputSchema,
    // The approval question waits for an answer through tasks/update: only a task can carry it.
    taskOnly: (args) => args.confirm === true,
    start: async ({ background: _, ...args }, call) => {
      // Only the 2026-07-28 extension's tasks can wait for the answer (tasks/update).
      if (args.confirm && !call.canAskForInput)
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `confirm: true waits for an approval answered through tasks/update, which the 2025-11-25 task API does not have; use the 2026-07-28 ${TASKS_EXTENSION_ID} extension, or call without confirm`,
        );
      // The approval question is a form-mode elicitation: ask it only of a client that said it can answer one.
      if (args.confirm && !acceptsFormElicitation(call.clientCapabilities))
        throw new MissingRequiredClientCapabilityError(
          { requiredCapabilities: { elicitation: { form: {} } } },
          'confirm: true asks for approval through a form-mode elicitation, which this request did not declare in its client capabilities',
        );
      const input = withApprovalPolicy(
        await guard(async () => resolveReflowArgs(args, services.store)),
        services,
        caller,
      );
      const { task } = await guard(() =>
        services.engine.create({ owner: call.principal, kind: REFLOW_KIND, input, admit }),
      );
      return toTaskView(task);
    },
    run: async ({ background, ...args }, call) => {
      // Clients without the extension get the same durable task, waited for here.
      if (args.confirm)
        throw new ToolRefusal(
          'RFL_CONFIRM_NEEDS_TASKS',
          `confirm: true waits for an answer through tasks/update; use the 2026-07-28 ${TASKS_EXTENSION_ID} extension (with form-mode elicitation)`,
        );
      const input = withApprovalPolicy(
        await guard(async () => resolveReflowArgs(args, services.store)),
        services,
        caller,
      );
      // Waiting holds this request open: one of the caller's held requests, taken before the create
      // (refused, it creates nothing) and given back when the wait ends.
      const release = background ? undefined : holdOrRefuse(held, caller.id);
      try {
        const { task, created } = await guard(() =>
          services.engine.create({ owner: call.principal, kind: REFLOW_KIND, input, admit }),
        );
        if (background) return backgroundAnswer(toTaskView(task));
        // The task is this request's: cancelling the request (or hanging up) cancels it, so nothing is
        // applied for a caller who is gone. A task it merely joined (dedupe) is someone else's to cancel.
        const cancelWithRequest = () => {
          // A store that cannot be reached now fails the wait below too, which answers the call.
          if (created) services.engine.cancel(task.id, call.principal).catch(() => undefined);
        };
        if (call.signal.aborted) cancelWithRequest();
        call.signal.addEventListener('abort', cancelWithRequest, { once: true });
        void call.reportProgress(task.statusMessage ?? 'Queued');
        const done = await guard(() =>
          services.engine
            .waitFor(task.id, (m) => void call.reportProgress(m), call.signal)
            .finally(() => call.signal.removeEventListener('abort', cancelWithRequest)),
        );
        if (!done) throw new ProtocolError(-32603, `Task ${task.id} expired before it finished`);
        if (done.status === 'completed') return JSON.parse(done.result!);
        if (done.status === 'failed')
          throw new ProtocolError(done.error?.code ?? -32603, done.error?.message ?? 'Reflow failed');
        return {
          content: [{ type: 'text', text: `Reflow task ${task.id} was cancelled; nothing was moved` }],
          isError: true,
        };
      } finally {
        release?.();
      }
    },
  };
  return new Map<string, TaskToolDefinition<any>>([
    ['reflow_month', reflowMonth],
    ['revert_reflow', revertReflowTool(services, caller, limits)],
  ]);
}

/**
 * The authenticated caller (the local one when no tokens are configured, and on stdio) and the
 * tasks it can see: an authenticated operator sees every task; everyone else only their own.
 */
export function callerTasks(services: Services, authInfo: Parameters<typeof callerOf>[0]) {
  const caller = callerOf(authInfo);
  return {
    caller,
    store: new ListedTaskStore(services.engine, services.store, {
      seesAll: caller.role === 'operator' && !caller.local,
    }),
  };
}

/**
 * revert_reflow {taskId}: for the reflow's owner or an operator, a task that puts back what the
 * reflow moved (where still possible), once per reflow. Refusals are tool errors with a stable code.
 */
function revertReflowTool(
  services: Services,
  caller: Principal,
  limits?: CreationLimits,
): TaskToolDefinition<{ taskId: string }> {
  const start = (taskId: string) => guard(() => startRevert(services, taskId, caller, limits));
  return {
    title: 'Revert a reflow',
    description:
      'Undo a completed reflow_month that applied its moves, when the room comes back: each booking it moved goes back to its ' +
      'original room and time if still where the reflow put it and the slot is free; bookings it marked needs_rebooking are ' +
      'confirmed again in their slot if free. What cannot go back is reported with the reason. Once per reflow; for its owner or an operator. ' +
      "Where the server requires an operator's approval (APPROVAL=operator), a client's revert waits for it, as its reflow did.",
    inputSchema: REVERT_ARGS,
    outputSchema: REVERT_RESULT,
    start: async ({ taskId }) => toTaskView(await start(taskId)),
    run: async ({ taskId }, call) => {
      const task = await start(taskId);
      const done = await guard(() => services.engine.waitFor(task.id, (m) => void call.reportProgress(m), call.signal));
      if (done?.status === 'completed') return JSON.parse(done.result!);
      throw new ProtocolError(
        done?.error?.code ?? -32603,
        done?.error?.message ?? `Revert task ${task.id} did not complete`,
      );
    },
  };
}

/** APPROVAL=operator: a client's reflow that would write waits for an operator; dry runs and operators' own do not. */
function withApprovalPolicy(input: ReflowInput, services: Services, caller: Principal): ReflowInput {
  return services.approval === 'operator' && caller.role === 'client' && !input.dryRun
    ? { ...input, operatorApproval: true }
    : input;
}

/** background:true: an ordinary tool result that names the task, for hosts that cannot wait or poll tasks/get. */
function backgroundAnswer(task: ReturnType<typeof toTaskView>) {
  const wait = Math.max(1, Math.round(task.pollIntervalMs / 1000));
  const text =
    `Started reflow task ${task.taskId} in the background (${task.statusMessage ?? 'queued'}). ` +
    `Call reflow_status with {"taskId":"${task.taskId}"} in about ${wait} s, and again while it says working; ` +
    `reflow_cancel with the same id stops it.`;
  const background = {
    taskId: task.taskId,
    status: task.status,
    statusMessage: task.statusMessage,
    pollIntervalMs: task.pollIntervalMs,
    ttlMs: task.ttlMs,
  };
  return { content: [{ type: 'text' as const, text }], structuredContent: { background } };
}

/**
 * Whether the declared capabilities accept a form-mode elicitation: `elicitation: {}` means form
 * mode (the spec's backwards-compatible reading); otherwise `form` must be named. URL-only clients
 * must not be sent a form (MCP 2025-11-25 and later: "Servers MUST NOT send elicitation requests
 * with modes that are not supported by the client").
 */
function acceptsFormElicitation(capabilities: Record<string, unknown>): boolean {
  const elicitation = capabilities.elicitation;
  if (elicitation === null || typeof elicitation !== 'object' || Array.isArray(elicitation)) return false;
  return Object.keys(elicitation).length === 0 || Object.hasOwn(elicitation, 'form');
}

/**
 * What the caller can act on becomes a refusal (a tool error, its stable code first): input that
 * names what was wrong, a limit, a revert refused, a server shutting down (ask elsewhere or later).
 */
async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (
      error instanceof ReflowInputError ||
      error instanceof CreationLimitError ||
      error instanceof RevertRefused ||
      error instanceof EngineStoppingError
    )
      throw new ToolRefusal(error.code, error.message, { cause: error });
    throw error;
  }
}

/** The cap on what `caller` holds open: none for a caller the creation limits do not apply to (an operator). */
export function heldBy(caller: Principal, limits?: CreationLimits, held?: HeldRequests): HeldRequests | undefined {
  return held && limits?.appliesTo(caller) ? held : undefined;
}

/** One of `principal`'s held requests, or a tool error (its code first, as the creation limits') saying it holds too many. */
function holdOrRefuse(held: HeldRequests | undefined, principal: string): () => void {
  const release = holdFor(held, principal);
  if (release instanceof HeldRequestsLimitError) throw new ToolRefusal(release.code, release.message);
  return release;
}
