// A lifecycle transition on SQLite: its UPDATE (the WHERE and SET of lifecycle/task-transitions.ts)
// and its events, in the caller's transaction. In process, each statement costs microseconds, so
// the two statements need no folding (PostgreSQL's twin, postgres/queries/task-transition.ts, makes
// them one round trip).
import type { SQL } from 'drizzle-orm';
import type { TaskSet, TransitionEvent } from '../lifecycle/task-transitions.ts';
import type { Db } from '../connection.ts';
import type { StoreSignal } from '../store.ts';
import { taskEvents, tasks } from '../schema/index.ts';

/**
 * Where a query sends a transition's signal (TRANSITIONS' `signal`) for a row it moved: SqliteStore
 * holds it until the write or transaction that made the change has committed (and its WAL flush
 * returned), and drops it if that rolls back, as PostgreSQL's NOTIFY is heard only on COMMIT.
 */
export type SendSignal = (signal: StoreSignal, taskId: string) => void;

/** A row a transition moved: its id, its attempt after the write, and when (the store's clock). */
export interface MovedRow {
  id: string;
  attempt: number;
  at: number;
}

/** Runs the transition: the rows it moved, each with its events written. */
export function applyTransition(
  db: Pick<Db, 'update' | 'insert'>,
  now: number,
  set: TaskSet,
  where: SQL,
  event?: TransitionEvent,
): MovedRow[] {
  const moved = db
    .update(tasks)
    .set(set)
    .where(where)
    .returning({ id: tasks.id, attempt: tasks.attempt })
    .all()
    .map((row) => ({ ...row, at: now }));
  if (event)
    for (const row of moved)
      db.insert(taskEvents)
        .values({ taskId: row.id, at: now, attempt: event.attempt ?? row.attempt, ...event })
        .run();
  return moved;
}
