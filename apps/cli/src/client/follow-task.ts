import { pollTask, type PollOptions, type PollOutcome } from './poll-task.ts';
import type { McpClient, TaskListen } from '../mcp-client.ts';
import { isSettled, type WireTask } from './wire-task.ts';

export interface FollowOptions extends PollOptions {
  /** Told when the client stops listening and polls instead (not acknowledged, or the stream dropped). */
  onPolling?(why: string): void;
}

/**
 * Waits for a task to settle or ask for input: by listening for its status notifications when the
 * server acknowledges them (one request instead of one per poll interval), and by polling tasks/get
 * when it does not, or when the stream drops before the task got there.
 */
export async function followTask(client: McpClient, taskId: string, options: FollowOptions): Promise<PollOutcome> {
  if (client.options.listen === false) return pollTask(client, taskId, options);
  const stop = new AbortController();
  const stopListening = () => stop.abort(new Error('stopped'));
  options.signal?.addEventListener('abort', stopListening, { once: true });
  try {
    let reached: WireTask | undefined;
    let wake: (() => void) | undefined;
    const arrived = new Promise<void>((resolve) => (wake = resolve));
    let listening: TaskListen;
    try {
      listening = await client.listenTasks(
        [taskId],
        (params) => {
          const task = params as unknown as WireTask;
          if (task.taskId !== taskId || reached) return;
          options.onUpdate?.(task);
          if (isSettled(task.status) || task.status === 'input_required') {
            reached = task;
            wake?.();
          }
        },
        stop.signal,
      );
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      options.onPolling?.(`not listening (${(error as Error).message})`);
      return await pollTask(client, taskId, options);
    }
    if (!listening.taskIds.includes(taskId)) {
      options.onPolling?.('the server did not acknowledge the task');
      return await pollTask(client, taskId, options);
    }
    await Promise.race([arrived, listening.ended]);
    if (reached) return { kind: 'task', task: reached };
    if (options.signal?.aborted) throw options.signal.reason;
    options.onPolling?.('the notification stream ended');
    return await pollTask(client, taskId, { ...options, pollIntervalMs: 0 });
  } finally {
    stopListening();
    options.signal?.removeEventListener('abort', stopListening);
  }
}
