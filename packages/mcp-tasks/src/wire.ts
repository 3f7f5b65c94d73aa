import type { TaskView } from './task-store.ts';

export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';

/** Whether this request's per-request capabilities declare the Tasks extension (never inferred from earlier requests). */
export function declaresTasks(envelope: Record<string, unknown> | undefined): boolean {
  const caps = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined;
  const entry = caps?.extensions?.[TASKS_EXTENSION_ID];
  return entry !== null && typeof entry === 'object' && !Array.isArray(entry);
}

/** The client capabilities this request declared in its envelope; {} when it declared none. */
export function clientCapabilities(envelope: Record<string, unknown> | undefined): Record<string, unknown> {
  const caps = envelope?.[CLIENT_CAPABILITIES_META_KEY];
  return caps !== null && typeof caps === 'object' && !Array.isArray(caps) ? (caps as Record<string, unknown>) : {};
}

const base = (t: TaskView) => ({
  taskId: t.taskId,
  status: t.status,
  ...(t.statusMessage !== undefined ? { statusMessage: t.statusMessage } : {}),
  createdAt: t.createdAt,
  lastUpdatedAt: t.lastUpdatedAt,
  ttlMs: t.ttlMs,
  ...(t.pollIntervalMs !== undefined ? { pollIntervalMs: t.pollIntervalMs } : {}),
});

/** The flat CreateTaskResult a tools/call answers with (no nested `task` object). */
export function createTaskResult(t: TaskView) {
  return { resultType: 'task' as const, ...base(t) };
}

/** The tasks/get answer: the task flat, with the result, error or input requests its status carries. */
export function getTaskResult(t: TaskView) {
  return {
    resultType: 'complete' as const,
    ...base(t),
    // The inlined result is exactly what tools/call would have answered, discriminator included.
    ...(t.status === 'completed' && t.result ? { result: { resultType: 'complete', ...t.result } } : {}),
    ...(t.status === 'failed' && t.error ? { error: t.error } : {}),
    ...(t.status === 'input_required' ? { inputRequests: t.inputRequests ?? {} } : {}),
  };
}
