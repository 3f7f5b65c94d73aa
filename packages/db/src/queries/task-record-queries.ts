// Writing a new task (deduplicated per owner) and reading tasks and their history.
import { and, asc, desc, eq, inArray, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../connection.ts';
import { expiredTasks, taskEvents, tasks } from '../schema/index.ts';
import { live, type TaskRow, type NewTaskRow, type TaskEventRow } from './task-rows.ts';

export function taskRecordQueries(db: Db) {
  const getById = db
    .select()
    .from(tasks)
    .where(eq(tasks.id, sql.placeholder('id')))
    .prepare();

  return {
    insert(row: NewTaskRow, event: { message: string; data?: unknown }): TaskRow {
      return db.transaction(
        (tx) => {
          const inserted = tx.insert(tasks).values(row).returning().get();
          tx.insert(taskEvents)
            .values({ taskId: row.id, at: row.createdAt, attempt: 0, kind: 'created', ...event })
            .run();
          return inserted;
        },
        { behavior: 'immediate' },
      );
    },

    /**
     * Inserts the task unless the same owner already has identical work (same dedupe key) under
     * way; one write transaction, so two processes cannot both insert the same work.
     */
    createOrFind(
      row: NewTaskRow,
      event: { message: string; data?: unknown },
      now: number,
      beforeInsert?: () => void,
    ): { task: TaskRow; created: boolean } {
      return db.transaction(
        (tx) => {
          const existing = tx
            .select()
            .from(tasks)
            .where(
              and(
                eq(tasks.owner, row.owner),
                eq(tasks.kind, row.kind),
                eq(tasks.dedupeKey, row.dedupeKey),
                inArray(tasks.status, ['working', 'input_required']),
                live(now),
              ),
            )
            .get();
          if (existing) return { task: existing, created: false };
          // Limits apply to new work only, and are counted inside this transaction: no race past them.
          beforeInsert?.();
          const task = tx.insert(tasks).values(row).returning().get();
          tx.insert(taskEvents)
            .values({ taskId: row.id, at: row.createdAt, attempt: 0, kind: 'created', ...event })
            .run();
          return { task, created: true };
        },
        { behavior: 'immediate' },
      );
    },

    get(id: string): TaskRow | undefined {
      return getById.get({ id });
    },

    /** The owner of a task that expired (row past its TTL, or already swept to a tombstone), if any. */
    expiredOwner(id: string, now: number): string | undefined {
      const row = getById.get({ id });
      if (row) return row.expiresAt <= now ? row.owner : undefined;
      return db.select({ owner: expiredTasks.owner }).from(expiredTasks).where(eq(expiredTasks.id, id)).get()?.owner;
    },

    findWorkingDuplicate(owner: string, kind: string, dedupeKey: string, now: number): TaskRow | undefined {
      return db
        .select()
        .from(tasks)
        .where(
          and(
            eq(tasks.owner, owner),
            eq(tasks.kind, kind),
            eq(tasks.dedupeKey, dedupeKey),
            inArray(tasks.status, ['working', 'input_required']),
            live(now),
          ),
        )
        .get();
    },

    /** One owner's live tasks, newest first, a page at a time (`before`: the last row of the previous page). */
    listForOwner(owner: string, now: number, limit: number, before?: { createdAt: number; id: string }): TaskRow[] {
      const after = before
        ? or(lt(tasks.createdAt, before.createdAt), and(eq(tasks.createdAt, before.createdAt), lt(tasks.id, before.id)))
        : undefined;
      return db
        .select()
        .from(tasks)
        .where(and(eq(tasks.owner, owner), live(now), after))
        .orderBy(desc(tasks.createdAt), desc(tasks.id))
        .limit(limit)
        .all();
    },

    events(taskId: string): TaskEventRow[] {
      return db.select().from(taskEvents).where(eq(taskEvents.taskId, taskId)).orderBy(asc(taskEvents.id)).all();
    },
  };
}
