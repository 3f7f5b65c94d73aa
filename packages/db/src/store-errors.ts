// What kind of trouble a store error is: the database unreachable, this node's connection pool
// exhausted, or the database busy (a lock or statement wait timed out, or SQLite's busy_timeout). None of them says anything
// about the task that met it: an attempt that meets one waits for the store and goes on, and a
// request answers 503 with a message saying which.

export type StoreTrouble = 'unreachable' | 'pool exhausted' | 'busy';

/** Every connection of this node's pool was in use for as long as a request may wait for one. */
export class PoolExhaustedError extends Error {
  readonly code = 'RFL_POOL_EXHAUSTED';
  constructor(poolSize: number, waitedMs: number, options?: ErrorOptions) {
    super(
      `All ${poolSize} database connections of this node were in use for ${waitedMs} ms (pool exhausted); the database itself may be fine`,
      options,
    );
    this.name = 'PoolExhaustedError';
  }
}

/** Socket errors, and PostgreSQL's connection-exception (08…), shutdown (57P01–03) and idle-session (25P03) classes. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);
const UNREACHABLE_SQLSTATES = /^(08...|57P01|57P02|57P03|25P03)$/;
const UNREACHABLE_MESSAGES =
  /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect|did not answer within/i;
/**
 * lock_not_available (lock_timeout) and query_canceled (statement_timeout); SQLite's file locked by
 * another connection past busy_timeout (a second process writing: an import, a sqlite3 shell).
 */
const BUSY_SQLSTATES = new Set(['55P03', '57014']);
/** better-sqlite3 reports extended codes too (SQLITE_BUSY_SNAPSHOT, SQLITE_LOCKED_SHAREDCACHE, …). */
const SQLITE_BUSY_CODES = /^SQLITE_(BUSY|LOCKED)(_|$)/;

/** The trouble `error` (or one of its causes) reports, or undefined for any other failure. */
export function storeTrouble(error: unknown): StoreTrouble | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof PoolExhaustedError) return 'pool exhausted';
    if (e instanceof AggregateError)
      for (const inner of e.errors) {
        const trouble = storeTrouble(inner);
        if (trouble) return trouble;
      }
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string') {
      if (UNREACHABLE_CODES.has(code) || UNREACHABLE_SQLSTATES.test(code)) return 'unreachable';
      if (BUSY_SQLSTATES.has(code) || SQLITE_BUSY_CODES.test(code)) return 'busy';
    }
    if (typeof message === 'string' && UNREACHABLE_MESSAGES.test(message)) return 'unreachable';
  }
  return undefined;
}
