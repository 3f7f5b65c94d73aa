// The 2025-11-25 task shapes (the `tasks` utility of that revision): a nested `task` in the
// CreateTaskResult, `ttl`/`pollInterval` without units in the names, and the related-task key that
// ties a tasks/result answer to its task.
import type { TaskView } from './task-store.ts';

export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';
/** A host may hand this to the model while the task runs (2025-11-25, provisional). */
export const MODEL_IMMEDIATE_RESPONSE_META_KEY = 'io.modelcontextprotocol/model-immediate-response';

/** The capability a 2025-11-25 server declares in its initialize result. */
export const LEGACY_TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

/**
 * The status 2025-11-25 gives a task: there, a tool call whose result has `isError: true` is
 * `failed` ("For tool calls specifically, this includes cases where the tool call result has
 * isError set to true"), where the SEP-2663 extension keeps it `completed`.
 */
export function legacyStatus(t: TaskView): TaskView['status'] {
  return t.status === 'completed' && t.result?.isError === true ? 'failed' : t.status;
}

/** A Task as 2025-11-25 shows it. */
export function legacyTask(t: TaskView) {
  return {
    taskId: t.taskId,
    status: legacyStatus(t),
    ...(t.statusMessage !== undefined ? { statusMessage: t.statusMessage } : {}),
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttl: t.ttlMs,
    ...(t.pollIntervalMs !== undefined ? { pollInterval: t.pollIntervalMs } : {}),
  };
}

/**
 * The CreateTaskResult, plus a text `content` block (Result allows extra members). The SDK 2.x
 * client decodes every 2025-era tools/call answer as a CallToolResult and refuses one that carries
 * `task` without `content`, so the official clients could not receive the task otherwise; a host
 * that ignores `task` shows the text.
 */
export function legacyCreateTaskResult(t: TaskView, immediateResponse: string) {
  return {
    task: legacyTask(t),
    content: [{ type: 'text' as const, text: immediateResponse }],
    _meta: { [MODEL_IMMEDIATE_RESPONSE_META_KEY]: immediateResponse },
  };
}

/** tasks/result for a completed task: the tool's result, tied to its task. */
export function withRelatedTask(result: Record<string, unknown>, taskId: string) {
  const meta = (result._meta as Record<string, unknown> | undefined) ?? {};
  const { resultType: _, ...rest } = result;
  return { ...rest, _meta: { ...meta, [RELATED_TASK_META_KEY]: { taskId } } };
}
