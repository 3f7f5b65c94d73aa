// The queue across nodes on PostgreSQL: claiming the next runnable task under a lease, renewing and
// releasing it, and recovering claims of dead nodes; each a transition of
// lifecycle/task-transitions.ts. Every lease is judged on the database's clock.
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import { leasedRows, queuedRows, scopeHolderRows } from '../../lifecycle/task-states.ts';
import {
  claimedByAnyWhere,
  claimSet,
  exhaustedWhere,
  fencedBy,
  lapsedCandidateWhere,
  leaseSet,
  ownedBy,
  queuedCandidateWhere,
  releaseSet,
  scopeClaimedSince,
  scopeHeld,
} from '../../lifecycle/task-transitions.ts';
import type { TaskRow } from '../../queries/task-rows.ts';
import type { TaskStore } from '../../store.ts';
import { StaleAttemptError } from '../../queries/task-rows.ts';
import { CLOCK_NOW_MS, NOW_MS, type PgDb } from '../pg-db.ts';
import { taskEvents, tasks } from '../schema/index.ts';
import { dayLocks, lockScope, tryLockScope, type ScopeRange } from './scope-locks.ts';
import { countAll, first, namedStatement, taskRowFrom, type NamedStatement } from './task-sql.ts';
import { applyTransition, setClause } from './task-transition.ts';
import { fencedOnceLocked, lapseConfirmed } from './lease-edge.ts';
import { rawTransaction } from '../raw-transaction.ts';

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
const other = alias(tasks, 'other');
/**
 * Candidates tried per claim, each locked only when tried (one row at a time, so a claim never
 * holds rows another node could take meanwhile): enough to step past ones whose scope is taken.
 */
const CANDIDATES = 8;
const CONTENDED_RETRIES = 4;

const idList = (ids: readonly string[]) =>
  sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );

/**
 * Puts the working tasks of `claimants` back in the queue, each with an event and a signal (so an
 * idle node takes it at once), in one statement of `tx`.
 */
export async function releaseClaimsIn(tx: PgDb, claimants: string[], message: string): Promise<number> {
  if (claimants.length === 0) return 0;
  const released = await applyTransition(
    tx,
    releaseSet(tasks, NOW_MS),
    claimedByAnyWhere(claimants, tasks),
    { kind: 'released', message },
    'released',
  );
  return released.length;
}

/** The claim's candidate row and whether its scope's day locks were taken (true when it has no scope). */
type Candidate = {
  id: string;
  attempt: number;
  previous: string | null;
  scope_key: string | null;
  scope_start: string | null;
  scope_end: string | null;
  locked: boolean;
};

/** The caller's running tasks and the candidates tried: array parameters, so the claim's text never changes. */
const runningIds = (id: SQLWrapper) => sql`${id} = any(${sql.placeholder('running')}::text[])`;
const triedIds = (id: SQLWrapper) => sql`${id} = any(${sql.placeholder('tried')}::text[])`;

/**
 * No live holder of an overlapping scope, for the row of `tasks` (candidates in the claim's first
 * statement), judged against `holders`: the scope holders read once per claim from their partial
 * index (a handful: running, held, parked), so a candidate blocked by one costs a scan of that small
 * set, not an index probe into the table (1,000 blocked candidates stay cheap to step past).
 */
const scopeFree = sql`(${tasks.scopeKey} is null or not exists (select 1 from holders as "holder" where ${scopeHeld(
  holder,
  { key: tasks.scopeKey, start: tasks.scopeStart, end: tasks.scopeEnd, self: tasks.id },
  NOW_MS,
  runningIds,
)}))`;
/** The scope holders (on the `tasks_scope_holders` index), read once per claim. */
const HOLDERS = sql`holders as materialized (select ${sql.join(
  [
    holder.id,
    holder.status,
    holder.scopeKey,
    holder.scopeStart,
    holder.scopeEnd,
    holder.claimedBy,
    holder.heldFor,
    holder.leaseExpiresAt,
    holder.expiresAt,
  ],
  sql`, `,
)} from ${tasks} as "holder" where ${scopeHolderRows(holder)})`;

/**
 * The claim's first statement: the oldest candidate, `FOR UPDATE SKIP LOCKED` (a row another node
 * is claiming is skipped, not waited for), read along the queue's partial index in its order and,
 * taking over, along the lease index; then its scope's day locks tried (never waited for).
 */
