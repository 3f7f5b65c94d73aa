import { isInputRequiredResult } from '@modelcontextprotocol/server';
import type { TaskView } from './task-store.ts';
import type { TaskToolDefinition, ToolCall } from './task-tools.ts';

/**
 * Whether an error `start` threw would be met again by the SDK path's identical call (store
 * trouble, a server shutting down): the direct path then answers the create once, not twice.
 */
export type FinalStartError = (error: unknown) => boolean;

/**
 * What both direct create paths (2026-07-28 and 2025-11-25) do with the tool: parse the arguments,
 * and start the task when a task may carry them. Undefined for everything the SDK must answer:
 * arguments the schema refuses, a call only a task can carry (it may ask for input in this same
 * call), an InputRequiredResult (nothing was written), and an error `start` throws that `isFinal`
 * does not accept (then it wrote nothing, or the SDK path's identical call finds the task it wrote,
 * through the engine's dedupe). An error `isFinal` accepts is thrown, for the caller to answer.
 */
export async function startTaskDirectly(
  tool: TaskToolDefinition<any>,
  args: Record<string, unknown> | undefined,
  call: Omit<ToolCall, 'reportProgress'>,
  isFinal: FinalStartError = () => false,
): Promise<TaskView | undefined> {
  const parsed = tool.inputSchema.safeParse(args ?? {});
  if (!parsed.success || tool.taskOnly?.(parsed.data)) return undefined;
  let started: Awaited<ReturnType<TaskToolDefinition<unknown>['start']>>;
  try {
    // A create answers at once; only the synchronous path reports progress.
    started = await tool.start(parsed.data, { ...call, reportProgress: async () => {} });
  } catch (error) {
    if (isFinal(error)) throw error;
    return undefined;
  }
  return isInputRequiredResult(started) ? undefined : started;
}
