import { ProtocolError } from '@modelcontextprotocol/server';
import { legacyCreateTaskResult } from './legacy-wire.ts';
import {
  isPlainObject,
  LEGACY_SSE_HEADERS,
  legacySseAnswer,
  legacySseError,
  plainLegacyRequest,
  servedAsLegacy,
  type LegacyDirectRequest,
} from './legacy-request.ts';
import { legacyStartError } from './start-errors.ts';
import { startTaskDirectly, type FinalStartError } from './start-task-directly.ts';
import type { TaskView } from './task-store.ts';
import type { TaskToolDefinition } from './task-tools.ts';

export interface LegacyCallCaller {
  /** The principal the SDK path's LegacyTasks would use for this request. */
  principal: string;
  /** The request's hang-up signal, for the call's handler. */
  signal: AbortSignal;
}

export interface LegacyCallAnswer {
  status: 200;
  /** The headers the SDK's stateless 2025-era transport sends with its answer. */
  headers: Readonly<Record<string, string>>;
  /** The SSE stream the SDK would have written: one `message` event. */
  body: string;
}

/**
 * The 2025-11-25 create, answered without building a per-request server and transport: a plain
 * tools/call with `params.task` of a declared task tool, with arguments its schema accepts, gets the
 * CreateTaskResult LegacyTasks gives through the SDK (the same `start` with the same ToolCall, the
 * same legacyCreateTaskResult, in the SSE event the SDK's transport writes). `params.task.ttl` is
 * accepted as the SDK accepts it and, as there, not honoured: the task keeps the engine's ttl.
 * Everything else returns undefined and goes through the SDK: an unknown tool, arguments the schema
 * refuses, a call only a 2026-07-28 task can carry, a `_meta` (a progress token, an envelope), and
 * an error `start` throws that `isFinal` does not accept — it has then written nothing, or the task
 * it wrote is found again by the SDK path's identical call, through the engine's dedupe. An error
 * `isFinal` accepts is not run again: it is answered as LegacyTasks answers it (refusalOrThrow: a
 * refusal's text as -32602, anything else a generic -32603, the error going to the request's listener).
 */
export async function answerLegacyTaskCall(
  request: LegacyDirectRequest,
  toolNamed: (name: string) => TaskToolDefinition<any> | undefined,
  caller: LegacyCallCaller,
  isFinal?: FinalStartError,
): Promise<LegacyCallAnswer | undefined> {
  const plain = plainLegacyRequest(request);
  if (!plain || plain.body.method !== 'tools/call' || !isPlainObject(plain.body.params)) return undefined;
  const { body, id } = plain;
  const { name, arguments: args, task, ...otherParams } = body.params as Record<string, unknown>;
  // Exactly name, arguments and task: a `_meta` (progress token, related task, envelope claim) or
  // anything else is the SDK's to judge.
  if (typeof name !== 'string' || Object.keys(otherParams).length > 0) return undefined;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  if (!isTaskMetadata(task) || !servedAsLegacy(body)) return undefined;
  const tool = toolNamed(name);
  if (!tool) return undefined;
  // What LegacyTasks gives the handler: this API has no tasks/update, and no progress is asked for.
  let started: TaskView | undefined;
  try {
    started = await startTaskDirectly(
      tool,
      args,
      { principal: caller.principal, signal: caller.signal, clientCapabilities: {}, canAskForInput: false },
      isFinal,
    );
  } catch (error) {
    return { status: 200, headers: LEGACY_SSE_HEADERS, body: legacySseError(protocolError(name, error), id) };
  }
  if (!started) return undefined;
  const immediate = `Started task ${started.taskId} (${started.statusMessage ?? started.status}); the result follows when it completes.`;
  // The SDK's member order: it reads a tool's answer as a CallToolResult, whose schema puts `_meta`
  // and `content` first and the members it does not know (`task`) after them.
  const { _meta, content, task: created } = legacyCreateTaskResult(started, immediate);
  return { status: 200, headers: LEGACY_SSE_HEADERS, body: legacySseAnswer({ _meta, content, task: created }, id) };
}

/** What LegacyTasks throws for an error of `start`: the JSON-RPC error its caller is answered. */
function protocolError(tool: string, error: unknown): ProtocolError {
  try {
    return legacyStartError(tool, error);
  } catch (thrown) {
    if (thrown instanceof ProtocolError) return thrown;
    throw thrown;
  }
}

/** `params.task` as the SDK's schema takes it, `{ ttl?: number }`, without members it would strip. */
function isTaskMetadata(task: unknown): boolean {
  if (!isPlainObject(task)) return false;
  const { ttl, ...others } = task;
  return Object.keys(others).length === 0 && (ttl === undefined || typeof ttl === 'number');
}
