// State changes of a task: fenced progress and terminal writes, cancel, giving up, and the TTL sweep.
import { and, eq, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Db } from '../connection.ts';
import { expiredTasks, taskEvents, tasks } from '../schema/index.ts';
import { fenced, StaleAttemptError, TOMBSTONE_RETENTION_MS, type TaskError, type AttemptFence } from './task-rows.ts';

export function taskStateQueries(db: Db) {
  return {
    /** Records a progress message; false when the attempt lost its fence (cancelled, superseded). */
    progress(fence: AttemptFence, now: number, message: string, data?: unknown): boolean {
      return db.transaction(
        (tx) => {
          const ok =
            tx.update(tasks).set({ statusMessage: message, lastUpdatedAt: now }).where(fenced(fence, now)).run()
              .changes === 1;
          if (ok)
            tx.insert(taskEvents)
              .values({ taskId: fence.taskId, at: now, attempt: fence.attempt, kind: 'progress', message, data })
              .run();
          return ok;
        },
        { behavior: 'immediate' },
      );
    },

    /**
     * Writes a terminal state for a running attempt. Call inside a transaction together with the
     * work it records; throws StaleAttemptError so that transaction rolls back when the fence fails.
     */
    finish(
      fence: AttemptFence,
      now: number,
      outcome:
        | { status: 'completed'; result: string; message: string }
        | { status: 'failed'; error: TaskError; message: string },
    ): void {
      const changes = db
        .update(tasks)
        .set({
          status: outcome.status,
          statusMessage: outcome.message,
          result: outcome.status === 'completed' ? outcome.result : null,
          error: outcome.status === 'failed' ? outcome.error : null,
          lastUpdatedAt: now,
          finishedAt: now,
          leaseExpiresAt: null,
        })
        .where(fenced(fence, now))
        .run().changes;
      if (changes !== 1) throw new StaleAttemptError(fence);
      db.insert(taskEvents)
        .values({
          taskId: fence.taskId,
          at: now,
          attempt: fence.attempt,
          kind: outcome.status,
          message: outcome.message,
        })
        .run();
    },

    /** Moves a non-terminal task to `cancelled`. False when it was already terminal (or unknown). */
    cancel(id: string, now: number, message: string, by: string): boolean {
      return db.transaction(
        (tx) => {
          // No row when the task was not in a state to change (drizzle's type leaves out that undefined).
          const row = tx
            .update(tasks)
            .set({
              status: 'cancelled',
              statusMessage: message,
              lastUpdatedAt: now,
              finishedAt: now,
              leaseExpiresAt: null,
            })
            .where(and(eq(tasks.id, id), inArray(tasks.status, ['working', 'input_required'])))
            .returning({ attempt: tasks.attempt })
            .get() as { attempt: number } | undefined;
          if (row)
            tx.insert(taskEvents)
              .values({ taskId: id, at: now, attempt: row.attempt, kind: 'cancelled', message, data: { by } })
              .run();
          return row !== undefined;
        },
        { behavior: 'immediate' },
      );
    },

    /**
     * Fails a task that has used up its attempts, without needing its (lost) fence. The UPDATE judges
     * the give-up again (every attempt used, no claim or a lapsed one): a last attempt that renewed or
     * resumed its lease since the sweeper listed the task keeps it.
     */
    failExhausted(id: string, now: number, error: TaskError): boolean {
      return db.transaction(
        (tx) => {
          // No row when the task was not in a state to change (drizzle's type leaves out that undefined).
          const row = tx
            .update(tasks)
            .set({
              status: 'failed',
              statusMessage: error.message,
              error,
              lastUpdatedAt: now,
              finishedAt: now,
              claimedBy: null,
              leaseExpiresAt: null,
            })
            .where(
              and(
                eq(tasks.id, id),
                eq(tasks.status, 'working'),
                sql`${tasks.attempt} >= ${tasks.maxAttempts}`,
                or(isNull(tasks.claimedBy), lt(tasks.leaseExpiresAt, now)),
              ),
            )
            .returning({ attempt: tasks.attempt })
            .get() as { attempt: number } | undefined;
          if (row)
            tx.insert(taskEvents)
              .values({ taskId: id, at: now, attempt: row.attempt, kind: 'failed', message: error.message })
              .run();
          return row !== undefined;
        },
        { behavior: 'immediate' },
      );
    },

    /**
     * The TTL sweeper: deletes expired tasks (events cascade), leaving a tombstone (id, owner) so
     * their owner hears "expired"; tombstones older than TOMBSTONE_RETENTION_MS go too.
     */
    sweepExpired(now: number): number {
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
