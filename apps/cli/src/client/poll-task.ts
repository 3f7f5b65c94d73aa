import { setTimeout as sleep } from 'node:timers/promises';
import { McpError, type McpClient } from '../mcp-client.ts';
import { isSettled, type WireTask } from './wire-task.ts';

export type PollOutcome =
  { kind: 'task'; task: WireTask } | { kind: 'expired'; message: string } | { kind: 'unreachable'; error: Error };

export interface PollOptions {
  /** The interval the handle (or the last tasks/get) asked for; re-read from every answer. */
  pollIntervalMs: number;
  onUpdate?(task: WireTask): void;
  signal?: AbortSignal;
  /** Failed polls in a row (network, 5xx) before giving up; the task lives on and can be resumed. */
  maxConsecutiveFailures?: number;
}

/**
 * Polls tasks/get until the task settles or asks for input. Sleeps the server's pollIntervalMs
 * before every poll, taking the figure from each answer: the server may ask for less traffic
 * under load.
 */
export async function pollTask(client: McpClient, taskId: string, options: PollOptions): Promise<PollOutcome> {
  let interval = options.pollIntervalMs;
  let failures = 0;
  for (;;) {
    await sleep(interval, undefined, { signal: options.signal });
    let task: WireTask;
    try {
      task = await client.request<WireTask>('tasks/get', { taskId });
    } catch (error) {
      // Only the owner hears "Task has expired"; "Task not found" may be a wrong token or URL, so
      // the handle is kept (not marked expired) and the error is reported as it is.
      if (error instanceof McpError && error.code === -32602 && /expired/i.test(error.message))
        return { kind: 'expired', message: error.message };
      if (error instanceof McpError) throw error;
      if (++failures >= (options.maxConsecutiveFailures ?? 5)) return { kind: 'unreachable', error: error as Error };
      continue;
    }
    failures = 0;
    options.onUpdate?.(task);
    if (isSettled(task.status) || task.status === 'input_required') return { kind: 'task', task };
    if (Number.isInteger(task.pollIntervalMs) && task.pollIntervalMs! > 0) interval = task.pollIntervalMs!;
  }
}
