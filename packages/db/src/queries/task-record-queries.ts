// Writing a new task (deduplicated per owner) and reading tasks and their history.
import { and, asc, desc, eq, inArray, lt, or, sql } from 'drizzle-orm';
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

export function taskRecordQueries(db: Db) {
  const getById = db
    .select()
    .from(tasks)
    .where(eq(tasks.id, sql.placeholder('id')))
    .prepare();

  // The create's statements, prepared once: building and compiling them per call cost more than the
  // insert itself (a profile of the create path under load).
  const p = (name: string) => sql.placeholder(name);
  const workingDuplicate = db
    .select()
    .from(tasks)
    .where(
      and(
        eq(tasks.owner, p('owner')),
        eq(tasks.kind, p('kind')),
        eq(tasks.dedupeKey, p('dedupeKey')),
        inArray(tasks.status, ['working', 'input_required']),
        sql`${tasks.expiresAt} > ${p('now')}`,
      ),
    )
    .prepare();
  const insertTask = db
    .insert(tasks)
    .values(Object.fromEntries(NEW_TASK_COLUMNS.map((column) => [column, p(column)])) as unknown as NewTaskRow)
    .returning()
    .prepare();
  const insertCreatedEvent = db
    .insert(taskEvents)
    .values({
      taskId: p('taskId'),
      at: p('at'),
      attempt: 0,
      kind: 'created',
      message: p('message'),
      data: p('data'),
    } as unknown as typeof taskEvents.$inferInsert)
    .prepare();

  return {
    /** Writes a new task and its `created` event; the caller holds the write transaction (the create is one). */
    insert(row: NewTaskRow, event: { message: string; data?: unknown }): TaskRow {
      const values = Object.fromEntries(NEW_TASK_COLUMNS.map((column) => [column, row[column] ?? null]));
      const inserted = insertTask.get(values);
      insertCreatedEvent.run({ taskId: row.id, at: row.createdAt, message: event.message, data: event.data ?? null });
      return inserted;
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
      return workingDuplicate.get({ owner, kind, dedupeKey, now });
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
