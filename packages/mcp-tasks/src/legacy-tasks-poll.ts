import { LEGACY_TASKS_PAGE_SIZE, type LegacyTaskStore } from './legacy-tasks.ts';
import { legacyTask } from './legacy-wire.ts';
import {
  isPlainObject,
  LEGACY_SSE_HEADERS,
  legacySseAnswer,
  plainLegacyRequest,
  servedAsLegacy,
  type LegacyDirectRequest,
} from './legacy-request.ts';

const MAX_TASK_ID_LENGTH = 200;
const MAX_CURSOR_LENGTH = 500;

export type LegacyPollRequest = LegacyDirectRequest;

export interface LegacyPollCaller {
  /** The principal the SDK path's LegacyTasks would use for this request. */
  principal: string;
  store: LegacyTaskStore;
  /** Whether tasks/list is declared and served (LegacyTasksOptions.identifiesRequestors). */
  listable: boolean;
  pageSize?: number;
}

export interface LegacyPollAnswer {
  method: 'tasks/get' | 'tasks/list';
  status: 200;
  /** The headers the SDK's stateless 2025-era transport sends with its answer. */
  headers: Readonly<Record<string, string>>;
  /** The SSE stream the SDK would have written: one `message` event. */
  body: string;
}

/**
 * The 2025-11-25 poll (tasks/get, and tasks/list where it is served), answered without building a
 * per-request server and transport: a well-formed request from a 2025-era client gets the very
 * answer LegacyTasks gives through the SDK (the same legacyTask over the same store, in the SSE
 * event the SDK's transport writes). Anything else — any doubt about the request, an unknown or
 * expired task, a bad cursor, an error of any kind — returns undefined and goes through the SDK,
 * which owns every error answer.
 */
export async function answerLegacyTaskPoll(
  request: LegacyPollRequest,
  caller: LegacyPollCaller,
): Promise<LegacyPollAnswer | undefined> {
  const plain = plainLegacyRequest(request);
  if (!plain) return undefined;
  const { body, id } = plain;
  const poll = pollOf(body, caller.listable);
  if (!poll || !servedAsLegacy(body)) return undefined;

  const result = poll.method === 'tasks/get' ? await taskOf(poll.taskId, caller) : await pageOf(poll.cursor, caller);
  if (result === undefined) return undefined;
  return { method: poll.method, status: 200, headers: LEGACY_SSE_HEADERS, body: legacySseAnswer(result, id) };
}

type Poll = { method: 'tasks/get'; taskId: string } | { method: 'tasks/list'; cursor?: string };

/** The poll, when the params are exactly what it takes: a taskId; an optional cursor (or no params) for tasks/list. */
function pollOf(body: Record<string, unknown>, listable: boolean): Poll | undefined {
  const params = body.params;
  if (body.method === 'tasks/get') {
    if (!isPlainObject(params)) return undefined;
    const { taskId, ...others } = params;
    if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > MAX_TASK_ID_LENGTH) return undefined;
    return Object.keys(others).length === 0 ? { method: 'tasks/get', taskId } : undefined;
  }
  // Where requestors are not told apart, tasks/list is not served: the SDK says so.
  if (body.method !== 'tasks/list' || !listable) return undefined;
  if (params === undefined) return { method: 'tasks/list' };
  if (!isPlainObject(params)) return undefined;
  const { cursor, ...others } = params;
  if (Object.keys(others).length > 0) return undefined;
  if (cursor === undefined) return { method: 'tasks/list' };
  return typeof cursor === 'string' && cursor.length <= MAX_CURSOR_LENGTH
    ? { method: 'tasks/list', cursor }
    : undefined;
}

async function taskOf(taskId: string, caller: LegacyPollCaller) {
  // The poll is the hottest path: one lookup (one store read), after every check that needs none.
  const task = await caller.store.get(taskId, caller.principal);
  return task && legacyTask(task);
}

async function pageOf(cursor: string | undefined, caller: LegacyPollCaller) {
  let page: Awaited<ReturnType<LegacyTaskStore['list']>>;
  try {
    page = await caller.store.list(caller.principal, { cursor, limit: caller.pageSize ?? LEGACY_TASKS_PAGE_SIZE });
  } catch {
    // LegacyTasks answers a listing that throws as an invalid cursor: the SDK path gives that answer.
    return undefined;
  }
  if (!page) return undefined;
  return {
    tasks: page.tasks.map((task) => legacyTask(task)),
    ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
  };
}
