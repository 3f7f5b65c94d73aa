import {
  isPlainObject,
  plainModernRequest,
  SERVER_INFO_META_KEY,
  type DirectRequest,
  type ServerInfo,
} from './direct-request.ts';
import { refusalMessage, refusalResult } from './start-errors.ts';
import { startTaskDirectly, type FinalStartError } from './start-task-directly.ts';
import type { TaskView } from './task-store.ts';
import type { TaskToolDefinition } from './task-tools.ts';
import { clientCapabilities, createTaskResult } from './wire.ts';

/** What the caller is, for the call's handler: who, and the request's hang-up signal. */
export interface DirectCaller {
  principal: string;
  signal: AbortSignal;
}

/**
 * The create, answered without building a per-request server: a plain 2026-07-28 tools/call of a
 * declared task tool, from a client that declared the Tasks extension, with arguments its schema
 * accepts, gets the CreateTaskResult the extension's own handler gives (the same `start`, the same
 * createTaskResult), in the SDK's bytes. Everything else returns undefined and goes through the SDK:
 * an unknown tool, arguments the schema refuses, a call only a task can carry (it may ask for input
 * in this same call), and an error `start` throws that `isFinal` does not accept (`start` has then
 * written nothing, or the SDK path's identical call finds the task it wrote, through the engine's
 * dedupe). An error `isFinal` accepts is not run again: a refusal is answered as the extension's
 * handler answers it (a tool error with its text), anything else (store trouble) is thrown, for the
 * host to answer. Resolves with the JSON-RPC response as text.
 */
export async function answerTaskToolCall(
  request: DirectRequest,
  toolNamed: (name: string) => TaskToolDefinition<any> | undefined,
  caller: DirectCaller,
  serverInfo: ServerInfo,
  isFinal?: FinalStartError,
): Promise<string | undefined> {
  const plain = plainModernRequest(request, 'tools/call');
  if (!plain) return undefined;
  const { id, params, meta, headers } = plain;
  const { name, arguments: args, _meta: _, ...otherParams } = params;
  if (typeof name !== 'string' || Object.keys(otherParams).length > 0) return undefined;
  if (args !== undefined && !isPlainObject(args)) return undefined;
  // The Mcp-Name header must name this tool verbatim (an encoded or mismatched one is the SDK's to judge).
  if (headers.name?.trim() !== name) return undefined;
  // A progress token asks for notifications the SDK's stream would carry.
  if (meta.progressToken !== undefined) return undefined;
  const tool = toolNamed(name);
  if (!tool) return undefined;
  let started: TaskView | undefined;
  try {
    started = await startTaskDirectly(
      tool,
      args,
      {
        principal: caller.principal,
        signal: caller.signal,
        clientCapabilities: clientCapabilities(meta),
        canAskForInput: true,
      },
      isFinal,
    );
  } catch (error) {
    const refusal = refusalMessage(error);
    if (refusal === undefined) throw error;
    // As the SDK completes a tool's result: `resultType` after the tool's own members.
    return sdkAnswer({ ...refusalResult(refusal), resultType: 'complete' }, id, serverInfo);
  }
  if (!started) return undefined;
  // An empty `content` first: a contentless tool result.
  return sdkAnswer({ content: [], ...createTaskResult(started) }, id, serverInfo);
}

/** A tool's result in the SDK's member order: its serverInfo `_meta` last, and the envelope's `result` before `jsonrpc` and `id`. */
function sdkAnswer(result: Record<string, unknown>, id: string | number, serverInfo: ServerInfo): string {
  return JSON.stringify({ result: { ...result, _meta: { [SERVER_INFO_META_KEY]: serverInfo } }, jsonrpc: '2.0', id });
}
