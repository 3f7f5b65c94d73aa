import { and, asc, desc, eq, inArray, isNull, lt, lte, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../connection.ts';
import { taskEvents, tasks } from '../schema/index.ts';

export type TaskRow = typeof tasks.$inferSelect;
export type NewTaskRow = typeof tasks.$inferInsert;
export type TaskEventRow = typeof taskEvents.$inferSelect;
export type TaskError = NonNullable<TaskRow['error']>;

/** The fence every write of a running attempt carries: this attempt, this claimant, still working. */
export interface AttemptFence {
  taskId: string;
  attempt: number;
  claimedBy: string;
}

const live = (now: number) => sql`${tasks.expiresAt} > ${now}`;
const fenced = (f: AttemptFence) =>
  and(eq(tasks.id, f.taskId), eq(tasks.attempt, f.attempt), eq(tasks.claimedBy, f.claimedBy), eq(tasks.status, 'working'));

export function taskQueries(db: Db) {
  const getById = db.select().from(tasks).where(eq(tasks.id, sql.placeholder('id'))).prepare();

  return {
    insert(row: NewTaskRow, event: { message: string; data?: unknown }): TaskRow {
      return db.transaction((tx) => {
        const inserted = tx.insert(tasks).values(row).returning().get();
        tx.insert(taskEvents)
          .values({ taskId: row.id, at: row.createdAt, attempt: 0, kind: 'created', ...event })
          .run();
        return inserted;
      });
    },

    get(id: string): TaskRow | undefined {
      return getById.get({ id });
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

    /** Claims the oldest runnable task for `claimedBy`, bumping its attempt. */
    claimNext(claimedBy: string, now: number, leaseMs: number): TaskRow | undefined {
      return db.transaction((tx) => {
        const next = tx
          .select({ id: tasks.id })
          .from(tasks)
          .where(
            and(
              eq(tasks.status, 'working'),
              or(isNull(tasks.claimedBy), lt(tasks.leaseExpiresAt, now)),
              live(now),
            ),
          )
          .orderBy(asc(tasks.createdAt), asc(tasks.id))
          .limit(1)
          .get();
        if (!next) return undefined;
        return tx
          .update(tasks)
          .set({
            claimedBy,
            attempt: sql`${tasks.attempt} + 1`,
            leaseExpiresAt: now + leaseMs,
            startedAt: sql`coalesce(${tasks.startedAt}, ${now})`,
          })
          .where(eq(tasks.id, next.id))
          .returning()
          .get();
      });
    },

    renewLease(fence: AttemptFence, until: number): boolean {
      return db.update(tasks).set({ leaseExpiresAt: until }).where(fenced(fence)).run().changes === 1;
    },

    /** Records a progress message; false when the attempt lost its fence (cancelled, superseded). */
    progress(fence: AttemptFence, now: number, message: string, data?: unknown): boolean {
      return db.transaction((tx) => {
        const ok =
          tx.update(tasks).set({ statusMessage: message, lastUpdatedAt: now }).where(fenced(fence)).run().changes === 1;
        if (ok) tx.insert(taskEvents).values({ taskId: fence.taskId, at: now, attempt: fence.attempt, kind: 'progress', message, data }).run();
        return ok;
      });
    },

    /**
     * Writes a terminal state for a running attempt. Call inside a transaction together with the
     * work it records; throws StaleAttemptError so that transaction rolls back when the fence fails.
     */
    finish(
      fence: AttemptFence,
      now: number,
      outcome: { status: 'completed'; result: string; message: string } | { status: 'failed'; error: TaskError; message: string },
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
        .where(fenced(fence))
        .run().changes;
      if (changes !== 1) throw new StaleAttemptError(fence);
      db.insert(taskEvents)
        .values({ taskId: fence.taskId, at: now, attempt: fence.attempt, kind: outcome.status, message: outcome.message })
        .run();
    },

    /** Gives a claimed task back to the queue (for a retry, or on shutdown). */
    release(fence: AttemptFence, now: number, message: string): boolean {
      return db.transaction((tx) => {
        const ok = tx.update(tasks).set({ claimedBy: null, leaseExpiresAt: null, lastUpdatedAt: now }).where(fenced(fence)).run().changes === 1;
        if (ok) tx.insert(taskEvents).values({ taskId: fence.taskId, at: now, attempt: fence.attempt, kind: 'released', message }).run();
        return ok;
      });
    },

    /** Moves a non-terminal task to `cancelled`. False when it was already terminal (or unknown). */
    cancel(id: string, now: number, message: string, by: string): boolean {
      return db.transaction((tx) => {
        const row = tx
          .update(tasks)
          .set({ status: 'cancelled', statusMessage: message, lastUpdatedAt: now, finishedAt: now, leaseExpiresAt: null })
          .where(and(eq(tasks.id, id), inArray(tasks.status, ['working', 'input_required'])))
          .returning({ attempt: tasks.attempt })
          .get();
        if (row) tx.insert(taskEvents).values({ taskId: id, at: now, attempt: row.attempt, kind: 'cancelled', message, data: { by } }).run();
        return row !== undefined;
      });
    },

    /** Fails a task that has used up its attempts, without needing its (lost) fence. */
    failExhausted(id: string, now: number, error: TaskError): boolean {
      return db.transaction((tx) => {
        const row = tx
          .update(tasks)
          .set({ status: 'failed', statusMessage: error.message, error, lastUpdatedAt: now, finishedAt: now, claimedBy: null, leaseExpiresAt: null })
          .where(and(eq(tasks.id, id), eq(tasks.status, 'working')))
          .returning({ attempt: tasks.attempt })
          .get();
        if (row) tx.insert(taskEvents).values({ taskId: id, at: now, attempt: row.attempt, kind: 'failed', message: error.message }).run();
        return row !== undefined;
      });
    },

    /** Working tasks claimed by someone other than `me`: on start, their claimant is a dead process. */
    releaseForeignClaims(me: string, now: number): number {
      return db
        .update(tasks)
        .set({ claimedBy: null, leaseExpiresAt: null, lastUpdatedAt: now })
        .where(and(eq(tasks.status, 'working'), ne(tasks.claimedBy, me)))
        .run().changes;
    },

    /** Working tasks that have used every attempt and whose last claim is gone or lapsed. */
    listExhausted(now: number): TaskRow[] {
      return db
        .select()
        .from(tasks)
        .where(
          and(
            eq(tasks.status, 'working'),
            sql`${tasks.attempt} >= ${tasks.maxAttempts}`,
            or(isNull(tasks.claimedBy), lt(tasks.leaseExpiresAt, now)),
          ),
        )
        .all();
    },

    /** The TTL sweeper: deletes expired tasks (events cascade). */
    sweepExpired(now: number): number {
      return db.delete(tasks).where(lte(tasks.expiresAt, now)).run().changes;
    },

    queueDepth(now: number): number {
      return db
        .select({ n: sql<number>`count(*)` })
        .from(tasks)
        .where(and(eq(tasks.status, 'working'), isNull(tasks.claimedBy), live(now)))
        .get()!.n;
    },

    /** One owner's live tasks, newest first, a page at a time (`before`: the last row of the previous page). */
    listForOwner(owner: string, now: number, limit: number, before?: { createdAt: number; id: string }): TaskRow[] {
      const after = before ? or(lt(tasks.createdAt, before.createdAt), and(eq(tasks.createdAt, before.createdAt), lt(tasks.id, before.id))) : undefined;
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

export type TaskQueries = ReturnType<typeof taskQueries>;

export class StaleAttemptError extends Error {
  constructor(readonly fence: AttemptFence) {
    super(`Task ${fence.taskId} attempt ${fence.attempt} no longer holds its claim; its write was discarded`);
    this.name = 'StaleAttemptError';
  }
}
