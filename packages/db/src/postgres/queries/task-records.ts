// Writing a new task (deduplicated per owner) and reading tasks and their history.
import { and, asc, desc, eq, inArray, lt, or, sql } from 'drizzle-orm';
import type { TaskPollRow } from '../../queries/task-poll-queries.ts';
import type { TaskRow } from '../../queries/task-rows.ts';
import type { StoreQueries, TaskStore } from '../../store.ts';
import { LOCK_CLASS, NOW_MS, type PgDb } from '../pg-db.ts';
import { expiredTasks, taskEvents, tasks } from '../schema/index.ts';
import { live, notify, first } from './task-sql.ts';

type CreateArgs = Parameters<TaskStore['createOrFind']>;
type CreateOutcome = Awaited<ReturnType<TaskStore['createOrFind']>>;

/**
 * READ COMMITTED lets two transactions both see "no such task" and both insert. So a create first
 * takes transaction locks on its owner and on its dedupe key: creates of the same owner, and of the
 * same work, take turns, and `admit` counts what every earlier one committed (the per-owner limits, a
 * revert's "already reverted"). Across nodes, as SQLite's write lock does on one host. A batch of
 * creates (group commit) takes all its locks first, every transaction in one global order (owner
 * locks, then dedupe locks, each by key), so two transactions never wait on each other in a cycle.
 */
export async function lockCreates(tx: PgDb, creates: { owner: string; dedupeKey: string }[]): Promise<void> {
  const owners = [...new Set(creates.map((c) => c.owner))].sort();
  const keys = [...new Set(creates.map((c) => c.dedupeKey))].sort();
  const locks = [
    ...owners.map((owner) => sql`(${LOCK_CLASS.owner}::int, hashtext(${owner}))`),
    ...keys.map((key) => sql`(${LOCK_CLASS.dedupe}::int, hashtext(${key}))`),
  ];
  // One round trip; the sorted subquery fixes the order the locks are taken in.
  await tx.execute(
    sql`select pg_advisory_xact_lock(c, k) from (select c, k from (values ${sql.join(locks, sql`, `)}) as l(c, k) order by c, k) as ordered`,
  );
}

/** The create's own work, under its locks: the duplicate check, then the limits (`admit`), then the insert. */
export async function createLocked(
  tx: PgDb,
  task: CreateArgs[0],
  event: CreateArgs[1],
  admit: (() => Promise<void>) | undefined,
): Promise<CreateOutcome> {
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
  if (admit) await admit();
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
}

type RecordQueries = Pick<TaskStore, 'createOrFind' | 'get' | 'poll' | 'expiredOwner' | 'listForOwner' | 'events'>;

export function taskRecordQueries(db: PgDb, bind: (tx: PgDb) => StoreQueries): RecordQueries {
  return {
    // A create in a transaction of its own (inside a caller's transaction: a savepoint of it).
    createOrFind: (task, event, admit) =>
      db.transaction(async (tx) => {
        await lockCreates(tx, [task]);
        return createLocked(tx, task, event, admit && (() => admit(bind(tx))));
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
