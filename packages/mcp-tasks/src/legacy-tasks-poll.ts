import { classifyInboundRequest, isJsonContentType } from '@modelcontextprotocol/server';
import { LEGACY_TASKS_PAGE_SIZE, type LegacyTaskStore } from './legacy-tasks.ts';
import { legacyTask } from './legacy-wire.ts';

/** The one 2025-era revision that has the task API; other versions go the SDK's way. */
export const LEGACY_POLL_REVISION = '2025-11-25';
const MAX_TASK_ID_LENGTH = 200;
const MAX_CURSOR_LENGTH = 500;
const REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);

export interface LegacyPollRequest {
  /** The parsed JSON body. */
  body: unknown;
  headers: {
    contentType?: string;
    accept?: string;
    protocolVersion?: string;
    method?: string;
    name?: string;
    sessionId?: string;
  };
}

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

/** What the SDK's stateless WebStandardStreamableHTTPServerTransport answers a request with (no session, no event store). */
const SSE_HEADERS = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
});

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
  const { body, headers } = request;
  // A 2025-era client sends neither the 2026 routing headers nor, here (stateless), a session id.
  if (headers.protocolVersion !== LEGACY_POLL_REVISION) return undefined;
  if (headers.method !== undefined || headers.name !== undefined || headers.sessionId !== undefined) return undefined;
  if (!isJsonContentType(headers.contentType ?? null)) return undefined;
  if (!headers.accept?.includes('application/json') || !headers.accept.includes('text/event-stream')) return undefined;
  if (!isPlainObject(body) || body.jsonrpc !== '2.0') return undefined;
  // Exactly a request's members: anything beside them is for the SDK to judge.
  if (!Object.keys(body).every((key) => REQUEST_MEMBERS.has(key))) return undefined;
  const id = body.id;
  // Only ids no JSON-RPC reader can disagree on: strings and integers that round-trip exactly.
  if (!(typeof id === 'string' || Number.isSafeInteger(id))) return undefined;
  const poll = pollOf(body, caller.listable);
  if (!poll || !servedAsLegacy(body)) return undefined;

  const result = poll.method === 'tasks/get' ? await taskOf(poll.taskId, caller) : await pageOf(poll.cursor, caller);
  if (result === undefined) return undefined;
  // The member order of the SDK's JSON-RPC response: result, jsonrpc, id.
  const message = JSON.stringify({ result, jsonrpc: '2.0', id });
  return { method: poll.method, status: 200, headers: SSE_HEADERS, body: `event: message\ndata: ${message}\n\n` };
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

/**
 * Whether the SDK's own classifier routes this request to the 2025 era, which it serves statelessly.
 * After the checks above (the 2025-11-25 header, exactly a request's members, no `_meta` in params)
 * its verdict depends on the method alone: it is remembered per method, which saves the schema
 * validations of a classification on every poll.
 */
const verdicts = new Map<unknown, boolean>();

function servedAsLegacy(body: Record<string, unknown>): boolean {
  let served = verdicts.get(body.method);
  if (served === undefined) {
    const route = classifyInboundRequest({ httpMethod: 'POST', protocolVersionHeader: LEGACY_POLL_REVISION, body });
    served = route.kind === 'legacy' && route.reason === 'no-claim';
    verdicts.set(body.method, served);
  }
  return served;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
