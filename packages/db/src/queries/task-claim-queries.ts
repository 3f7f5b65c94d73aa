// The queue on SQLite: claiming the next runnable task under a lease, renewing and releasing it,
// and recovering claims of dead processes; each a transition of lifecycle/task-transitions.ts.
import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import type { Db } from '../connection.ts';
import { leasedRows, queuedRows } from '../lifecycle/task-states.ts';
import {
  claimedByAnyWhere,
  claimSet,
  exhaustedLapsedWhere,
  exhaustedQueuedWhere,
  fencedBy,
  lapsedCandidateWhere,
  leaseSet,
  ownedBy,
  queuedCandidateWhere,
  releaseSet,
  scopeClaimedSince,
  scopeHeld,
} from '../lifecycle/task-transitions.ts';
import { taskEvents, tasks } from '../schema/index.ts';
import { StaleAttemptError, type TaskRow, type AttemptFence } from './task-rows.ts';
import { applyTransition, type SendSignal } from './task-transition.ts';

const holder = alias(tasks, 'holder');
const other = alias(tasks, 'other');

/** `signal` sends `released` for each task a release or a reap gives back (sqlite-store.ts sends it once committed). */
export function taskClaimQueries(db: Db, clock: () => number, signal: SendSignal) {
  // Asked on every create and, through the engine's queue snapshot, by polls: prepared once.
  const queued = sql`${queuedRows(tasks)} and ${tasks.expiresAt} > ${sql.placeholder('now')}`;
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

  /** No live holder of an overlapping scope (for a scoped row of `tasks`). */
  const scopeFree = (now: number, running: string[]) =>
    sql`(${tasks.scopeKey} is null or not exists (select 1 from ${tasks} as "holder" where ${scopeHeld(
      holder,
      { key: tasks.scopeKey, start: tasks.scopeStart, end: tasks.scopeEnd, self: tasks.id },
      now,
      running,
    )}))`;

  /** The oldest row meeting `where`, scope free, never one of `running`: read along the index `where` names. */
  const oldest = (tx: Pick<Db, 'select'>, where: SQL, now: number, running: string[]) =>
    tx
      .select({ id: tasks.id, attempt: tasks.attempt, previous: tasks.claimedBy, createdAt: tasks.createdAt })
      .from(tasks)
      .where(
        and(
          where,
          scopeFree(now, running),
          running.length
            ? sql`${tasks.id} not in (${sql.join(
                running.map((id) => sql`${id}`),
                sql`, `,
              )})`
            : undefined,
        ),
      )
      .orderBy(asc(tasks.createdAt), asc(tasks.id))
      .limit(1)
      .get();

  return {
    /**
     * Claims the oldest runnable task for `claimedBy`, bumping its attempt: the oldest queued one (on
     * the queue's partial index, in its order) or, taking over, the oldest whose lease lapsed,
     * whichever is older; attempts left, and no live holder of an overlapping scope. Oldest first, so
     * an answered task runs before younger overlapping ones. `running`: the tasks the caller is
     * running itself. It never claims them again (their lease may have lapsed in a stall of its own
     * thread or a clock jump while the attempt lives on), and they hold their scopes whatever their lease says.
     */
    claimNext(
      claimedBy: string,
      leaseMs: number,
      running: string[] = [],
      options: { takeOverLapsed?: boolean } = {},
    ): TaskRow | undefined {
      const now = clock();
      return db.transaction(
        (tx) => {
          const queuedNext = oldest(tx, queuedCandidateWhere(tasks, now), now, running);
          const lapsedNext =
            (options.takeOverLapsed ?? true) ? oldest(tx, lapsedCandidateWhere(tasks, now), now, running) : undefined;
          const next =
            !lapsedNext ||
            (queuedNext &&
              (queuedNext.createdAt < lapsedNext.createdAt ||
                (queuedNext.createdAt === lapsedNext.createdAt && queuedNext.id < lapsedNext.id)))
              ? queuedNext
              : lapsedNext;
          if (!next) return undefined;
          const claimed = tx
            .update(tasks)
            .set(claimSet(claimedBy, leaseMs, tasks, now))
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
     * A lapsed holder asks for its lease again (to now + `leaseMs`): allowed while it still owns the
     * attempt, no other task holds an overlapping scope (the claim's test) and none was claimed since
     * its lease lapsed. Costs no attempt.
     */
    resumeLease(fence: AttemptFence, leaseMs: number): boolean {
      const now = clock();
      return db.transaction(
        (tx) => {
          const row = tx
            .select({
              scopeKey: tasks.scopeKey,
              scopeStart: tasks.scopeStart,
              scopeEnd: tasks.scopeEnd,
              leaseExpiresAt: tasks.leaseExpiresAt,
            })
            .from(tasks)
            .where(ownedBy(fence, tasks, now))
            .get();
          if (!row) return false;
          if (row.scopeKey !== null) {
            const scope = { key: row.scopeKey, start: row.scopeStart!, end: row.scopeEnd!, self: fence.taskId };
            if (
              tx
                .select({ one: sql`1` })
                .from(holder)
                .where(scopeHeld(holder, scope, now, []))
                .get() ||
              tx
                .select({ one: sql`1` })
                .from(taskEvents)
                .innerJoin(other, eq(other.id, taskEvents.taskId))
                .where(scopeClaimedSince(other, taskEvents, scope, row.leaseExpiresAt!))
                .get()
            )
              return false;
          }
          return applyTransition(tx, now, leaseSet(leaseMs, now), ownedBy(fence, tasks, now)).length === 1;
        },
        { behavior: 'immediate' },
      );
    },

    /**
     * Inside the transaction that writes an attempt's work, before it: the fence must hold. SQLite's
     * write lock, taken at BEGIN IMMEDIATE, already keeps every other writer out until COMMIT.
     */
    holdScope(fence: AttemptFence): void {
      const now = clock();
      if (
        !db
          .select({ id: tasks.id })
          .from(tasks)
          .where(fencedBy(fence, tasks, now))
          .get()
      )
        throw new StaleAttemptError(fence);
    },

    /** Extends the attempt's lease to now + `leaseMs`; false when it lost its fence at `now` (then it must stop). */
    renewLease(fence: AttemptFence, leaseMs: number): boolean {
      const now = clock();
      return applyTransition(db, now, leaseSet(leaseMs, now), fencedBy(fence, tasks, now)).length === 1;
    },

    /**
     * Gives a claimed task back to the queue (for a retry, or on shutdown). `refundAttempt` when the
     * attempt did not fail but was interrupted on purpose (a clean shutdown, a store outage): it does not count.
     * Owned, not fenced: giving a task back is allowed after a lapse (it only shrinks what is held).
     */
    release(fence: AttemptFence, message: string, options: { refundAttempt?: boolean } = {}): boolean {
      const now = clock();
      const released = db.transaction(
        (tx) =>
          applyTransition(tx, now, releaseSet(tasks, now, options.refundAttempt), ownedBy(fence, tasks, now), {
            attempt: fence.attempt,
            kind: 'released',
            message,
          }),
        { behavior: 'immediate' },
      );
      for (const row of released) signal('released', row.id);
      return released.length === 1;
    },

    /** Who holds claims on working tasks (process instance ids). */
    claimants(): string[] {
      return db
        .selectDistinct({ claimedBy: tasks.claimedBy })
        .from(tasks)
        .where(leasedRows(tasks))
        .all()
        .map((r) => r.claimedBy!);
    },

    /**
     * Puts the working tasks of dead claimants back in the queue at once, each with an event saying
     * so and a signal (so an idle engine takes it at once). Also run by reapLapsed and unregister.
     */
    releaseClaimsOf(claimants: string[], message: string): number {
      const now = clock();
      if (claimants.length === 0) return 0;
      const released = db.transaction(
        (tx) =>
          applyTransition(tx, now, releaseSet(tasks, now), claimedByAnyWhere(claimants, tasks), {
            kind: 'released',
            message,
          }),
        { behavior: 'immediate' },
      );
      for (const row of released) signal('released', row.id);
      return released.length;
    },

    /** Working tasks that have used every attempt and whose last claim is gone or lapsed, except the caller's `running` ones. */
    listExhausted(running: string[] = []): TaskRow[] {
      const now = clock();
      const notMine = running.length
        ? sql` and ${tasks.id} not in (${sql.join(
            running.map((id) => sql`${id}`),
            sql`, `,
          )})`
        : sql``;
      // Each half read along its own partial index (SQLite uses one only when the query repeats its terms).
      return [exhaustedQueuedWhere(tasks), exhaustedLapsedWhere(tasks, now)].flatMap((where) =>
        db
          .select()
          .from(tasks)
          .where(sql`${where}${notMine}`)
          .all(),
      );
    },

    queueDepth(): number {
      const now = clock();
      return depth.get({ now })!.n;
    },

    /** The queue in the order it is worked: oldest first (ties by id), as claimNext takes them. */
    queueOrder(): { createdAt: number; id: string }[] {
      const now = clock();
      // Unmapped rows, [createdAt, id]: drizzle's mapping per row cost a snapshot of thousands of
      // queued tasks more than the read itself (an accept-only node's queue under load).
      return (order.values({ now }) as [number, string][]).map(([createdAt, id]) => ({ createdAt, id }));
    },
  };
}
