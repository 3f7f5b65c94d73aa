// The pool's transactions, on a connection this store checks out and gives back itself.
// drizzle's own pool transaction sends BEGIN before its try block: a BEGIN that fails (the
// connection reset by an outage) never gives its connection back, and the pool is one connection
// short for good. Ten outages that each caught a BEGIN leave a node with no connection at all.
import { drizzle } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import type { PgDb } from './pg-db.ts';

type PgTransaction = Parameters<Parameters<PgDb['transaction']>[0]>[0];

/**
 * Runs `fn` in a transaction on a connection of its own. The connection goes back to the pool
 * unless BEGIN, COMMIT or ROLLBACK itself failed: its state is then unknown, and it is dropped.
 */
export async function pooledTransaction<T>(pool: pg.Pool, fn: (tx: PgTransaction) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const thrown: { by?: unknown } = {};
  let broken: Error | undefined;
  try {
    // On one client, drizzle's transaction is BEGIN … COMMIT on it and leaves the client to us. No
    // relational schema: no query uses it, and building it would cost 70 µs per transaction.
    const db = drizzle(client) as unknown as PgDb;
    return await db.transaction(async (tx) => {
      try {
        return await fn(tx);
      } catch (error) {
        thrown.by = error;
        throw error;
      }
    });
  } catch (error) {
    if (!('by' in thrown) || error !== thrown.by) broken = error as Error;
    throw error;
  } finally {
    client.release(broken);
  }
}
