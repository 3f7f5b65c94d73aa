// State changes of a task on PostgreSQL: fenced progress and terminal writes, cancel, giving up, and
// the TTL sweep; each a transition of lifecycle/task-transitions.ts in one statement.
import { lt, lte, sql } from 'drizzle-orm';
import {
  cancelSet,
  cancelWhere,
  exhaustedWhere,
  fencedBy,
  finishSet,
  giveUpSet,
  progressSet,
} from '../../lifecycle/task-transitions.ts';
import { StaleAttemptError, TOMBSTONE_RETENTION_MS } from '../../queries/task-rows.ts';
import type { TaskStore } from '../../store.ts';
import { NOW_MS, type PgDb } from '../pg-db.ts';
import { expiredTasks, tasks } from '../schema/index.ts';
import { applyTransition } from './task-transition.ts';

type StateQueries = Pick<TaskStore, 'progress' | 'finish' | 'cancel' | 'failExhausted' | 'sweepExpired'>;

export function taskStateQueries(db: PgDb): StateQueries {
  return {
    progress: async (fence, message, data) =>
      (
        await applyTransition(db, progressSet(message, NOW_MS), fencedBy(fence, tasks, NOW_MS), {
          kind: 'progress',
          message,
          data,
        })
      ).length === 1,

    /** One statement of the caller's transaction: a failed fence throws, so the work it records rolls back. */
    finish: async (fence, outcome) => {
      const moved = await applyTransition(db, finishSet(outcome, NOW_MS), fencedBy(fence, tasks, NOW_MS), {
        kind: outcome.status,
        message: outcome.message,
      });
      if (moved.length !== 1) throw new StaleAttemptError(fence);
    },

    /** Flags the row and notifies in one statement: the node running the attempt hears it and stops. */
    cancel: async (id, message, by) =>
      (
        await applyTransition(
          db,
          cancelSet(message, NOW_MS),
          cancelWhere(id, tasks),
          { kind: 'cancelled', message, data: { by } },
          'cancelled',
        )
      ).length === 1,

    failExhausted: async (id, error) =>
      (
        await applyTransition(
          db,
          giveUpSet(error, NOW_MS),
          sql`${tasks.id} = ${id} and ${exhaustedWhere(tasks, NOW_MS)}`,
          {
            kind: 'failed',
            message: error.message,
          },
        )
      ).length === 1,

    /**
     * Deletes tasks past their TTL (events and inputs cascade), leaving tombstones; tombstones past
     * their retention go too. The condition is re-checked by the DELETE itself, so a sweep on two
     * nodes at once deletes each row once.
     */
    sweepExpired: () =>
      db.transaction(async (tx) => {
        const gone = await tx
          .delete(tasks)
          .where(lte(tasks.expiresAt, NOW_MS))
          .returning({ id: tasks.id, owner: tasks.owner });
        if (gone.length)
          await tx
            .insert(expiredTasks)
            .values(gone.map((t) => ({ id: t.id, owner: t.owner, expiredAt: NOW_MS })))
            .onConflictDoNothing();
        await tx
          .delete(expiredTasks)
          .where(lt(expiredTasks.expiredAt, sql`${NOW_MS} - ${TOMBSTONE_RETENTION_MS}::bigint`));
        return gone.length;
      }),
  };
}
