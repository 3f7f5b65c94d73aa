// reflow_status and reflow_cancel: the task store as ordinary tools, for hosts that speak no task
// protocol (and time out on long calls). Same store, same ownership rule: another principal's task
// reads as no task at all.
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { TaskStore, TaskView } from '@reflow/mcp-tasks';
import { z } from 'zod';
import { cachedJsonSchema } from './cached-json-schema.ts';
import { taskStatusSchema } from './reflow-schemas.ts';

const taskIdArgs = cachedJsonSchema(
  z.object({ taskId: z.string().min(1).max(200).describe('The task id reflow_month answered with (tsk_…)') }).strict(),
);

const STATUS_DESCRIPTION =
  'Check on a reflow started with reflow_month {background:true}. While status is "working", wait about ' +
  'pollIntervalMs and call again; when "completed", `result` holds the reflow result (what moved, what could not ' +
  'and why); "failed" carries `error`; "cancelled" means nothing was moved.';
const CANCEL_DESCRIPTION =
  'Cancel a reflow started with reflow_month {background:true}. A cancelled reflow moves nothing. A task that ' +
  'already finished keeps its outcome.';

export function registerTaskStatusTools(
  mcp: McpServer,
  store: TaskStore,
  principalOf: (ctx: ServerContext) => string,
): void {
  mcp.registerTool(
    'reflow_status',
    {
      title: 'Reflow task status',
      description: STATUS_DESCRIPTION,
      inputSchema: taskIdArgs,
      outputSchema: taskStatusSchema,
      annotations: { readOnlyHint: true },
    },
    async ({ taskId }, ctx) => {
      const task = await store.get(taskId, principalOf(ctx));
      if (!task) return notFound(taskId);
      return { content: [{ type: 'text', text: describe(task) }], structuredContent: statusOf(task) };
    },
  );
  mcp.registerTool(
    'reflow_cancel',
    {
      title: 'Cancel a reflow task',
      description: CANCEL_DESCRIPTION,
      inputSchema: taskIdArgs,
      outputSchema: taskStatusSchema,
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    async ({ taskId }, ctx) => {
      const principal = principalOf(ctx);
      const before = await store.get(taskId, principal);
      if (!before || !(await store.cancel(taskId, principal))) return notFound(taskId);
      const after = (await store.get(taskId, principal)) ?? before;
      const text =
        after.status === 'cancelled' && before.status !== 'cancelled'
          ? `Cancelled reflow task ${taskId}; nothing was moved.`
          : `Reflow task ${taskId} had already ended ${after.status}; cancelling changed nothing.`;
      return { content: [{ type: 'text', text }], structuredContent: statusOf(after) };
    },
  );
}

function statusOf(task: TaskView): z.infer<typeof taskStatusSchema> {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ...(task.pollIntervalMs !== undefined ? { pollIntervalMs: task.pollIntervalMs } : {}),
    ...(task.status === 'completed' && task.result ? { result: task.result.structuredContent as never } : {}),
    ...(task.status === 'failed' && task.error
      ? { error: { code: task.error.code, message: task.error.message } }
      : {}),
  };
}

function describe(task: TaskView): string {
  switch (task.status) {
    case 'completed': {
      const text = (task.result?.content as { type: string; text?: string }[] | undefined)?.find(
        (c) => c.type === 'text',
      )?.text;
      return `Reflow task ${task.taskId} completed.\n${text ?? ''}`.trim();
    }
    case 'failed':
      return `Reflow task ${task.taskId} failed: ${task.error?.message ?? task.statusMessage ?? 'no reason given'}`;
    case 'cancelled':
      return `Reflow task ${task.taskId} was cancelled; nothing was moved.`;
    default: {
      const wait = Math.max(1, Math.round((task.pollIntervalMs ?? 1000) / 1000));
      return `Reflow task ${task.taskId} is still ${task.status}: ${task.statusMessage ?? ''}. Call reflow_status again in about ${wait} s.`;
    }
  }
}

const notFound = (taskId: string) => ({
  content: [{ type: 'text' as const, text: `No reflow task ${taskId}: unknown, expired, or started by someone else.` }],
  isError: true,
});
