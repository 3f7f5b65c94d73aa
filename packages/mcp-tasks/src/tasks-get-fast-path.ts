import { classifyInboundRequest, isJsonContentType } from '@modelcontextprotocol/server';
import type { TaskView } from './task-store.ts';
import { declaresTasks, getTaskResult } from './wire.ts';

/** The revisions whose tasks/get this answers; anything else goes the SDK's way. */
const SERVED_REVISIONS = new Set(['2026-07-28']);
const MAX_TASK_ID_LENGTH = 200;
const MAX_REMEMBERED_ENVELOPES = 1_000;
/** jsonrpc, id, method, params. */
const REQUEST_MEMBERS = 4;

export interface TasksGetRequest {
  /** The parsed JSON body. */
  body: unknown;
  headers: { contentType?: string; accept?: string; protocolVersion?: string; method?: string; name?: string };
}

/** The server's name and version, which the SDK stamps on every 2026-07-28 result's _meta. */
export interface ServerInfo {
  name: string;
  version: string;
}

const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';

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
  const { body, headers } = request;
  if (headers.method?.trim() !== 'tasks/get' || headers.protocolVersion === undefined) return undefined;
  if (!isJsonContentType(headers.contentType ?? null)) return undefined;
  if (!headers.accept?.includes('application/json') || !headers.accept.includes('text/event-stream')) return undefined;
  if (!isPlainObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tasks/get' || !isPlainObject(body.params))
    return undefined;
  // Exactly a request's members: anything beside them (an extra member, `result` or `error` beside
  // `method`) makes it something the SDK must judge. The verdict cached below covers only the envelope.
  if (Object.keys(body).length !== REQUEST_MEMBERS) return undefined;
  const id = body.id;
  // Only ids no JSON-RPC reader can disagree on: strings and integers that round-trip exactly.
  if (!(typeof id === 'string' || Number.isSafeInteger(id))) return undefined;
  const { taskId, _meta: meta, ...otherParams } = body.params;
  if (
    typeof taskId !== 'string' ||
    taskId.length === 0 ||
    taskId.length > MAX_TASK_ID_LENGTH ||
    Object.keys(otherParams).length > 0
  )
    return undefined;
  // The Mcp-Name header must name this task verbatim (an encoded or mismatched one is the SDK's to judge).
  if (headers.name?.trim() !== taskId) return undefined;
  if (!isPlainObject(meta) || !declaresTasks(meta) || !envelopeServed(body, headers, meta)) return undefined;
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

/**
 * Whether the SDK's own classifier routes this request to the modern era we serve. Its verdict
 * depends only on the headers and the envelope (the rest of the request was checked above), and a
 * poller repeats both on every poll: the verdict is remembered per (headers, envelope), which
 * saves a schema validation per poll.
 */
const verdicts = new Map<string, boolean>();

function envelopeServed(
  body: Record<string, unknown>,
  headers: TasksGetRequest['headers'],
  meta: Record<string, unknown>,
): boolean {
  const key = `${headers.protocolVersion}\n${headers.method}\n${JSON.stringify(meta)}`;
  let served = verdicts.get(key);
  if (served === undefined) {
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: headers.protocolVersion,
      mcpMethodHeader: headers.method,
      body,
    });
    served =
      route.kind === 'modern' &&
      route.messageKind === 'request' &&
      SERVED_REVISIONS.has(route.classification.revision ?? '');
    if (verdicts.size >= MAX_REMEMBERED_ENVELOPES) verdicts.delete(verdicts.keys().next().value!);
    verdicts.set(key, served);
  }
  return served;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
