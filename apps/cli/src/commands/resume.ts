import { askOnTerminal } from '../client/ask-on-terminal.ts';
import { EXIT, type ExitCode } from '../client/exit-codes.ts';
import {
  connect,
  describeTarget,
  retarget,
  savedTarget,
  targetOf,
  targetOfSaved,
  type ConnectionOptions,
  type ServerTarget,
} from '../client/server-target.ts';
import { isUnfinished, StateFile, stateFilePath, type SavedTask } from '../client/state-file.ts';
import { waitForTask } from '../client/wait-for-task.ts';
import { reportCallError } from './call.ts';

/**
 * `reflow resume [TASK_ID]`: finishes waiting for tasks a killed or interrupted client left in the
 * state file (all unfinished ones, or one), where each was created: at its server's URL, or over
 * stdio on its store. `--url` or `--stdio` overrides the saved target.
 */
export async function runResume(taskId: string | undefined, options: ConnectionOptions): Promise<ExitCode> {
  const state = new StateFile(stateFilePath(options.stateFile));
  let toResume: SavedTask[];
  try {
    toResume = taskId ? [await savedOrAdopted(state, taskId, options)] : state.read().filter(isUnfinished);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return EXIT.error;
  }
  if (toResume.length === 0) {
    if (!options.json) process.stderr.write(`No unfinished tasks in ${state.path}\n`);
    return EXIT.completed;
  }
  let worst: ExitCode = EXIT.completed;
  for (const found of toResume) {
    const code = await resumeOne(found, state, options);
    worst = Math.max(worst, code) as ExitCode;
    if (code === EXIT.interrupted) break;
  }
  return worst;
}

async function resumeOne(found: SavedTask, state: StateFile, options: ConnectionOptions): Promise<ExitCode> {
  let target: ServerTarget;
  try {
    target = await targetOfSaved(found, options);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return EXIT.error;
  }
  const saved = retarget(found, target);
  if (saved !== found) state.upsert(saved);
  process.stderr.write(`Resuming ${saved.taskId} at ${describeTarget(target)}\n`);
  let client;
  try {
    client = await connect(target, options);
  } catch (error) {
    return reportCallError(error, target);
  }
  try {
    // On a terminal, a task waiting for an answer (e.g. a --confirm reflow) is asked here too.
    return await waitForTask(client, saved, state, options, process.stdin.isTTY ? askOnTerminal : undefined);
  } finally {
    await client.close();
  }
}

/** The task's saved handle; a task id from elsewhere (another machine, a log) is followed where the command line points and remembered from now on. */
async function savedOrAdopted(state: StateFile, taskId: string, options: ConnectionOptions): Promise<SavedTask> {
  // eslint-disable-next-line unicorn/no-array-callback-reference -- StateFile.find looks a task up by id; it takes no callback
  const saved = state.find(taskId);
  if (saved) return saved;
  const now = new Date().toISOString();
  const adopted: SavedTask = {
    taskId,
    ...savedTarget(await targetOf(options)),
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
