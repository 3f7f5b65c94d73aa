import { HttpError, McpError } from '../mcp-http-client.ts';
import { askOnTerminal } from '../client/ask-on-terminal.ts';
import { EXIT, type ExitCode } from '../client/exit-codes.ts';
import { reportInputRequired, reportResult } from '../client/report-outcome.ts';
import {
  connect,
  describeTarget,
  savedTarget,
  targetOf,
  type ConnectionOptions,
  type ServerTarget,
} from '../client/server-target.ts';
import { StateFile, stateFilePath, type SavedTask } from '../client/state-file.ts';
import { waitForTask } from '../client/wait-for-task.ts';
import type { CallAnswer } from '../client/wire-task.ts';
import { ServerExitedError, type McpClient } from '../mcp-client.ts';

export interface CallOptions extends ConnectionOptions {
  month: string;
  offline: string[];
  from?: string;
  to?: string;
  dryRun?: boolean;
  /** Ask on the terminal before the moves are applied (reflow_month confirm: true). */
  confirm?: boolean;
}

/**
 * `reflow call`: calls reflow_month as a client that declares the Tasks extension. A task handle is
 * written to the state file before waiting starts, so a killed client loses nothing.
 */
export async function runCall(options: CallOptions): Promise<ExitCode> {
  const args = {
    month: options.month,
    offline_rooms: options.offline
      .flatMap((r) => r.split(','))
      .map((r) => r.trim())
      .filter(Boolean),
    ...(options.from ? { from: options.from } : {}),
    ...(options.to ? { to: options.to } : {}),
    ...(options.dryRun ? { dry_run: true } : {}),
    ...(options.confirm ? { confirm: true } : {}),
  };
  let target: ServerTarget;
  let client: McpClient;
  try {
    target = await targetOf(options);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return EXIT.error;
  }
  try {
    // --confirm declares elicitation: the server asks its approval question only of clients that can answer.
    client = await connect(target, options, { elicitation: options.confirm });
  } catch (error) {
    return reportCallError(error, target);
  }
  try {
    return await callAndWait(client, target, args, options);
  } finally {
    await client.close();
  }
}

async function callAndWait(
  client: McpClient,
  target: ServerTarget,
  args: Record<string, unknown>,
  options: CallOptions,
): Promise<ExitCode> {
  let answer: CallAnswer;
  try {
    answer = await client.request<CallAnswer>('tools/call', { name: 'reflow_month', arguments: args });
  } catch (error) {
    return reportCallError(error, target);
  }
  if (answer.resultType === 'input_required') return reportInputRequired(answer.inputRequests, options);
  if (answer.resultType !== 'task') return reportResult(answer, options);

  const state = new StateFile(stateFilePath(options.stateFile));
  const saved: SavedTask = {
    taskId: answer.taskId,
    ...savedTarget(target),
    tool: 'reflow_month',
    arguments: args,
    ttlMs: answer.ttlMs,
    pollIntervalMs: answer.pollIntervalMs ?? 1000,
    createdAt: answer.createdAt,
    status: answer.status,
    ...(answer.statusMessage ? { statusMessage: answer.statusMessage } : {}),
    updatedAt: new Date().toISOString(),
  };
  state.upsert(saved);
  process.stderr.write(`Task ${saved.taskId} (saved to ${state.path}; poll every ${saved.pollIntervalMs} ms)\n`);
  return waitForTask(client, saved, state, options, options.confirm ? askOnTerminal : undefined);
}

/** A call that never produced a task: say why, plainly. */
export function reportCallError(error: unknown, target: ServerTarget): ExitCode {
  const url = describeTarget(target);
  if (error instanceof McpError)
    process.stderr.write(`The server refused the call: ${error.message} (${error.code})\n`);
  else if (error instanceof HttpError) process.stderr.write(`The server at ${url} answered ${error.message}\n`);
  else if (error instanceof ServerExitedError) process.stderr.write(`${url}: ${error.message}\n`);
  else
    process.stderr.write(
      `Could not reach ${url}: ${(error as Error).cause ? String((error as Error & { cause: { message?: string } }).cause.message ?? (error as Error).cause) : (error as Error).message}\n`,
    );
  return EXIT.error;
}
