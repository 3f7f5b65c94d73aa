import type { TaskView } from './task-store.ts';
import { plainModernRequest, SERVER_INFO_META_KEY, type DirectRequest, type ServerInfo } from './direct-request.ts';
import { getTaskResult } from './wire.ts';

const MAX_TASK_ID_LENGTH = 200;

export type TasksGetRequest = DirectRequest;

/**
 * The poll, answered without building a per-request server: a well-formed 2026-07-28 tasks/get
 * for a task the caller can see gets the very answer the extension's own tasks/get handler gives
 * (the same getTaskResult over the same store). Everything else — any doubt about the request,
 * an unknown or expired task, an error of any kind — returns undefined and goes through the SDK,
 * which owns every error answer. Resolves with the JSON-RPC response as text.
 */
export async function answerTasksGet(
  request: TasksGetRequest,
  lookup: (taskId: string) => Promise<TaskView | undefined>,
  serverInfo: ServerInfo,
): Promise<string | undefined> {
  const plain = plainModernRequest(request, 'tasks/get');
  if (!plain) return undefined;
  const { id, params, headers } = plain;
  const { taskId, _meta: _, ...otherParams } = params;
  if (
    typeof taskId !== 'string' ||
    taskId.length === 0 ||
    taskId.length > MAX_TASK_ID_LENGTH ||
    Object.keys(otherParams).length > 0
  )
    return undefined;
  // The Mcp-Name header must name this task verbatim (an encoded or mismatched one is the SDK's to judge).
  if (headers.name?.trim() !== taskId) return undefined;
  // The poll is the hottest path: one lookup (one store read), after every check that needs none.
  const task = await lookup(taskId);
  if (!task) return undefined;
  const { result, ...answer } = getTaskResult(task);
  const head = JSON.stringify({
    jsonrpc: '2.0',
    id,
    result: { ...answer, _meta: { [SERVER_INFO_META_KEY]: serverInfo } },
  });
  // A completed task's result (tens of kilobytes) is serialised once, not on every poll: head is `{…{…}}`.
  return result === undefined ? head : `${head.slice(0, -2)},"result":${resultJson(task.result!, result)}}}`;
}

/** The inlined result's JSON, per parsed result object (the task store hands out one shared, frozen object per completed task). */
const resultTexts = new WeakMap<object, string>();

function resultJson(stored: Record<string, unknown>, inlined: Record<string, unknown>): string {
  let text = resultTexts.get(stored);
  if (text === undefined) {
    text = JSON.stringify(inlined);
    resultTexts.set(stored, text);
  }
  return text;
}
