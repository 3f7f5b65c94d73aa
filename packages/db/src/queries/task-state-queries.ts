// State changes of a task on SQLite: fenced progress and terminal writes, cancel, giving up, and the
// TTL sweep; each a transition of lifecycle/task-transitions.ts.
import { lt, lte, sql } from 'drizzle-orm';
import type { Db } from '../connection.ts';
import {
  cancelSet,
  cancelWhere,
  exhaustedWhere,
  fencedBy,
  finishSet,
  giveUpSet,
  progressSet,
  type TaskTerminalOutcome,
} from '../lifecycle/task-transitions.ts';
import { expiredTasks, tasks } from '../schema/index.ts';
import { StaleAttemptError, TOMBSTONE_RETENTION_MS, type TaskError, type AttemptFence } from './task-rows.ts';
import { applyTransition } from './task-transition.ts';

export function taskStateQueries(db: Db, clock: () => number) {
  return {
    /** Records a progress message; false when the attempt lost its fence (cancelled, superseded). */
    progress(fence: AttemptFence, message: string, data?: unknown): boolean {
      const now = clock();
      return db.transaction(
        (tx) =>
          applyTransition(tx, now, progressSet(message, now), fencedBy(fence, tasks, now), {
            kind: 'progress',
            message,
            data,
          }).length === 1,
        { behavior: 'immediate' },
      );
    },

    /**
     * Writes a terminal state for a running attempt. Call inside a transaction together with the
     * work it records; throws StaleAttemptError so that transaction rolls back when the fence fails.
     */
    finish(fence: AttemptFence, outcome: TaskTerminalOutcome): void {
      const now = clock();
      const moved = applyTransition(db, now, finishSet(outcome, now), fencedBy(fence, tasks, now), {
        kind: outcome.status,
        message: outcome.message,
      });
      if (moved.length !== 1) throw new StaleAttemptError(fence);
    },

    /** Moves a non-terminal task to `cancelled`. False when it was already terminal (or unknown). */
    cancel(id: string, message: string, by: string): boolean {
      const now = clock();
      return db.transaction(
        (tx) =>
          applyTransition(tx, now, cancelSet(message, now), cancelWhere(id, tasks), {
            kind: 'cancelled',
            message,
            data: { by },
          }).length === 1,
        { behavior: 'immediate' },
      );
    },

    /** Gives up a task that has used its attempts, without needing its (lost) fence. */
    failExhausted(id: string, error: TaskError): boolean {
      const now = clock();
      return db.transaction(
        (tx) =>
          applyTransition(tx, now, giveUpSet(error, now), sql`${tasks.id} = ${id} and ${exhaustedWhere(tasks, now)}`, {
            kind: 'failed',
            message: error.message,
          }).length === 1,
        { behavior: 'immediate' },
      );
    },

    /**
     * The TTL sweeper: deletes expired tasks (events cascade), leaving a tombstone (id, owner) so
     * their owner hears "expired"; tombstones older than TOMBSTONE_RETENTION_MS go too.
     */
    sweepExpired(): number {
      const now = clock();
      return db.transaction(
        (tx) => {
          const gone = tx
            .delete(tasks)
            .where(lte(tasks.expiresAt, now))
            .returning({ id: tasks.id, owner: tasks.owner })
            .all();
          for (const t of gone)
            tx.insert(expiredTasks).values({ id: t.id, owner: t.owner, expiredAt: now }).onConflictDoNothing().run();
          tx.delete(expiredTasks)
            .where(lt(expiredTasks.expiredAt, now - TOMBSTONE_RETENTION_MS))
            .run();
          return gone.length;
        },
        { behavior: 'immediate' },
      );
    },
  };
}
