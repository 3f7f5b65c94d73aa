// What a task tool's `start` throws, and who is told what of it. A refusal (ToolRefusal: a request
// its caller can fix) becomes a tool error carrying its message. Anything else (a database driver's error, a
// lock or statement timeout, a bug) says nothing the caller can act on and may quote SQL, values,
// hosts or paths: the caller gets a generic JSON-RPC internal error, and the real error goes to
// whoever serves the request, which logs it and may answer otherwise (say, 503 for store trouble).
import { AsyncLocalStorage } from 'node:async_hooks';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

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
 * What the caller of `tool` is told of an unexpected error its `start` threw: a generic JSON-RPC
 * internal error. The error itself goes to the request's listener, or to stderr where none listens.
 */
export function unexpectedStartError(tool: string, error: unknown): ProtocolError {
  const listener = listeners.getStore();
  if (listener) listener(error, tool);
  else console.error(`task tool ${tool}: start failed`, error);
  return new ProtocolError(
    ProtocolErrorCode.InternalError,
    `Internal error: tool ${tool} could not start its task; the server logged why`,
  );
}
