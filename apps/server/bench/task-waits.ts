// Starting a reflow and following it to the end, as a polling client does, for the bench's set-up.
import { setTimeout as sleep } from 'node:timers/promises';
import { mcpCall } from '../harness/mcp-wire.ts';
import type { ReflowArgs } from './reflow-requests.ts';

/** tools/call reflow_month from a client that declares the tasks extension: the CreateTaskResult. */
export async function createReflowTask(
  mcpUrl: string,
  args: ReflowArgs,
): Promise<{ taskId: string; pollIntervalMs: number }> {
  const created = await mcpCall(mcpUrl, 'tools/call', { name: 'reflow_month', arguments: args }, 'reflow_month');
  if (created.resultType !== 'task')
    throw new Error(`expected a task handle, got ${JSON.stringify(created).slice(0, 300)}`);
  return created;
}

/** Polls tasks/get every `everyMs` until the task is terminal, bounded by `timeoutMs`. */
export async function waitTerminal(mcpUrl: string, taskId: string, everyMs = 100, timeoutMs = 120_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await mcpCall(mcpUrl, 'tasks/get', { taskId }, taskId);
    if (['completed', 'failed', 'cancelled'].includes(task.status)) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task.status} after ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}
