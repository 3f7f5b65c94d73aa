import { McpError } from '../mcp-http-client.ts';
import { EXIT, type ExitCode } from '../client/exit-codes.ts';
import { reportExpired } from '../client/report-outcome.ts';
import { StateFile, stateFilePath } from '../client/state-file.ts';
import type { WireTask } from '../client/wire-task.ts';
import { clientFor, mcpEndpoint, reportCallError, serverUrl, type ConnectionOptions } from './call.ts';

/** `reflow cancel TASK_ID`: asks the server to cancel; a task already finished keeps its outcome. */
export async function runCancel(taskId: string, options: ConnectionOptions): Promise<ExitCode> {
  const state = new StateFile(stateFilePath(options.stateFile));
  // eslint-disable-next-line unicorn/no-array-callback-reference -- StateFile.find looks a task up by id; it takes no callback
  const url = options.url ? mcpEndpoint(options.url) : (state.find(taskId)?.url ?? serverUrl(options));
  const client = clientFor(url, options);
  let task: WireTask;
  try {
    await client.request('tasks/cancel', { taskId });
    task = await client.request<WireTask>('tasks/get', { taskId });
  } catch (error) {
    if (error instanceof McpError && error.code === -32602) {
      state.mark(taskId, 'expired');
      return reportExpired(taskId, error.message, options);
    }
    return reportCallError(error, url);
  }
  state.mark(taskId, task.status, task.statusMessage);
  if (options.json)
    console.log(JSON.stringify({ taskId, status: task.status, statusMessage: task.statusMessage ?? null }));
  else if (task.status === 'cancelled')
    console.log(`Task ${taskId} cancelled; nothing it would have moved was written.`);
  else console.log(`Task ${taskId} had already ended ${task.status}; cancelling changed nothing.`);
  return EXIT.completed;
}
