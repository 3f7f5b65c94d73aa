// What a task tool's `start` or `run` throws, and who is told what of it. A refusal (ToolRefusal: a
// request its caller can fix) reaches the caller with its text: a tool error, or on the 2025-11-25
// task call a -32602. Anything else (a database driver's error, a lock or statement timeout, a bug)
// says nothing the caller can act on and may quote SQL, values, hosts or paths: the caller gets a
// generic JSON-RPC internal error, and the real error goes to whoever serves the request, which logs
// it and may answer otherwise (say, 503 for store trouble).
import { AsyncLocalStorage } from 'node:async_hooks';
import { ProtocolError, ProtocolErrorCode, type CallToolResult } from '@modelcontextprotocol/server';

/**
 * A create the caller can fix, refused: the tool answers a tool error whose text begins with the
 * stable code (`RFL_UNKNOWN_ROOM: Unknown room …`), for a program to read before the words.
 */
export class ToolRefusal extends Error {
  constructor(
    readonly code: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`${code}: ${reason}`, options);
    this.name = 'ToolRefusal';
  }
}

/** The text the caller reads of a refusal; undefined for any other error (the server's to read). */
export function refusalMessage(error: unknown): string | undefined {
  return error instanceof ToolRefusal ? error.message : undefined;
}

/** Hears the unexpected errors of the request it was installed for (see listenForUnexpectedErrors). */
export type UnexpectedErrorListener = (error: unknown, tool: string) => void;

const listeners = new AsyncLocalStorage<UnexpectedErrorListener>();

/**
 * Runs `serve` (say, the SDK handler's fetch for one request) with `listener` hearing every
 * unexpected error a task tool's `start` throws while serving it, before the caller is answered
 * with the generic internal error: the host logs it, and may answer the request otherwise.
 */
export function listenForUnexpectedErrors<T>(listener: UnexpectedErrorListener, serve: () => T): T {
  return listeners.run(listener, serve);
}

/**
 * What a task tool's start (`doing`: 'start') or synchronous path ('run') threw, as its caller may
 * read it: a ProtocolError is rethrown (the call's JSON-RPC error); a refusal's text is returned;
 * anything else is thrown as a generic JSON-RPC internal error, the error itself going to the
 * request's listener (or stderr where none listens).
 */
export function refusalOrThrow(tool: string, error: unknown, doing: 'start' | 'run'): string {
  if (error instanceof ProtocolError) throw error;
  const refusal = refusalMessage(error);
  if (refusal !== undefined) return refusal;
  const what = doing === 'start' ? 'could not start its task' : 'failed';
  const listener = listeners.getStore();
  if (listener) listener(error, tool);
  else console.error(`task tool ${tool}: ${what}`, error);
  throw new ProtocolError(
    ProtocolErrorCode.InternalError,
    `Internal error: tool ${tool} ${what}; the server logged why`,
  );
}

/** A refusal's text as the tool error its caller reads. */
export function refusalResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** What the 2025-11-25 task call answers for an error of `start`: a refusal as -32602 (else refusalOrThrow's). */
export function legacyStartError(tool: string, error: unknown): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, refusalOrThrow(tool, error, 'start'));
}

/** The synchronous path's answer: `run`'s result, or a refusal as a tool error (refusalOrThrow). */
export async function answeringRun(tool: string, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    return refusalResult(refusalOrThrow(tool, error, 'run'));
  }
}
