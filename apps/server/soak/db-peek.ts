// Row counts the sampler and the final checks read through a read-only connection (harness/peek.ts).
import { peek } from '../harness/peek.ts';

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
    const one = (sql: string, ...args: unknown[]) =>
      (db
        .prepare(sql)
        .pluck()
        .get(...args) as number | undefined) ?? 0;
    return {
      tasks: one('SELECT count(*) FROM tasks'),
      expired: one('SELECT count(*) FROM expired_tasks'),
      unfinished: one(
        "SELECT count(*) FROM tasks WHERE status IN ('working', 'input_required') AND expires_at > ?",
        now,
      ),
      queued: one("SELECT count(*) FROM tasks WHERE status = 'working' AND claimed_by IS NULL AND expires_at > ?", now),
    };
  });
}
