import {
  isPlainObject,
  plainModernRequest,
  SERVER_INFO_META_KEY,
  type DirectRequest,
  type ServerInfo,
} from './direct-request.ts';
import { startTaskDirectly } from './start-task-directly.ts';
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
 * in this same call), and any error `start` throws. `start` has then written nothing, or the
 * task it wrote (a create committed before the error) is found again by the SDK path's identical
 * call, through the engine's dedupe. Resolves with the JSON-RPC response as text.
 */
export async function answerTaskToolCall(
  request: DirectRequest,
  toolNamed: (name: string) => TaskToolDefinition<any> | undefined,
  caller: DirectCaller,
  serverInfo: ServerInfo,
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
  const started = await startTaskDirectly(tool, args, {
    principal: caller.principal,
    signal: caller.signal,
    clientCapabilities: clientCapabilities(meta),
    canAskForInput: true,
  });
  if (!started) return undefined;
  // The SDK's member order: an empty `content` first (a contentless tool result), its serverInfo
  // `_meta` last, and the envelope's `result` before `jsonrpc` and `id`.
  return JSON.stringify({
    result: { content: [], ...createTaskResult(started), _meta: { [SERVER_INFO_META_KEY]: serverInfo } },
    jsonrpc: '2.0',
    id,
  });
}
