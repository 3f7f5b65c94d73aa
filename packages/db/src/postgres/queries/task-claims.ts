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
import { StaleAttemptError } from '../../queries/task-rows.ts';
import { NOW_MS, type PgDb } from '../pg-db.ts';
import { taskEvents, tasks } from '../schema/index.ts';
import { lockScope, tryLockScope, type ScopeRange } from './scope-locks.ts';
import { countAll, fenced, live, notify, first, owned } from './task-sql.ts';

type ClaimQueries = Pick<
  TaskStore,
  | 'claimNext'
  | 'renewLease'
  | 'resumeLease'
  | 'holdScope'
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

  /** Whether another live holder's scope overlaps `scope` (a NEW statement: it sees every claim committed before). */
  const scopeTaken = async (tx: PgDb, id: string, scope: ScopeRange, running: string[]) =>
    (
      await tx
        .select({ one: sql`1` })
        .from(holder)
        .where(
          scopeHolder(
            sql`${scope.scopeKey}`,
            sql`${scope.scopeStart}::bigint`,
            sql`${scope.scopeEnd}::bigint`,
            sql`${id}`,
            running,
          ),
        )
        .limit(1)
    ).length > 0;

  /** One claim transaction; `contended` when a candidate was skipped because another transaction held one of its scope's day locks. */
  const claimOnce = (claimedBy: string, leaseMs: number, running: string[], takeOverLapsed: boolean) =>
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
                takeOverLapsed
                  ? or(isNull(tasks.claimedBy), lt(tasks.leaseExpiresAt, NOW_MS))
                  : isNull(tasks.claimedBy),
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
          const scope = candidate as ScopeRange;
          if (!(await tryLockScope(tx, scope))) {
            contended = true;
            continue;
          }
          if (await scopeTaken(tx, candidate.id, scope, running)) continue;
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
     * advisory lock on each day of its scope (scope-locks.ts), `pg_try_advisory_xact_lock` (never
     * waits, so no deadlock; a candidate one of whose days another claim or apply holds is skipped,
     * and the claim tried again shortly).
     * (3) Then, in a NEW statement, the overlap test again. Under READ COMMITTED each statement
     * reads a snapshot taken when it starts, and an advisory lock is released only after its
     * transaction's commit is visible; every claim of a scoped task holds its key's lock until it
     * commits (and every apply holds them until it commits, holdScope); so the test in (3) sees every
     * claim of an overlapping task committed before, and none can commit while we hold the locks. Only a claim makes a task a new scope holder (create,
     * answer and release make none), so two overlapping scopes are never both held, whichever nodes
     * claim them. (4) `UPDATE … RETURNING` the claimed row. Up to CANDIDATES candidates are tried.
     */
    claimNext: async (claimedBy, leaseMs, running = [], options = {}) => {
      // A candidate skipped only because another node held one of its day locks for a moment may run
      // once that transaction commits (a few ms): try again briefly rather than report an empty queue.
      for (let round = 1; ; round++) {
        const { claimed, contended } = await claimOnce(claimedBy, leaseMs, running, options.takeOverLapsed ?? true);
        if (claimed || !contended || round === CONTENDED_RETRIES) return claimed;
        await new Promise((resolve) => setTimeout(resolve, 5 * round));
      }
    },

    /**
     * A lapsed holder asks for its lease again: allowed while it still owns the attempt and, as for a
     * claim (its day locks, then the overlap test in a new statement), no other task took an
     * overlapping scope meanwhile. Costs no attempt: the attempt goes on.
     */
    resumeLease: async (fence, leaseMs) => {
      for (let round = 1; ; round++) {
        const outcome = await db.transaction(async (tx): Promise<'resumed' | 'lost' | 'contended'> => {
          const row = first(
            await tx
              .select({ scopeKey: tasks.scopeKey, scopeStart: tasks.scopeStart, scopeEnd: tasks.scopeEnd })
              .from(tasks)
              .where(owned(fence))
              .for('update'),
          );
          if (!row) return 'lost';
          if (row.scopeKey !== null) {
            if (!(await tryLockScope(tx, row as ScopeRange))) return 'contended';
            if (await scopeTaken(tx, fence.taskId, row as ScopeRange, [])) return 'lost';
          }
          await tx
            .update(tasks)
            .set({ leaseExpiresAt: sql`${NOW_MS} + ${leaseMs}::bigint` })
            .where(owned(fence));
          return 'resumed';
        });
        if (outcome !== 'contended') return outcome === 'resumed';
        if (round === CONTENDED_RETRIES) return false;
        await new Promise((resolve) => setTimeout(resolve, 5 * round));
      }
    },

    /**
     * First statements of the transaction that writes an attempt's work: its scope's day locks
     * (waiting for an overlapping apply or claim to commit), then its fence, row locked. From here to
     * COMMIT no overlapping claim can commit, so the apply's plain reads of the rooms it writes see
     * every booking an overlapping task wrote before.
     */
    holdScope: async (fence) => {
      const row = first(
        await db
          .select({ scopeKey: tasks.scopeKey, scopeStart: tasks.scopeStart, scopeEnd: tasks.scopeEnd })
          .from(tasks)
          .where(eq(tasks.id, fence.taskId)),
      );
      if (row?.scopeKey != null) await lockScope(db, row as ScopeRange);
      const held = await db.select({ id: tasks.id }).from(tasks).where(fenced(fence)).for('update');
      if (held.length !== 1) throw new StaleAttemptError(fence);
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
          // Owned, not fenced: giving a task back is allowed after a lapse (it only shrinks what is held).
          .where(owned(fence))
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
