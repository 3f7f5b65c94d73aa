// Writing a new task (deduplicated per owner) and reading tasks and their history.
import { and, asc, desc, eq, inArray, lt, or, sql } from 'drizzle-orm';
import type { TaskPollRow } from '../../queries/task-poll-queries.ts';
import type { TaskRow } from '../../queries/task-rows.ts';
import type { StoreQueries, TaskStore } from '../../store.ts';
import { LOCK_CLASS, NOW_MS, type PgDb } from '../pg-db.ts';
import { expiredTasks, taskEvents, tasks } from '../schema/index.ts';
import { live, notify, first } from './task-sql.ts';

type RecordQueries = Pick<TaskStore, 'createOrFind' | 'get' | 'poll' | 'expiredOwner' | 'listForOwner' | 'events'>;

export function taskRecordQueries(db: PgDb, bind: (tx: PgDb) => StoreQueries): RecordQueries {
  return {
    /**
     * READ COMMITTED lets two transactions both see "no such task" and both insert. So a create
     * first takes transaction locks on its owner and on its dedupe key (always in that order, so
     * two creates never wait on each other in a cycle): creates of the same owner, and of the same
     * work, take turns, and `admit` counts what every earlier one committed (the per-owner limits,
     * a revert's "already reverted"). Across nodes, as SQLite's write lock does on one host.
     */
    createOrFind: (task, event, admit) =>
      db.transaction(async (tx) => {
        await tx.execute(
          sql`select pg_advisory_xact_lock(${LOCK_CLASS.owner}, hashtext(${task.owner})), pg_advisory_xact_lock(${LOCK_CLASS.dedupe}, hashtext(${task.dedupeKey}))`,
        );
        const existing = first(
          await tx
            .select()
            .from(tasks)
            .where(
              and(
                eq(tasks.owner, task.owner),
                eq(tasks.kind, task.kind),
                eq(tasks.dedupeKey, task.dedupeKey),
                inArray(tasks.status, ['working', 'input_required']),
                live(),
              ),
            )
            .limit(1),
        );
        if (existing) return { task: existing, created: false };
        // Limits apply to new work only, counted inside this transaction.
        if (admit) await admit(bind(tx));
        const { ttlMs, ...rest } = task;
        const [created] = await tx
          .insert(tasks)
          .values({
            ...rest,
            ttlMs,
            status: 'working',
            createdAt: NOW_MS,
            lastUpdatedAt: NOW_MS,
            expiresAt: sql`${NOW_MS} + ${ttlMs}::bigint`,
          })
          .returning();
        await tx
          .insert(taskEvents)
          .values({ taskId: created.id, at: created.createdAt, attempt: 0, kind: 'created', ...event });
        await notify(tx, 'created', created.id);
        return { task: created, created: true };
      }),

    get: async (id) => {
      const row = first(
        await db
          .select()
          .from(tasks)
          .where(and(eq(tasks.id, id), live())),
      );
      return row;
    },

    poll: async (id) => {
      const row = first(
        await db
          .select({
            id: tasks.id,
            owner: tasks.owner,
            kind: tasks.kind,
            status: tasks.status,
            statusMessage: tasks.statusMessage,
            result: tasks.result,
            error: tasks.error,
            createdAt: tasks.createdAt,
            lastUpdatedAt: tasks.lastUpdatedAt,
            ttlMs: tasks.ttlMs,
            expiresAt: tasks.expiresAt,
            pollIntervalMs: tasks.pollIntervalMs,
            claimedBy: tasks.claimedBy,
            leaseExpiresAt: tasks.leaseExpiresAt,
            startedAt: tasks.startedAt,
          })
          .from(tasks)
          .where(and(eq(tasks.id, id), live())),
      );
      return row satisfies TaskPollRow | undefined;
    },

    expiredOwner: async (id) => {
      const row = first(
        await db
          .select({ owner: tasks.owner, expired: sql<boolean>`${tasks.expiresAt} <= ${NOW_MS}` })
          .from(tasks)
          .where(eq(tasks.id, id)),
      );
      if (row) return row.expired ? row.owner : undefined;
      const tombstone = first(
        await db.select({ owner: expiredTasks.owner }).from(expiredTasks).where(eq(expiredTasks.id, id)),
      );
      return tombstone?.owner;
    },

    listForOwner: (owner, limit, before): Promise<TaskRow[]> => {
      const after = before
        ? or(lt(tasks.createdAt, before.createdAt), and(eq(tasks.createdAt, before.createdAt), lt(tasks.id, before.id)))
        : undefined;
      return db
        .select()
        .from(tasks)
        .where(and(eq(tasks.owner, owner), live(), after))
        .orderBy(desc(tasks.createdAt), desc(tasks.id))
        .limit(limit);
    },

    events: (taskId) => db.select().from(taskEvents).where(eq(taskEvents.taskId, taskId)).orderBy(asc(taskEvents.id)),
  };
}
