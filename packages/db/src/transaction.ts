import type { Connection } from './connection.ts';

/**
 * Runs `fn` in one synchronous write transaction (better-sqlite3 transactions cannot await). It
 * begins IMMEDIATE: a read-then-write transaction that only upgraded its lock later could fail with
 * SQLITE_BUSY when another process sharing the file wrote in between, which busy_timeout cannot wait out.
 */
export function inTransaction<T>(connection: Connection, fn: () => T): T {
  return connection.sqlite.transaction(fn).immediate();
}
