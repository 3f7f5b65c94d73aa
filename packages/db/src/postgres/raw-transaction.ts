// A transaction on a connection of its own, through node-postgres directly: for the hot paths that
// run named statements built once (a batch of creates, a claim), with no query building per call.
import type pg from 'pg';

/** COMMIT when `fn` resolves; ROLLBACK when it throws, and the connection dropped rather than reused (its state is unknown). */
export async function rawTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    await client.query('BEGIN');
    const value = await fn(client);
    await client.query('COMMIT');
    return value;
  } catch (error) {
    failure = error as Error;
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release(failure);
  }
}
