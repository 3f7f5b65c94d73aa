import { McpError } from '../mcp-client.ts';
import { EXIT, type ExitCode } from '../client/exit-codes.ts';
import { reportExpired } from '../client/report-outcome.ts';
import {
  connect,
  targetOf,
  targetOfSaved,
  type ConnectionOptions,
  type ServerTarget,
} from '../client/server-target.ts';
import { StateFile, stateFilePath } from '../client/state-file.ts';
import type { WireTask } from '../client/wire-task.ts';
import { reportCallError } from './call.ts';

/** `reflow cancel TASK_ID`: asks the server to cancel (where the task was created, unless told); a task already finished keeps its outcome. */
export async function runCancel(taskId: string, options: ConnectionOptions): Promise<ExitCode> {
  const state = new StateFile(stateFilePath(options.stateFile));
  let target: ServerTarget;
  try {
    // eslint-disable-next-line unicorn/no-array-callback-reference -- StateFile.find looks a task up by id; it takes no callback
    const saved = state.find(taskId);
    target = saved ? await targetOfSaved(saved, options) : await targetOf(options);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return EXIT.error;
  }
  let task: WireTask;
  try {
    const client = await connect(target, options);
    try {
      await client.request('tasks/cancel', { taskId });
      task = await client.request<WireTask>('tasks/get', { taskId });
    } finally {
      await client.close();
    }
  } catch (error) {
    if (error instanceof McpError && error.code === -32602) {
      state.mark(taskId, 'expired');
      return reportExpired(taskId, error.message, options);
    }
    return reportCallError(error, target);
  }
  state.mark(taskId, task.status, task.statusMessage);
  if (options.json)
    console.log(JSON.stringify({ taskId, status: task.status, statusMessage: task.statusMessage ?? null }));
  else if (task.status === 'cancelled')
    console.log(`Task ${taskId} cancelled; nothing it would have moved was written.`);
  else console.log(`Task ${taskId} had already ended ${task.status}; cancelling changed nothing.`);
  return EXIT.completed;
}
