// What a task tool's `start` throws, and who is told what of it. A refusal (a request its caller
// can fix) becomes a tool error carrying its message. Anything else (a database driver's error, a
// lock or statement timeout, a bug) says nothing the caller can act on and may quote SQL, values,
// hosts or paths: the caller gets a generic JSON-RPC internal error, and the real error goes to
// whoever serves the request, which logs it and may answer otherwise (say, 503 for store trouble).
import { AsyncLocalStorage } from 'node:async_hooks';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/** A stable code as refusals name theirs: upper case, with at least one underscore (`RFL_UNKNOWN_ROOM`). */
const STABLE_CODE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;

/**
 * The message of a refusal, or undefined for any other error. A refusal is an Error whose message
 * begins with a stable code, `RFL_UNKNOWN_ROOM: Unknown room …`, that is the string `code` of the
 * error itself or of an error on its `cause` chain. A string `code` alone marks nothing: driver and
 * system errors carry one too (`57014`, `ECONNREFUSED`, `SQLITE_BUSY`, the pool's `RFL_POOL_EXHAUSTED`),
 * with messages that do not begin with it; Node's `ENOENT: no such file …` does, but its code has no underscore.
 */
export function refusalMessage(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && STABLE_CODE.test(code) && error.message.startsWith(`${code}: `))
      return error.message;
  }
  return undefined;
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
