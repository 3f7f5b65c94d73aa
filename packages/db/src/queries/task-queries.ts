import { and, asc, desc, eq, inArray, isNotNull, isNull, lt, lte, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import type { Db } from '../connection.ts';
import { expiredTasks, taskEvents, tasks } from '../schema/index.ts';

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
/** How long a tombstone of an expired task is kept, so its owner hears "expired" rather than "not found". */
export const TOMBSTONE_RETENTION_MS = 7 * 86_400_000;
const holder = alias(tasks, 'holder');
export const fenced = (f: AttemptFence) =>
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
      }, { behavior: 'immediate' });
    },

    /**
     * Inserts the task unless the same owner already has identical work (same dedupe key) under
     * way; one write transaction, so two processes cannot both insert the same work.
     */
    createOrFind(row: NewTaskRow, event: { message: string; data?: unknown }, now: number, beforeInsert?: () => void): { task: TaskRow; created: boolean } {
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
          tx.insert(taskEvents).values({ taskId: row.id, at: row.createdAt, attempt: 0, kind: 'created', ...event }).run();
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

    /**
     * Claims the oldest runnable task for `claimedBy`, bumping its attempt. Runnable: working,
     * unclaimed or with a lapsed lease, attempts left, and no live claim or parked task on an
     * overlapping scope. Oldest first, so an answered task runs before younger overlapping ones.
     */
    claimNext(claimedBy: string, now: number, leaseMs: number): TaskRow | undefined {
      return db.transaction((tx) => {
        const scopeBusy = tx
          .select({ one: sql`1` })
          .from(holder)
          .where(
            and(
              eq(holder.scopeKey, tasks.scopeKey),
              lt(holder.scopeStart, tasks.scopeEnd),
              sql`${holder.scopeEnd} > ${tasks.scopeStart}`,
              sql`${holder.id} <> ${tasks.id}`,
              or(
                and(eq(holder.status, 'working'), isNotNull(holder.claimedBy), sql`${holder.leaseExpiresAt} >= ${now}`),
                // A task parked for input (an approval) still owns its plan for those days: an
                // overlapping task waits until it is answered, cancelled or expired.
                and(eq(holder.status, 'input_required'), sql`${holder.expiresAt} > ${now}`),
              ),
            ),
          );
        const next = tx
          .select({ id: tasks.id, attempt: tasks.attempt, previous: tasks.claimedBy })
          .from(tasks)
          .where(
            and(
              eq(tasks.status, 'working'),
              or(isNull(tasks.claimedBy), lt(tasks.leaseExpiresAt, now)),
              lt(tasks.attempt, tasks.maxAttempts),
              live(now),
              or(isNull(tasks.scopeKey), sql`not exists ${scopeBusy}`),
            ),
          )
          .orderBy(asc(tasks.createdAt), asc(tasks.id))
          .limit(1)
          .get();
        if (!next) return undefined;
        const claimed = tx
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
        // A claim on a row still marked claimed means its lease lapsed: its claimant stopped renewing.
        if (next.previous)
          tx.insert(taskEvents)
            .values({ taskId: next.id, at: now, attempt: next.attempt, kind: 'released', message: `The lease of attempt ${next.attempt} lapsed; reclaimed` })
            .run();
        tx.insert(taskEvents).values({ taskId: next.id, at: now, attempt: claimed.attempt, kind: 'claimed', message: `Attempt ${claimed.attempt} started`, data: { by: claimedBy } }).run();
        return claimed;
      }, { behavior: 'immediate' });
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
      }, { behavior: 'immediate' });
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

    /**
     * Gives a claimed task back to the queue (for a retry, or on shutdown). `refundAttempt` when the
     * attempt did not fail but was interrupted on purpose (a clean shutdown): it does not count.
     */
    release(fence: AttemptFence, now: number, message: string, options: { refundAttempt?: boolean } = {}): boolean {
      return db.transaction((tx) => {
        const attempt = options.refundAttempt ? sql`${tasks.attempt} - 1` : tasks.attempt;
        const ok =
          tx.update(tasks).set({ claimedBy: null, leaseExpiresAt: null, lastUpdatedAt: now, attempt }).where(fenced(fence)).run().changes === 1;
        if (ok) tx.insert(taskEvents).values({ taskId: fence.taskId, at: now, attempt: fence.attempt, kind: 'released', message }).run();
        return ok;
      }, { behavior: 'immediate' });
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
      }, { behavior: 'immediate' });
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
      }, { behavior: 'immediate' });
    },

    /** Who holds claims on working tasks (process instance ids). */
    claimants(): string[] {
      return db
        .selectDistinct({ claimedBy: tasks.claimedBy })
        .from(tasks)
        .where(and(eq(tasks.status, 'working'), isNotNull(tasks.claimedBy)))
        .all()
        .map((r) => r.claimedBy!);
    },

    /** Puts the working tasks of dead claimants back in the queue at once, each with an event saying so. */
    releaseClaimsOf(claimants: string[], now: number, message: string): number {
      if (claimants.length === 0) return 0;
      return db.transaction((tx) => {
        const released = tx
          .update(tasks)
          .set({ claimedBy: null, leaseExpiresAt: null, lastUpdatedAt: now })
          .where(and(eq(tasks.status, 'working'), inArray(tasks.claimedBy, claimants)))
          .returning({ id: tasks.id, attempt: tasks.attempt })
          .all();
        for (const r of released) tx.insert(taskEvents).values({ taskId: r.id, at: now, attempt: r.attempt, kind: 'released', message }).run();
        return released.length;
      }, { behavior: 'immediate' });
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

    /**
     * The TTL sweeper: deletes expired tasks (events cascade), leaving a tombstone (id, owner) so
     * their owner hears "expired"; tombstones older than TOMBSTONE_RETENTION_MS go too.
     */
    sweepExpired(now: number): number {
      return db.transaction((tx) => {
        const gone = tx.delete(tasks).where(lte(tasks.expiresAt, now)).returning({ id: tasks.id, owner: tasks.owner }).all();
        for (const t of gone) tx.insert(expiredTasks).values({ id: t.id, owner: t.owner, expiredAt: now }).onConflictDoNothing().run();
        tx.delete(expiredTasks).where(lt(expiredTasks.expiredAt, now - TOMBSTONE_RETENTION_MS)).run();
        return gone.length;
      }, { behavior: 'immediate' });
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
