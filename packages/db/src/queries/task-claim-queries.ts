// The queue: claiming the next runnable task under a lease, renewing and releasing it, and recovering claims of dead processes.
import { and, asc, eq, inArray, isNotNull, isNull, like, lt, notInArray, or, sql, type SQL } from 'drizzle-orm';
import { alias, type AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { Db } from '../connection.ts';
import { taskEvents, tasks } from '../schema/index.ts';
import { HELD_CLAIM_PREFIX } from './input-queries.ts';
import { live, fenced, owned, StaleAttemptError, type TaskRow, type AttemptFence } from './task-rows.ts';

const holder = alias(tasks, 'holder');
type Operand = SQL | AnySQLiteColumn;

/**
 * A live holder of a scope overlapping [start, end) under `key`, other than `self`, at `now`: a
 * claimed working task whose lease holds (the fence's own definition of holding) or that the caller
 * runs itself, a task parked for input, or one held for an operator.
 */
function scopeHolder(key: Operand, start: Operand, end: Operand, self: Operand, now: number, running: string[]) {
  return and(
    sql`${holder.scopeKey} = ${key}`,
    sql`${holder.scopeStart} < ${end}`,
    sql`${holder.scopeEnd} > ${start}`,
    sql`${holder.id} <> ${self}`,
    or(
      and(
        eq(holder.status, 'working'),
        isNotNull(holder.claimedBy),
        or(sql`${holder.leaseExpiresAt} >= ${now}`, running.length ? inArray(holder.id, running) : undefined),
      ),
      // A task parked for input (an approval) still owns its plan for those days: an overlapping
      // task waits until it is answered, cancelled or expired.
      and(eq(holder.status, 'input_required'), sql`${holder.expiresAt} > ${now}`),
      // So does a task held for an operator's decision (working, with a held claim and no lease).
      and(
        eq(holder.status, 'working'),
        like(holder.claimedBy, `${HELD_CLAIM_PREFIX}%`),
        sql`${holder.expiresAt} > ${now}`,
      ),
    ),
  );
}

export function taskClaimQueries(db: Db) {
  // Asked on every create and, through the engine's queue snapshot, by polls: prepared once.
  const queued = and(
    eq(tasks.status, 'working'),
    isNull(tasks.claimedBy),
    sql`${tasks.expiresAt} > ${sql.placeholder('now')}`,
  );
  const depth = db
    .select({ n: sql<number>`count(*)` })
    .from(tasks)
    .where(queued)
    .prepare();
  const order = db
    .select({ createdAt: tasks.createdAt, id: tasks.id })
    .from(tasks)
    .where(queued)
    .orderBy(asc(tasks.createdAt), asc(tasks.id))
    .prepare();

  return {
    /**
     * Claims the oldest runnable task for `claimedBy`, bumping its attempt. Runnable: working,
     * unclaimed or with a lapsed lease, attempts left, and no live claim or parked task on an
     * overlapping scope. Oldest first, so an answered task runs before younger overlapping ones.
     * `running`: the tasks the caller is running itself. It never claims them again (their lease may
     * have lapsed in a stall of its own thread or a clock jump while the attempt lives on), and they
     * hold their scopes whatever their lease says.
     */
    claimNext(
      claimedBy: string,
      now: number,
      leaseMs: number,
      running: string[] = [],
      options: { takeOverLapsed?: boolean } = {},
    ): TaskRow | undefined {
      return db.transaction(
        (tx) => {
          const scopeBusy = tx
            .select({ one: sql`1` })
            .from(holder)
            .where(scopeHolder(tasks.scopeKey, tasks.scopeStart, tasks.scopeEnd, tasks.id, now, running));
          const next = tx
            .select({ id: tasks.id, attempt: tasks.attempt, previous: tasks.claimedBy })
            .from(tasks)
            .where(
              and(
                eq(tasks.status, 'working'),
                (options.takeOverLapsed ?? true)
                  ? or(isNull(tasks.claimedBy), lt(tasks.leaseExpiresAt, now))
                  : isNull(tasks.claimedBy),
                running.length ? notInArray(tasks.id, running) : undefined,
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
              .values({
                taskId: next.id,
                at: now,
                attempt: next.attempt,
                kind: 'released',
                message: `The lease of attempt ${next.attempt} lapsed; reclaimed`,
              })
              .run();
          tx.insert(taskEvents)
            .values({
              taskId: next.id,
              at: now,
              attempt: claimed.attempt,
              kind: 'claimed',
              message: `Attempt ${claimed.attempt} started`,
              data: { by: claimedBy },
            })
            .run();
          return claimed;
        },
        { behavior: 'immediate' },
      );
    },

    /**
     * A lapsed holder asks for its lease again (to `until`): allowed while it still owns the attempt
     * and no other task took an overlapping scope meanwhile (the claim's test). Costs no attempt.
     */
    resumeLease(fence: AttemptFence, until: number, now: number): boolean {
      return db.transaction(
        (tx) => {
          const row = tx
            .select({ scopeKey: tasks.scopeKey, scopeStart: tasks.scopeStart, scopeEnd: tasks.scopeEnd })
            .from(tasks)
            .where(owned(fence, now))
            .get();
          if (!row) return false;
          if (row.scopeKey !== null) {
            const taken = tx
              .select({ one: sql`1` })
              .from(holder)
              .where(
                scopeHolder(
                  sql`${row.scopeKey}`,
                  sql`${row.scopeStart}`,
                  sql`${row.scopeEnd}`,
                  sql`${fence.taskId}`,
                  now,
                  [],
                ),
              )
              .get();
            if (taken) return false;
          }
          return tx.update(tasks).set({ leaseExpiresAt: until }).where(owned(fence, now)).run().changes === 1;
        },
        { behavior: 'immediate' },
      );
    },

    /**
     * Inside the transaction that writes an attempt's work, before it: the fence must hold. SQLite's
     * write lock, taken at BEGIN IMMEDIATE, already keeps every other writer out until COMMIT.
     */
    holdScope(fence: AttemptFence, now: number): void {
      if (!db.select({ id: tasks.id }).from(tasks).where(fenced(fence, now)).get()) throw new StaleAttemptError(fence);
    },

    /** Extends the attempt's lease to `until`; false when it lost its fence at `now` (then it must stop). */
    renewLease(fence: AttemptFence, until: number, now: number): boolean {
      return db.update(tasks).set({ leaseExpiresAt: until }).where(fenced(fence, now)).run().changes === 1;
    },

    /**
     * Gives a claimed task back to the queue (for a retry, or on shutdown). `refundAttempt` when the
     * attempt did not fail but was interrupted on purpose (a clean shutdown): it does not count.
     */
    release(fence: AttemptFence, now: number, message: string, options: { refundAttempt?: boolean } = {}): boolean {
      return db.transaction(
        (tx) => {
          const attempt = options.refundAttempt ? sql`${tasks.attempt} - 1` : tasks.attempt;
          const ok =
            tx
              .update(tasks)
              .set({ claimedBy: null, leaseExpiresAt: null, lastUpdatedAt: now, attempt })
              // Owned, not fenced: giving a task back is allowed after a lapse (it only shrinks what is held).
              .where(owned(fence, now))
              .run().changes === 1;
          if (ok)
            tx.insert(taskEvents)
              .values({ taskId: fence.taskId, at: now, attempt: fence.attempt, kind: 'released', message })
              .run();
          return ok;
        },
        { behavior: 'immediate' },
      );
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
      return db.transaction(
        (tx) => {
          const released = tx
            .update(tasks)
            .set({ claimedBy: null, leaseExpiresAt: null, lastUpdatedAt: now })
            .where(and(eq(tasks.status, 'working'), inArray(tasks.claimedBy, claimants)))
            .returning({ id: tasks.id, attempt: tasks.attempt })
            .all();
          for (const r of released)
            tx.insert(taskEvents)
              .values({ taskId: r.id, at: now, attempt: r.attempt, kind: 'released', message })
              .run();
          return released.length;
        },
        { behavior: 'immediate' },
      );
    },

    /** Working tasks that have used every attempt and whose last claim is gone or lapsed, except the caller's `running` ones. */
    listExhausted(now: number, running: string[] = []): TaskRow[] {
      return db
        .select()
        .from(tasks)
        .where(
          and(
            eq(tasks.status, 'working'),
            sql`${tasks.attempt} >= ${tasks.maxAttempts}`,
            or(isNull(tasks.claimedBy), lt(tasks.leaseExpiresAt, now)),
            running.length ? notInArray(tasks.id, running) : undefined,
          ),
        )
        .all();
    },

    queueDepth(now: number): number {
      return depth.get({ now })!.n;
    },

    /** The queue in the order it is worked: oldest first (ties by id), as claimNext takes them. */
    queueOrder(now: number): { createdAt: number; id: string }[] {
      // Unmapped rows, [createdAt, id]: drizzle's mapping per row cost a snapshot of thousands of
      // queued tasks more than the read itself (an accept-only node's queue under load).
      return (order.values({ now }) as [number, string][]).map(([createdAt, id]) => ({ createdAt, id }));
    },
  };
}
