// The queue across nodes: claiming the next runnable task under a lease, renewing and releasing it,
// and recovering claims of dead nodes. Every lease is judged on the database's clock.
import {
  and,
  asc,
  eq,
  inArray,
  isNotNull,
  isNull,
  like,
  lt,
  notExists,
  notInArray,
  or,
  sql,
  type SQL,
} from 'drizzle-orm';
import { alias, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { HELD_CLAIM_PREFIX } from '../../queries/input-queries.ts';
import type { TaskRow } from '../../queries/task-rows.ts';
import type { TaskStore } from '../../store.ts';
import { LOCK_CLASS, NOW_MS, type PgDb } from '../pg-db.ts';
import { taskEvents, tasks } from '../schema/index.ts';
import { countAll, fenced, live, notify, first } from './task-sql.ts';

type ClaimQueries = Pick<
  TaskStore,
  | 'claimNext'
  | 'renewLease'
  | 'release'
  | 'claimants'
  | 'releaseClaimsOf'
  | 'listExhausted'
  | 'queueDepth'
  | 'queueOrder'
>;

const holder = alias(tasks, 'holder');
/**
 * Candidates tried per claim, each locked only when tried (one row at a time, so a claim never
 * holds rows another node could take meanwhile): enough to step past ones whose scope is taken.
 */
const CANDIDATES = 8;
const CONTENDED_RETRIES = 4;

/**
 * A live holder of a scope overlapping [start, end) under `key`, other than `self`: a claimed
 * working task whose lease holds (or that the caller runs itself), a task parked for input, or one
 * held for an operator. The same rule as the SQLite claim.
 */
function scopeHolder(
  key: SQL | AnyPgColumn,
  start: SQL | AnyPgColumn,
  end: SQL | AnyPgColumn,
  self: SQL | AnyPgColumn,
  running: string[],
) {
  return and(
    sql`${holder.scopeKey} = ${key}`,
    sql`${holder.scopeStart} < ${end}`,
    sql`${holder.scopeEnd} > ${start}`,
    sql`${holder.id} <> ${self}`,
    or(
      and(
        eq(holder.status, 'working'),
        isNotNull(holder.claimedBy),
        or(sql`${holder.leaseExpiresAt} >= ${NOW_MS}`, running.length ? inArray(holder.id, running) : undefined),
      ),
      and(eq(holder.status, 'input_required'), sql`${holder.expiresAt} > ${NOW_MS}`),
      and(
        eq(holder.status, 'working'),
        like(holder.claimedBy, `${HELD_CLAIM_PREFIX}%`),
        sql`${holder.expiresAt} > ${NOW_MS}`,
      ),
    ),
  );
}

/**
 * Puts the working tasks of `claimants` back in the queue, each with an event, in `tx`; a signal
 * per task, so an idle node takes it at once.
 */
export async function releaseClaimsIn(tx: PgDb, claimants: string[], message: string): Promise<number> {
  if (claimants.length === 0) return 0;
  const released = await tx
    .update(tasks)
    .set({ claimedBy: null, leaseExpiresAt: null, lastUpdatedAt: NOW_MS })
    .where(and(eq(tasks.status, 'working'), inArray(tasks.claimedBy, claimants)))
    .returning({ id: tasks.id, attempt: tasks.attempt, at: tasks.lastUpdatedAt });
  if (released.length === 0) return 0;
  await tx
    .insert(taskEvents)
    .values(released.map((r) => ({ taskId: r.id, at: r.at, attempt: r.attempt, kind: 'released', message })));
  for (const r of released) await notify(tx, 'released', r.id);
  return released.length;
}

export function taskClaimQueries(db: PgDb): ClaimQueries {
  const queued = () => and(eq(tasks.status, 'working'), isNull(tasks.claimedBy), live());

  /** One claim transaction; `contended` when a candidate was skipped because another claim held its scope key. */
  const claimOnce = (claimedBy: string, leaseMs: number, running: string[]) =>
    db.transaction(async (tx): Promise<{ claimed: TaskRow | undefined; contended: boolean }> => {
      let contended = false;
      const tried: string[] = [...running];
      for (let i = 0; i < CANDIDATES; i++) {
        const candidate = first(
          await tx
            .select({
              id: tasks.id,
              attempt: tasks.attempt,
              previous: tasks.claimedBy,
              scopeKey: tasks.scopeKey,
              scopeStart: tasks.scopeStart,
              scopeEnd: tasks.scopeEnd,
            })
            .from(tasks)
            .where(
              and(
                eq(tasks.status, 'working'),
                or(isNull(tasks.claimedBy), lt(tasks.leaseExpiresAt, NOW_MS)),
                tried.length ? notInArray(tasks.id, tried) : undefined,
                lt(tasks.attempt, tasks.maxAttempts),
                live(),
                or(
                  isNull(tasks.scopeKey),
                  notExists(
                    tx
                      .select({ one: sql`1` })
                      .from(holder)
                      .where(scopeHolder(tasks.scopeKey, tasks.scopeStart, tasks.scopeEnd, tasks.id, running)),
                  ),
                ),
              ),
            )
            .orderBy(asc(tasks.createdAt), asc(tasks.id))
            .limit(1)
            .for('update', { of: tasks, skipLocked: true }),
        );
        if (!candidate) break;
        tried.push(candidate.id);
        if (candidate.scopeKey !== null) {
          const [{ locked }] = (
            await tx.execute<{ locked: boolean }>(
              sql`select pg_try_advisory_xact_lock(${LOCK_CLASS.scope}, hashtext(${candidate.scopeKey})) as locked`,
            )
          ).rows;
          if (!locked) {
            contended = true;
            continue;
          }
          const busy = await tx
            .select({ one: sql`1` })
            .from(holder)
            .where(
              scopeHolder(
                sql`${candidate.scopeKey}`,
                sql`${candidate.scopeStart}::bigint`,
                sql`${candidate.scopeEnd}::bigint`,
                sql`${candidate.id}`,
                running,
              ),
            )
            .limit(1);
          if (busy.length) continue;
        }
        const [claimed] = await tx
          .update(tasks)
          .set({
            claimedBy,
            attempt: sql`${tasks.attempt} + 1`,
            leaseExpiresAt: sql`${NOW_MS} + ${leaseMs}::bigint`,
            startedAt: sql`coalesce(${tasks.startedAt}, ${NOW_MS})`,
          })
          .where(eq(tasks.id, candidate.id))
          .returning();
        const at = sql`${NOW_MS}`;
        // A claim on a row still marked claimed means its lease lapsed: its claimant stopped renewing.
        if (candidate.previous)
          await tx.insert(taskEvents).values({
            taskId: candidate.id,
            at,
            attempt: candidate.attempt,
            kind: 'released',
            message: `The lease of attempt ${candidate.attempt} lapsed; reclaimed`,
          });
        await tx.insert(taskEvents).values({
          taskId: candidate.id,
          at,
          attempt: claimed.attempt,
          kind: 'claimed',
          message: `Attempt ${claimed.attempt} started`,
          data: { by: claimedBy },
        });
        return { claimed, contended };
      }
      return { claimed: undefined, contended };
    });

  return {
    /**
     * One transaction. (1) The oldest runnable candidate, `FOR UPDATE SKIP LOCKED`: a row another
     * node is claiming is skipped, not waited for, and none is claimed twice. The scope test here
     * only narrows the choice (its snapshot may be old). (2) For a scoped candidate, a transaction
     * advisory lock on its scope key, `pg_try_advisory_xact_lock` (never waits, so no deadlock; a
     * candidate whose key another claim holds is skipped, and the claim tried again shortly).
     * (3) Then, in a NEW statement, the overlap test again. Under READ COMMITTED each statement
     * reads a snapshot taken when it starts, and an advisory lock is released only after its
     * transaction's commit is visible; every claim of a scoped task holds its key's lock until it
     * commits; so the test in (3) sees every claim of an overlapping task committed before, and none
     * can commit while we hold the lock. Only a claim makes a task a new scope holder (create,
     * answer and release make none), so two overlapping scopes are never both held, whichever nodes
     * claim them. (4) `UPDATE … RETURNING` the claimed row. Up to CANDIDATES candidates are tried.
     */
    claimNext: async (claimedBy, leaseMs, running = []) => {
      // A candidate skipped only because another node held its scope key for a moment may run once
      // that claim commits (a few ms): try again briefly rather than report an empty queue.
      for (let round = 1; ; round++) {
        const { claimed, contended } = await claimOnce(claimedBy, leaseMs, running);
        if (claimed || !contended || round === CONTENDED_RETRIES) return claimed;
        await new Promise((resolve) => setTimeout(resolve, 5 * round));
      }
    },

    renewLease: async (fence, leaseMs) => {
      const rows = await db
        .update(tasks)
        .set({ leaseExpiresAt: sql`${NOW_MS} + ${leaseMs}::bigint` })
        .where(fenced(fence))
        .returning({ id: tasks.id });
      return rows.length === 1;
    },

    release: (fence, message, options = {}) =>
      db.transaction(async (tx) => {
        const attempt = options.refundAttempt ? sql`${tasks.attempt} - 1` : tasks.attempt;
        const rows = await tx
          .update(tasks)
          .set({ claimedBy: null, leaseExpiresAt: null, lastUpdatedAt: NOW_MS, attempt })
          .where(fenced(fence))
          .returning({ at: tasks.lastUpdatedAt });
        if (rows.length !== 1) return false;
        await tx
          .insert(taskEvents)
          .values({ taskId: fence.taskId, at: rows[0].at, attempt: fence.attempt, kind: 'released', message });
        await notify(tx, 'released', fence.taskId);
        return true;
      }),

    claimants: async () =>
      (
        await db
          .selectDistinct({ claimedBy: tasks.claimedBy })
          .from(tasks)
          .where(and(eq(tasks.status, 'working'), isNotNull(tasks.claimedBy)))
      ).map((r) => r.claimedBy!),

    releaseClaimsOf: (claimants, message) =>
      claimants.length === 0 ? Promise.resolve(0) : db.transaction((tx) => releaseClaimsIn(tx, claimants, message)),

    listExhausted: (running = []): Promise<TaskRow[]> =>
      db
        .select()
        .from(tasks)
        .where(
          and(
            eq(tasks.status, 'working'),
            sql`${tasks.attempt} >= ${tasks.maxAttempts}`,
            or(isNull(tasks.claimedBy), lt(tasks.leaseExpiresAt, NOW_MS)),
            running.length ? notInArray(tasks.id, running) : undefined,
          ),
        ),

    queueDepth: async () => (await db.select({ n: countAll }).from(tasks).where(queued()))[0].n,

    queueOrder: () =>
      db
        .select({ createdAt: tasks.createdAt, id: tasks.id })
        .from(tasks)
        .where(queued())
        .orderBy(asc(tasks.createdAt), asc(tasks.id)),
  };
}
