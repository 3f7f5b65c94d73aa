import type { McpClient } from '../mcp-client.ts';
import { EXIT, type ExitCode } from './exit-codes.ts';
import type { InputAsker } from './ask-on-terminal.ts';
import { followTask } from './follow-task.ts';
import type { PollOutcome } from './poll-task.ts';
import { ProgressLine } from './progress-line.ts';
import { reportExpired, reportTask, type OutputOptions } from './report-outcome.ts';
import type { SavedTask, StateFile } from './state-file.ts';

/**
 * Waits for a task the state file already holds, keeping the file's status in step, and prints how
 * it ended. Ctrl-C stops waiting, not the task: it stays in the state file for `reflow resume`.
 */
export async function waitForTask(
  client: McpClient,
  saved: SavedTask,
  state: StateFile,
  out: OutputOptions,
  ask?: InputAsker,
): Promise<ExitCode> {
  const line = new ProgressLine(`${saved.taskId.slice(0, 12)}…`);
  line.update(saved.statusMessage ?? 'working');
  const stop = new AbortController();
  const onSignal = () => stop.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  try {
    let outcome: PollOutcome;
    for (;;) {
      outcome = await followTask(client, saved.taskId, {
        pollIntervalMs: saved.pollIntervalMs,
        signal: stop.signal,
        onUpdate: (task) => task.status === 'working' && line.update(task.statusMessage),
        onPolling: (why) => line.update(`polling tasks/get: ${why}`),
      });
      // A task asking for input: answer on the terminal when we can, then keep waiting.
      if (!ask || outcome.kind !== 'task' || outcome.task.status !== 'input_required') break;
      line.pause(outcome.task.statusMessage ?? 'waiting for input');
      const answers = await ask(outcome.task.inputRequests ?? {});
      if (!answers) break;
      await client.request('tasks/update', { taskId: saved.taskId, inputResponses: answers });
    }
    if (outcome.kind === 'expired') {
      line.done(false, 'expired');
      state.mark(saved.taskId, 'expired');
      return reportExpired(saved.taskId, outcome.message, out);
    }
    if (outcome.kind === 'unreachable') {
      line.pause(`server unreachable (${outcome.error.message}); resume with: reflow resume ${saved.taskId}`);
      return EXIT.interrupted;
    }
    const task = outcome.task;
    line.done(task.status === 'completed', `${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''}`);
    state.mark(task.taskId, task.status, task.statusMessage);
    return reportTask(task, out);
  } catch (error) {
    if (!stop.signal.aborted) throw error;
    line.pause(`stopped waiting; the task goes on. Resume with: reflow resume ${saved.taskId}`);
    return EXIT.interrupted;
  } finally {
    process.off('SIGINT', onSignal);
  }
}
