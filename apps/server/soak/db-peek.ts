// A short-lived read-only connection to the server's database, for the sampler and the final
// checks: it never takes a write lock, so it cannot disturb what it measures.
import Database from 'better-sqlite3';

export function peek<T>(databasePath: string, fn: (db: Database.Database) => T): T {
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return fn(db);
  } finally {
    db.close();
  }
}

export interface TableSizes {
  tasks: number;
  expired: number;
  /** Tasks working or waiting for input, unexpired. */
  unfinished: number;
  /** Working and not claimed by a worker: the queue. */
  queued: number;
}

export function tableSizes(databasePath: string, now = Date.now()): TableSizes {
  return peek(databasePath, (db) => {
    const one = (sql: string, ...args: unknown[]) => (db.prepare(sql).pluck().get(...args) as number) ?? 0;
    return {
      tasks: one('SELECT count(*) FROM tasks'),
      expired: one('SELECT count(*) FROM expired_tasks'),
      unfinished: one("SELECT count(*) FROM tasks WHERE status IN ('working', 'input_required') AND expires_at > ?", now),
      queued: one("SELECT count(*) FROM tasks WHERE status = 'working' AND claimed_by IS NULL AND expires_at > ?", now),
    };
  });
}