function pickStatement(takeOverLapsed: boolean): NamedStatement {
  const candidates = (where: SQL) =>
    sql`(select ${tasks.id}, ${tasks.attempt}, ${tasks.claimedBy} as previous, ${tasks.scopeKey}, ${tasks.scopeStart}, ${tasks.scopeEnd}, ${tasks.createdAt}
         from ${tasks} where ${where} and ${scopeFree} and not ${triedIds(tasks.id)}
         order by ${tasks.createdAt}, ${tasks.id} limit 1 for update of ${tasks} skip locked)`;
  // FOR UPDATE is not allowed in a UNION's branches, so each is a CTE: at most one row of each is
  // locked, the older of the two is claimed (the other's lock lasts only until this transaction ends).
  const lapsed = takeOverLapsed ? sql`, lapsed as ${candidates(lapsedCandidateWhere(tasks, NOW_MS))}` : sql``;
  return namedStatement(
    takeOverLapsed ? 'reflow_claim_pick' : 'reflow_claim_pick_queued',
    sql`with ${HOLDERS}, queued as ${candidates(queuedCandidateWhere(tasks, NOW_MS))}${lapsed}
        select c.id, c.attempt, c.previous, c.scope_key, c.scope_start, c.scope_end,
               case when c.scope_key is null then true else ${dayLocks(sql`c.scope_key`, sql`c.scope_start`, sql`c.scope_end`, 'try')} end as locked
        from (select * from queued${takeOverLapsed ? sql` union all select * from lapsed` : sql``} order by created_at, id limit 1) c`,
  );
}
const PICK = { lapsedToo: pickStatement(true), queuedOnly: pickStatement(false) };

/**
 * The claim's second statement: the claim itself and its events, in one. For a scoped task the
 * overlap test runs again here: a NEW statement, so its snapshot sees every claim committed before
 * this transaction took the day locks. A claim on a row still marked claimed means its lease lapsed
 * (its claimant stopped renewing): both events in one INSERT, in order (their ids order a history).
 */
const CLAIM = namedStatement(
  'reflow_claim',
  sql`with moved as (update ${tasks} set ${setClause(
    claimSet(
      sql.placeholder('claimedBy') as unknown as string,
      sql.placeholder('leaseMs') as unknown as number,
      tasks,
      NOW_MS,
    ),
  )}
      where ${tasks.id} = ${sql.placeholder('id')}::text and (${sql.placeholder('scopeKey')}::text is null or not exists (select 1 from ${tasks} as "holder" where ${scopeHeld(
        holder,
        {
          key: sql`${sql.placeholder('scopeKey')}::text`,
          start: sql`${sql.placeholder('scopeStart')}::bigint`,
          end: sql`${sql.placeholder('scopeEnd')}::bigint`,
          self: sql`${sql.placeholder('id')}::text`,
        },
        NOW_MS,
        runningIds,
        lapseConfirmed,
      )}))
      returning *),
    events as (insert into task_events (task_id, at, attempt, kind, message, data)
      select moved.id, ${NOW_MS}, e.attempt, e.kind, e.message, e.data from moved, lateral (values
        (1, moved.attempt - 1, 'released', 'The lease of attempt ' || (moved.attempt - 1) || ' lapsed; reclaimed', null::json),
        (2, moved.attempt, 'claimed', 'Attempt ' || moved.attempt || ' started', json_build_object('by', ${sql.placeholder('claimedBy')}::text))
      ) as e(n, attempt, kind, message, data)
      where e.n = 2 or ${sql.placeholder('previous')}::boolean order by e.n)
    select * from moved`,
);

