// Writing a new task (deduplicated per owner) and reading tasks and their history.
import { and, asc, desc, eq, getTableColumns, Placeholder, sql } from 'drizzle-orm';
import { openDuplicateWhere } from '../lifecycle/task-transitions.ts';
import { olderThan } from './newest-first.ts';
import type { Db } from '../connection.ts';
import { expiredTasks, taskEvents, tasks } from '../schema/index.ts';
import { live, type TaskRow, type NewTaskRow, type TaskEventRow } from './task-rows.ts';

/** The columns a new task is written with; the rest keep their defaults (attempt 0, no claim). */
const NEW_TASK_COLUMNS = [
  'id',
  'owner',
  'kind',
  'input',
  'dedupeKey',
  'status',
  'statusMessage',
  'createdAt',
  'lastUpdatedAt',
  'ttlMs',
  'expiresAt',
  'pollIntervalMs',
  'maxAttempts',
  'scopeKey',
  'scopeStart',
  'scopeEnd',
] as const satisfies (keyof NewTaskRow)[];

/** A new task's columns that it is not written with: their defaults. */
const UNSET_COLUMNS = {
  result: null,
  error: null,
  attempt: 0,
  claimedBy: null,
  heldFor: null,
  leaseExpiresAt: null,
  startedAt: null,
  finishedAt: null,
} as const satisfies Omit<TaskRow, (typeof NEW_TASK_COLUMNS)[number]>;

export function taskRecordQueries(db: Db, clock: () => number) {
  const getById = db
    .select()
    .from(tasks)
    .where(eq(tasks.id, sql.placeholder('id')))
    .prepare();

  // The create's statements, prepared once and run through better-sqlite3 directly: in profiles of
  // the create path under load, building them per call, then drizzle's per-call filling and mapping,
  // cost more than the writes. The duplicate check (lifecycle's rule, its text rendered once) is
  // almost never a hit: only a hit reads the row.
  const p = sql.placeholder;
  const duplicateQuery = db
    .select({ id: tasks.id })
    .from(tasks)
    .where(
      openDuplicateWhere(tasks, { owner: p('owner'), kind: p('kind'), dedupeKey: p('dedupeKey') }, sql`${p('now')}`),
    )
    .limit(1)
    .toSQL();
  const workingDuplicateId = db.$client.prepare<unknown[], string>(duplicateQuery.sql).pluck();
  const duplicateValues = (given: Record<string, unknown>) =>
    duplicateQuery.params.map((param) => (param instanceof Placeholder ? given[param.name] : param));
  // No RETURNING: the new row is built from what was written and the defaults of the rest
  // (store-contract.test.ts checks it equals a read, column for column).
  const insertTask = db.$client.prepare(
    `INSERT INTO tasks (${NEW_TASK_COLUMNS.map((c) => getTableColumns(tasks)[c].name).join(', ')})
     VALUES (${NEW_TASK_COLUMNS.map((c) => `@${c}`).join(', ')})`,
  );
  const insertCreatedEvent = db.$client.prepare(
    `INSERT INTO task_events (task_id, at, attempt, kind, message, data) VALUES (?, ?, 0, 'created', ?, ?)`,
  );

  return {
    /** Writes a new task and its `created` event; the caller holds the write transaction (the create is one). */
    insert(row: NewTaskRow, event: { message: string; data?: unknown }): TaskRow {
      const input = JSON.stringify(row.input);
      const values = Object.fromEntries(NEW_TASK_COLUMNS.map((column) => [column, row[column] ?? null]));
      insertTask.run({ ...values, input });
      insertCreatedEvent.run(
        row.id,
        row.createdAt,
        event.message,
        event.data == null ? null : JSON.stringify(event.data),
      );
      return {
        ...UNSET_COLUMNS,
        ...(values as Pick<TaskRow, (typeof NEW_TASK_COLUMNS)[number]>),
        input: JSON.parse(input) as unknown,
      };
    },

    /** The task while live (not past its TTL); undefined when unknown or expired. */
    get(id: string): TaskRow | undefined {
      const row = getById.get({ id });
      return row && row.expiresAt > clock() ? row : undefined;
    },

    /** The owner of a task that expired (row past its TTL, or already swept to a tombstone), if any. */
    expiredOwner(id: string): string | undefined {
      const now = clock();
      const row = getById.get({ id });
      if (row) return row.expiresAt <= now ? row.owner : undefined;
      return db.select({ owner: expiredTasks.owner }).from(expiredTasks).where(eq(expiredTasks.id, id)).get()?.owner;
    },

    findWorkingDuplicate(owner: string, kind: string, dedupeKey: string): TaskRow | undefined {
      const now = clock();
      const id = workingDuplicateId.get(...duplicateValues({ owner, kind, dedupeKey, now }));
      return id === undefined ? undefined : getById.get({ id });
    },

    /** One owner's live tasks, newest first, a page at a time (`before`: the last row of the previous page). */
    listForOwner(owner: string, limit: number, before?: { createdAt: number; id: string }): TaskRow[] {
      const now = clock();
      const after = before ? olderThan(tasks, before) : undefined;
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
