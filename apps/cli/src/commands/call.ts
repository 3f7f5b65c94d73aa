import { HttpError, McpError, McpHttpClient } from '../mcp-http-client.ts';
import { askOnTerminal } from '../client/ask-on-terminal.ts';
import { EXIT, type ExitCode } from '../client/exit-codes.ts';
import { reportInputRequired, reportResult } from '../client/report-outcome.ts';
import { StateFile, stateFilePath, type SavedTask } from '../client/state-file.ts';
import { waitForTask } from '../client/wait-for-task.ts';
import type { CallAnswer } from '../client/wire-task.ts';

export interface ConnectionOptions {
  url?: string;
  token?: string;
  stateFile?: string;
  json?: boolean;
  /** Wait by polling only (no subscriptions/listen). */
  poll?: boolean;
}

export interface CallOptions extends ConnectionOptions {
  month: string;
  offline: string[];
  from?: string;
  to?: string;
  dryRun?: boolean;
  /** Ask on the terminal before the moves are applied (reflow_month confirm: true). */
  confirm?: boolean;
}

export const DEFAULT_URL = 'http://127.0.0.1:3000/mcp';
export const serverUrl = (o: ConnectionOptions) => mcpEndpoint(o.url ?? process.env.REFLOW_URL ?? DEFAULT_URL);

/** `reflow tasks` takes the server's base URL and these take its /mcp URL: either works for both. */
export function mcpEndpoint(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw; // fetch names the bad URL
  }
  if (url.pathname === '/' || /^\/ui\/?$/.test(url.pathname)) url.pathname = '/mcp';
  return url.toString();
}
export const tokenOf = (o: ConnectionOptions) => o.token ?? process.env.REFLOW_TOKEN;
export const clientFor = (url: string, o: ConnectionOptions) =>
  new McpHttpClient({
    url,
    token: tokenOf(o),
    tasks: true,
    listen: !o.poll,
    clientInfo: { name: 'reflow-cli', version: '0.1.0' },
  });

/**
 * `reflow call`: calls reflow_month as a client that declares the Tasks extension. A task handle is
 * written to the state file before waiting starts, so a killed client loses nothing.
 */
export async function runCall(options: CallOptions): Promise<ExitCode> {
  const url = serverUrl(options);
  // --confirm declares elicitation: the server asks its approval question only of clients that can answer.
  const client = options.confirm
    ? new McpHttpClient({ ...clientFor(url, options).options, elicitation: true })
    : clientFor(url, options);
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
  let answer: CallAnswer;
  try {
    answer = await client.request<CallAnswer>('tools/call', { name: 'reflow_month', arguments: args });
  } catch (error) {
    return reportCallError(error, url);
  }
  if (answer.resultType === 'input_required') return reportInputRequired(answer.inputRequests, options);
  if (answer.resultType !== 'task') return reportResult(answer, options);

  const state = new StateFile(stateFilePath(options.stateFile));
  const saved: SavedTask = {
    taskId: answer.taskId,
    url,
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
export function reportCallError(error: unknown, url: string): ExitCode {
  if (error instanceof McpError)
    process.stderr.write(`The server refused the call: ${error.message} (${error.code})\n`);
  else if (error instanceof HttpError) process.stderr.write(`The server at ${url} answered ${error.message}\n`);
  else
    process.stderr.write(
      `Could not reach ${url}: ${(error as Error).cause ? String((error as Error & { cause: { message?: string } }).cause.message ?? (error as Error).cause) : (error as Error).message}\n`,
    );
  return EXIT.error;
}