export function taskClaimQueries(db: PgDb, pool: pg.Pool): ClaimQueries {
  const queued = sql`${queuedRows(tasks)} and ${tasks.expiresAt} > ${NOW_MS}`;

  /**
   * One claim transaction on a connection of its own (two named statements between BEGIN and
   * COMMIT); `contended` when a candidate was skipped because another transaction held one of its
   * scope's day locks.
   */
  const claimOnce = async (
    claimedBy: string,
    leaseMs: number,
    running: string[],
    takeOverLapsed: boolean,
  ): Promise<{ claimed: TaskRow | undefined; contended: boolean }> => {
    return rawTransaction(pool, async (client) => {
      let contended = false;
      let claimed: TaskRow | undefined;
      // Never one of the caller's own running tasks, nor a candidate already tried.
      const tried: string[] = [...running];
      const pick = takeOverLapsed ? PICK.lapsedToo : PICK.queuedOnly;
      for (let i = 0; i < CANDIDATES && !claimed; i++) {
        const candidate = first(
          (await client.query<Candidate>({ ...pick, values: pick.values({ running, tried }) })).rows,
        );
        if (!candidate) break;
        tried.push(candidate.id);
        if (!candidate.locked) {
          contended = true;
          continue;
        }
        const { rows } = await client.query<Record<string, unknown>>({
          ...CLAIM,
          values: CLAIM.values({
            id: candidate.id,
            claimedBy,
            leaseMs,
            running,
            previous: candidate.previous !== null,
            scopeKey: candidate.scope_key,
            scopeStart: candidate.scope_start,
            scopeEnd: candidate.scope_end,
          }),
        });
        if (rows.length === 1) claimed = taskRowFrom(rows[0]);
      }
      return { claimed, contended };
    });
  };

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
     * claim (its day locks, then the overlap test in a new statement), no other task holds an
     * overlapping scope, and none was claimed since its lease lapsed (scopeClaimedSince: one that has
     * finished since holds nothing, but may have written to its days). Costs no attempt.
     */
    resumeLease: async (fence, leaseMs) => {
      for (let round = 1; ; round++) {
        const outcome = await db.transaction(async (tx): Promise<'resumed' | 'lost' | 'contended'> => {
          const row = first(
            await tx
              .select({ scopeKey: tasks.scopeKey, scopeStart: tasks.scopeStart, scopeEnd: tasks.scopeEnd })
              .from(tasks)
              .where(ownedBy(fence, tasks, NOW_MS))
              .for('update'),
          );
          if (!row) return 'lost';
          let scopeFreeNow = sql``;
          if (row.scopeKey !== null) {
            if (!(await tryLockScope(tx, row as ScopeRange))) return 'contended';
            const scope = { key: row.scopeKey, start: row.scopeStart!, end: row.scopeEnd!, self: fence.taskId };
            // No holder now, and none claimed since this lease (the row's own) lapsed.
            scopeFreeNow = sql` and not exists (select 1 from ${tasks} as "holder" where ${scopeHeld(holder, scope, NOW_MS, [], lapseConfirmed)})
              and not exists (select 1 from ${taskEvents} join ${tasks} as "other" on ${scopeClaimedSince(other, taskEvents, scope, tasks.leaseExpiresAt)})`;
          }
          const resumed = await applyTransition(
            tx,
            leaseSet(leaseMs, NOW_MS),
            sql`${ownedBy(fence, tasks, NOW_MS)}${scopeFreeNow}`,
          );
          return resumed.length === 1 ? 'resumed' : 'lost';
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
          .where(sql`${tasks.id} = ${fence.taskId}`),
      );
      if (row?.scopeKey != null) await lockScope(db, row as ScopeRange);
      const held = await db
        .select({ id: tasks.id })
        .from(tasks)
        .where(fencedBy(fence, tasks, NOW_MS))
        .for('update');
      if (held.length !== 1) throw new StaleAttemptError(fence);
    },

    /** Judged once it has the row (lease-edge.ts): a renewal that waited past its lease is refused. */
    renewLease: async (fence, leaseMs) =>
      (await applyTransition(db, leaseSet(leaseMs, CLOCK_NOW_MS), fencedOnceLocked(fence))).length === 1,

    /** Owned, not fenced: giving a task back is allowed after a lapse (it only shrinks what is held). */
    release: async (fence, message, options = {}) =>
      (
        await applyTransition(
          db,
          releaseSet(tasks, NOW_MS, options.refundAttempt),
          ownedBy(fence, tasks, NOW_MS),
          { attempt: fence.attempt, kind: 'released', message },
          'released',
        )
      ).length === 1,

    claimants: async () =>
      (await db.selectDistinct({ claimedBy: tasks.claimedBy }).from(tasks).where(leasedRows(tasks))).map(
        (r) => r.claimedBy!,
      ),

    releaseClaimsOf: (claimants, message) => releaseClaimsIn(db, claimants, message),

    listExhausted: (running = []): Promise<TaskRow[]> =>
      db
        .select()
        .from(tasks)
        .where(
          sql`${exhaustedWhere(tasks, NOW_MS)}${running.length ? sql` and ${tasks.id} not in (${idList(running)})` : sql``}`,
        ),

    queueDepth: async () => (await db.select({ n: countAll }).from(tasks).where(queued)).at(0)!.n,

    queueOrder: () =>
      db
        .select({ createdAt: tasks.createdAt, id: tasks.id })
        .from(tasks)
        .where(queued)
        .orderBy(tasks.createdAt, tasks.id),
  };
}
