// State changes of a task: fenced progress and terminal writes, cancel, giving up, and the TTL sweep.
import { and, eq, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import { StaleAttemptError, TOMBSTONE_RETENTION_MS } from '../../queries/task-rows.ts';
import type { TaskStore } from '../../store.ts';
import { NOW_MS, type PgDb } from '../pg-db.ts';
import { expiredTasks, taskEvents, tasks } from '../schema/index.ts';
import { fenced, notify, first } from './task-sql.ts';

type StateQueries = Pick<TaskStore, 'progress' | 'finish' | 'cancel' | 'failExhausted' | 'sweepExpired'>;

export function taskStateQueries(db: PgDb): StateQueries {
  return {
    progress: (fence, message, data) =>
      db.transaction(async (tx) => {
        const rows = await tx
          .update(tasks)
          .set({ statusMessage: message, lastUpdatedAt: NOW_MS })
          .where(fenced(fence))
          .returning({ at: tasks.lastUpdatedAt });
        if (rows.length !== 1) return false;
        await tx
          .insert(taskEvents)
          .values({ taskId: fence.taskId, at: rows[0].at, attempt: fence.attempt, kind: 'progress', message, data });
        return true;
      }),

    /** Inside the caller's transaction when there is one (a savepoint), so a failed fence rolls back its work. */
    finish: (fence, outcome) =>
      db.transaction(async (tx) => {
        const rows = await tx
          .update(tasks)
          .set({
            status: outcome.status,
            statusMessage: outcome.message,
            result: outcome.status === 'completed' ? outcome.result : null,
            error: outcome.status === 'failed' ? outcome.error : null,
            lastUpdatedAt: NOW_MS,
            finishedAt: NOW_MS,
            leaseExpiresAt: null,
          })
          .where(fenced(fence))
          .returning({ at: tasks.finishedAt });
        if (rows.length !== 1) throw new StaleAttemptError(fence);
        await tx.insert(taskEvents).values({
          taskId: fence.taskId,
          at: rows[0].at!,
          attempt: fence.attempt,
          kind: outcome.status,
          message: outcome.message,
        });
      }),

    /** Flags the row and notifies in one transaction: the node running the attempt hears it and stops. */
    cancel: (id, message, by) =>
      db.transaction(async (tx) => {
        const row = first(
          await tx
            .update(tasks)
            .set({
              status: 'cancelled',
              statusMessage: message,
              lastUpdatedAt: NOW_MS,
              finishedAt: NOW_MS,
              leaseExpiresAt: null,
            })
            .where(and(eq(tasks.id, id), inArray(tasks.status, ['working', 'input_required'])))
            .returning({ attempt: tasks.attempt, at: tasks.lastUpdatedAt }),
        );
        if (!row) return false;
        await tx
          .insert(taskEvents)
          .values({ taskId: id, at: row.at, attempt: row.attempt, kind: 'cancelled', message, data: { by } });
        await notify(tx, 'cancelled', id);
        return true;
      }),

    failExhausted: (id, error) =>
      db.transaction(async (tx) => {
        const row = first(
          await tx
            .update(tasks)
            .set({
              status: 'failed',
              statusMessage: error.message,
              error,
              lastUpdatedAt: NOW_MS,
              finishedAt: NOW_MS,
              claimedBy: null,
              leaseExpiresAt: null,
            })
            // The give-up is judged again by the UPDATE itself: a last attempt that renewed or resumed
            // its lease since the sweeper listed the task keeps it.
            .where(
              and(
                eq(tasks.id, id),
                eq(tasks.status, 'working'),
                sql`${tasks.attempt} >= ${tasks.maxAttempts}`,
                or(isNull(tasks.claimedBy), lt(tasks.leaseExpiresAt, NOW_MS)),
              ),
            )
            .returning({ attempt: tasks.attempt, at: tasks.lastUpdatedAt }),
        );
        if (!row) return false;
        await tx
          .insert(taskEvents)
          .values({ taskId: id, at: row.at, attempt: row.attempt, kind: 'failed', message: error.message });
        return true;
      }),

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
