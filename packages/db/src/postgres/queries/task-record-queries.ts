// Writing a new task (deduplicated per owner) and reading tasks and their history.
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type pg from 'pg';
import { openDuplicateWhere } from '../../lifecycle/task-transitions.ts';
import { POLL_COLUMNS, type TaskPollColumn, type TaskPollRow } from '../../queries/task-poll-queries.ts';
import type { TaskRow } from '../../queries/task-rows.ts';
import type { StoreQueries, TaskStore } from '../../store.ts';
import { olderThan } from '../../queries/newest-first.ts';
import { LOCK_CLASS, NOW_MS, type PgDb } from '../pg-db.ts';
import { expiredTasks, taskEvents, tasks } from '../schema/index.ts';
import { createTasksQuery, writeCreates } from './task-create-statement.ts';
import { live, first, namedStatement, pollRowFrom, taskRowFrom } from './task-sql.ts';

type CreateArgs = Parameters<TaskStore['createOrFind']>;
type CreateOutcome = Awaited<ReturnType<TaskStore['createOrFind']>>;

/**
 * READ COMMITTED lets two transactions both see "no such task" and both insert. So a create first
 * takes a transaction lock on its dedupe key: creates of the same work take turns, and the later one
 * finds the earlier one's row. A create with limits to check (`admit`) also locks its owner: `admit`
 * counts the owner's tasks, so creates of one owner with limits take turns and each counts what every
 * earlier one committed (the per-owner limits, a revert's "already reverted"). Across nodes, as
 * SQLite's write lock does on one host. A create without limits counts nothing and takes no owner
 * lock, so such creates of one owner commit side by side. A batch of creates (group commit) takes all
 * its locks first, every transaction in one global order (owner locks, then dedupe locks, each by
 * key), so two transactions never wait on each other in a cycle.
 */
export async function lockCreates(tx: PgDb, creates: LockedCreate[]): Promise<void> {
  const [classes, keys] = lockCreatesValues(creates);
  await tx.execute(
    sql`${sql.raw(LOCK_CREATES_HEAD)}${sql.param(classes)}::int[], ${sql.param(keys)}::text[]${sql.raw(LOCK_CREATES_TAIL)}`,
  );
}

// One round trip; the sorted subquery fixes the order the locks are taken in.
const LOCK_CREATES_HEAD = 'select pg_advisory_xact_lock(c, k) from (select c, hashtext(key) as k from unnest(';
const LOCK_CREATES_TAIL = ') as l(c, key) order by c, k) as ordered';
/** lockCreates as a named statement's text: its values are lockCreatesValues(creates). */
export const LOCK_CREATES_TEXT = `${LOCK_CREATES_HEAD}$1::int[], $2::text[]${LOCK_CREATES_TAIL}`;

/** A create as its locks see it: its owner and work, and whether it has limits to check. */
export interface LockedCreate {
  task: { owner: string; dedupeKey: string };
  admit?: unknown;
}

/** The lock classes and keys of a batch's creates: the owner of each create with limits, then each dedupe key, once. */
export function lockCreatesValues(creates: LockedCreate[]): [number[], string[]] {
  const owners = [...new Set(creates.filter((c) => c.admit).map((c) => c.task.owner))].sort();
  const keys = [...new Set(creates.map((c) => c.task.dedupeKey))].sort();
  return [
    [...owners.map(() => LOCK_CLASS.owner), ...keys.map(() => LOCK_CLASS.dedupe)],
    [...owners, ...keys],
  ];
}

/** The open duplicate of `task` (same owner, kind and dedupe key, not finished, live). */
const openDuplicate = (task: CreateArgs[0]) =>
  sql`select * from ${tasks} where ${openDuplicateWhere(tasks, task, NOW_MS)} limit 1`;

/**
 * The create's own work, under its locks. Without limits to check (`admit`), one statement: the
 * duplicate check, the insert unless there is one, its event and its NOTIFY. With them: the
 * duplicate check, then `admit` (counted in this transaction), then that statement.
 */
export async function createLocked(
  tx: PgDb,
  task: CreateArgs[0],
  event: CreateArgs[1],
  admit: (() => Promise<void>) | undefined,
): Promise<CreateOutcome> {
  if (admit) {
    const existing = first((await tx.execute<Record<string, unknown>>(openDuplicate(task))).rows);
    if (existing) return { task: taskRowFrom(existing), created: false };
    // Limits apply to new work only, counted inside this transaction.
    await admit();
  }
  const [outcome] = await writeCreates(
    [{ task, event }],
    async (round) => (await tx.execute<Record<string, unknown>>(createTasksQuery(round))).rows,
  );
  return outcome;
}

/** The poll of many tasks at once: what it shows of each live one, in POLL_COLUMNS order. */
const POLL_MANY_STATEMENT = namedStatement(
  'reflow_task_poll_many',
  sql`select ${sql.join(
    POLL_COLUMNS.map((c) => tasks[c]),
    sql`, `,
  )} from ${tasks} where ${tasks.id} = any(${sql.placeholder('ids')}::text[]) and ${live()}`,
);

/**
 * What a poll shows of each live task among `ids` (none for an id unknown or past its TTL): one
 * named statement straight through the pool, as arrays, with no query building per call.
 */
export async function pollMany(pool: pg.Pool, ids: string[]): Promise<TaskPollRow[]> {
  const { rows } = await pool.query<unknown[]>({
    name: POLL_MANY_STATEMENT.name,
    text: POLL_MANY_STATEMENT.text,
    values: POLL_MANY_STATEMENT.values({ ids }),
    rowMode: 'array',
  });
  return rows.map((cells) => pollRowFrom(cells));
}

type RecordQueries = Pick<TaskStore, 'createOrFind' | 'get' | 'poll' | 'expiredOwner' | 'listForOwner' | 'events'>;

export function taskRecordQueries(db: PgDb, bind: (tx: PgDb) => StoreQueries): RecordQueries {
  // The poll and the read by id, built once and prepared on each connection (named statements): the
  // hottest reads, with no per-call query building and no per-call parse and plan in the database.
  let byIdStatement: ReturnType<typeof prepareById> | undefined;
  const prepareById = () =>
    db
      .select()
      .from(tasks)
      .where(and(eq(tasks.id, sql.placeholder('id')), live()))
      .prepare('reflow_task_by_id');
  const byId = () => (byIdStatement ??= prepareById());
  return {
    // A create in a transaction of its own (inside a caller's transaction: a savepoint of it).
    createOrFind: (task, event, admit) =>
      db.transaction(async (tx) => {
        await lockCreates(tx, [{ task, admit }]);
        return createLocked(tx, task, event, admit && (() => admit(bind(tx))));
      }),

    get: async (id) => first(await byId().execute({ id })),

    // Inside a transaction (outside one, the store batches polls: pollMany).
    poll: async (id) =>
      first(
        await db
          .select(Object.fromEntries(POLL_COLUMNS.map((c) => [c, tasks[c]])) as Pick<typeof tasks, TaskPollColumn>)
          .from(tasks)
          .where(and(eq(tasks.id, id), live())),
      ),

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
      const after = before ? olderThan(tasks, before) : undefined;
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
