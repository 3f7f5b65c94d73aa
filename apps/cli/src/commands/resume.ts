import { askOnTerminal } from '../client/ask-on-terminal.ts';
import { EXIT, type ExitCode } from '../client/exit-codes.ts';
import { isUnfinished, StateFile, stateFilePath, type SavedTask } from '../client/state-file.ts';
import { waitForTask } from '../client/wait-for-task.ts';
import { clientFor, mcpEndpoint, serverUrl, type ConnectionOptions } from './call.ts';

/**
 * `reflow resume [TASK_ID]`: finishes waiting for tasks a killed or interrupted client left in the
 * state file (all unfinished ones, or one). `--url` overrides the saved server address.
 */
export async function runResume(taskId: string | undefined, options: ConnectionOptions): Promise<ExitCode> {
  const state = new StateFile(stateFilePath(options.stateFile));
  const toResume = taskId ? [savedOrAdopted(state, taskId, options)] : state.read().filter(isUnfinished);
  if (toResume.length === 0) {
    if (!options.json) process.stderr.write(`No unfinished tasks in ${state.path}\n`);
    return EXIT.completed;
  }
  let worst: ExitCode = EXIT.completed;
  for (const saved of toResume) {
    const url = options.url ? mcpEndpoint(options.url) : saved.url;
    if (url !== saved.url) state.upsert({ ...saved, url });
    process.stderr.write(`Resuming ${saved.taskId} at ${url}\n`);
    // On a terminal, a task waiting for an answer (e.g. a --confirm reflow) is asked here too.
    const code = await waitForTask(
      clientFor(url, options),
      { ...saved, url },
      state,
      options,
      process.stdin.isTTY ? askOnTerminal : undefined,
    );
    worst = Math.max(worst, code) as ExitCode;
    if (code === EXIT.interrupted) break;
  }
  return worst;
}

/** The task's saved handle; a task id from elsewhere (another machine, a log) is followed at --url and remembered from now on. */
function savedOrAdopted(state: StateFile, taskId: string, options: ConnectionOptions): SavedTask {
  // eslint-disable-next-line unicorn/no-array-callback-reference -- StateFile.find looks a task up by id; it takes no callback
  const saved = state.find(taskId);
  if (saved) return saved;
  const now = new Date().toISOString();
  const adopted: SavedTask = {
    taskId,
    url: serverUrl(options),
    tool: 'reflow_month',
    arguments: {},
    ttlMs: null,
    pollIntervalMs: 0,
    createdAt: now,
    status: 'working',
    updatedAt: now,
  };
  state.upsert(adopted);
  return adopted;
}
