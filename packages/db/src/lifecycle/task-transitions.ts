// Every change of a task row's state, declared once: from which states, under which guard, what it
// writes and which event it records. Each store runs these builders (the WHERE and the SET of each
// transition) in its own dialect (docs/architecture.md, "The PostgreSQL store", says what differs);
// neither restates a rule.
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { AttemptFence, TaskError } from '../queries/task-rows.ts';
import type { StoreSignal } from '../store.ts';
import {
  leasedRows,
  liveRows,
  openRows,
  queuedRows,
  scopeHolderRows,
  type StateColumns,
  type StoreNow,
  type TaskRowState,
  type TaskStatus,
} from './task-states.ts';

/** What guards a transition's write, besides its `from` states. */
export type TransitionGuard =
  /** The caller's attempt: this attempt and claimant, and its lease holds now (a lapsed one writes nothing). */
  | 'fenced'
  /** The caller's attempt, its lease held or lapsed: enough to give the task back or ask for the lease again. */
  | 'owned'
  /** Attempts left, and no live holder of an overlapping scope (scope exclusion). */
  | 'attempts left, scope free'
  /** Every attempt used (give up), judged again by the write itself. */
  | 'attempts used'
  /** The party the task waits on (the requester, or the one it is held for) answers a pending key. */
  | 'answerer'
  /** The claimant is dead (its node reaped or its process gone). */
  | 'dead claimant'
  | 'none';

export interface TransitionRule {
  from: readonly TaskRowState[];
  guard: TransitionGuard;
  /** The columns written, in words (the builders below write them). */
  writes: string;
  /** The event recorded in `task_events`, or none. */
  event: string | null;
  /** The signal sent when it commits, so another node acts at once instead of at its next sweep. */
  signal?: StoreSignal;
}

/** The transitions. docs/architecture.md draws the state diagram from this table. */
export const TRANSITIONS = {
  claim: {
    from: ['queued', 'lapsed'],
    guard: 'attempts left, scope free',
    writes: 'claimed_by, attempt + 1, lease, started_at (first claim)',
    event: 'claimed (and released, for a lapsed one taken over)',
  },
  renew: { from: ['running'], guard: 'fenced', writes: 'lease', event: null },
  resume: {
    from: ['running', 'lapsed'],
    guard: 'owned',
    writes: 'lease (no attempt spent; scope checked as a claim)',
    event: null,
  },
  release: {
    from: ['running', 'lapsed'],
    guard: 'owned',
    writes:
      'claimed_by and lease cleared (refunded on a clean shutdown or a store outage: max_attempts + 1, the number not reused)',
    event: 'released',
    signal: 'released',
  },
  reap: {
    from: ['running', 'lapsed'],
    guard: 'dead claimant',
    writes: 'claimed_by and lease cleared',
    event: 'released',
    signal: 'released',
  },
  progress: { from: ['running'], guard: 'fenced', writes: 'status_message', event: 'progress' },
  park: {
    from: ['running'],
    guard: 'fenced',
    writes: 'status input_required, claim and lease cleared, max_attempts + 1',
    event: 'input_required',
  },
  hold: {
    from: ['running'],
    guard: 'fenced',
    writes: 'held_for, claim and lease cleared, max_attempts + 1',
    event: 'input_required (with awaiting)',
  },
  answer: {
    from: ['input_required', 'held'],
    guard: 'answerer',
    writes: 'the last answer: status working, held_for cleared (queued again)',
    event: 'input_received',
    signal: 'answered',
  },
  finish: {
    from: ['running'],
    guard: 'fenced',
    writes: 'status completed or failed, result or error, finished_at, lease cleared',
    event: 'completed or failed',
  },
  cancel: {
    from: ['queued', 'running', 'lapsed', 'held', 'input_required'],
    guard: 'none',
    writes: 'status cancelled, finished_at, lease cleared (the claim stays, so its node hears it)',
    event: 'cancelled',
    signal: 'cancelled',
  },
  giveUp: {
    from: ['queued', 'lapsed'],
    guard: 'attempts used',
    writes: 'status failed, error, finished_at, claim and lease cleared',
    event: 'failed',
  },
  expire: { from: ['expired'], guard: 'none', writes: 'row deleted, tombstone written', event: null },
} as const satisfies Record<string, TransitionRule>;
export type TransitionName = keyof typeof TRANSITIONS;

/** The event a transition records for each row it moves; `attempt` defaults to the row's (after the write). */
export interface TransitionEvent {
  kind: string;
  message: string;
  data?: unknown;
  attempt?: number;
}

/** The task columns the transitions read and write: either dialect's `tasks` table. */
export interface TaskColumns extends StateColumns {
  id: SQLWrapper;
  attempt: SQLWrapper;
  maxAttempts: SQLWrapper;
  startedAt: SQLWrapper;
  scopeKey: SQLWrapper;
  scopeStart: SQLWrapper;
  scopeEnd: SQLWrapper;
}

/** A SET: each column's new value (a value, or SQL over the row and the clock). */
export interface TaskSet {
  status?: TaskStatus;
  statusMessage?: string;
  result?: string | null;
  error?: TaskError | null;
  lastUpdatedAt?: StoreNow;
  finishedAt?: StoreNow;
  claimedBy?: string | null;
  heldFor?: string | null;
  leaseExpiresAt?: SQL | null;
  attempt?: SQL;
  maxAttempts?: SQL;
  startedAt?: SQL;
}

/** The columns the create's duplicate test reads besides the state's. */
export interface TaskWorkColumns {
  owner: SQLWrapper;
  kind: SQLWrapper;
  dedupeKey: SQLWrapper;
}

/** The work a create asks for: an open task with all three the same is its duplicate. */
export interface TaskWork {
  owner: SQLWrapper | string;
  kind: SQLWrapper | string;
  dedupeKey: SQLWrapper | string;
}

/**
 * The create's rule: new work is written unless an open, live task of the same owner, kind and
 * dedupe key exists; then the create answers that task instead (a retried call finds its task).
 */
export const openDuplicateWhere = (t: TaskColumns & TaskWorkColumns, work: TaskWork, now: StoreNow): SQL =>
  sql`${t.owner} = ${work.owner} and ${t.kind} = ${work.kind} and ${t.dedupeKey} = ${work.dedupeKey} and ${openRows(t, now)}`;

/** The guard `owned`: this attempt of this claimant, working and live, its lease held or lapsed. */
export const ownedBy = (f: AttemptFence, t: TaskColumns, now: StoreNow): SQL =>
  sql`${t.id} = ${f.taskId} and ${t.attempt} = ${f.attempt} and ${t.claimedBy} = ${f.claimedBy} and ${t.status} = 'working' and ${liveRows(t, now)}`;

/**
 * The guard `fenced`: owned, and its lease holds at `now`. A holder whose lease lapsed writes
 * nothing, since scope exclusion no longer counts it as holding its days (the same definition of
 * "holds" as the claim's), and the TTL is the same clock that tells its owner "expired".
 */
export const fencedBy = (f: AttemptFence, t: TaskColumns, now: StoreNow): SQL =>
  sql`${ownedBy(f, t, now)} and ${t.leaseExpiresAt} >= ${now}`;

/**
 * A set of task ids in a statement: a list of values, or a dialect's own test (PostgreSQL: one array
 * parameter, so a prepared statement's text does not change with the list).
 */
export type IdSet = readonly string[] | ((id: SQLWrapper) => SQL);

/** `id` is one of `ids`. */
export function inIdSet(id: SQLWrapper, ids: IdSet): SQL {
  if (typeof ids === 'function') return ids(id);
  if (ids.length === 0) return sql`false`;
  return sql`${id} in (${sql.join(
    ids.map((v) => sql`${v}`),
    sql`, `,
  )})`;
}

/** A task's scope as a rule reads it: [start, end) under `key`, and the task itself (`self`), which no rule counts against it. */
export interface TaskScope {
  key: SQLWrapper | string;
  start: SQLWrapper | number;
  end: SQLWrapper | number;
  self: SQLWrapper | string;
}

/** A row of `t` (an alias of tasks) other than `self` whose scope overlaps `scope`'s. */
const scopeOverlaps = (t: TaskColumns, scope: TaskScope): SQL =>
  sql`${t.scopeKey} = ${scope.key} and ${t.scopeStart} < ${scope.end} and ${t.scopeEnd} > ${scope.start} and ${t.id} <> ${scope.self}`;

/**
 * A live holder of a scope overlapping [start, end) under `key` other than `self`, among the rows of
 * `holder` (an alias of tasks): a claim whose lease holds (or that the caller runs itself, `running`),
 * a task held for a party, or one parked for input (an approval still owns its plan for those days).
 * `lapseConfirmed`, where a dialect's writes can be in flight while the test runs (PostgreSQL:
 * lease-edge.ts), says whether a claim whose lease lapsed in the test's snapshot has lapsed for sure;
 * one not confirmed still holds.
 */
export function scopeHeld(
  holder: TaskColumns,
  scope: TaskScope,
  now: StoreNow,
  running: IdSet,
  lapseConfirmed?: (holder: TaskColumns) => SQL,
): SQL {
  // Held and parked rows have no claim and hold until their TTL; a claim holds while its lease does.
  const unconfirmed = lapseConfirmed ? sql` or not ${lapseConfirmed(holder)}` : sql``;
  return sql`${scopeOverlaps(holder, scope)} and ${scopeHolderRows(holder)} and ((${holder.claimedBy} is null and ${liveRows(holder, now)}) or (${holder.claimedBy} is not null and (${holder.leaseExpiresAt} >= ${now} or ${inIdSet(holder.id, running)}${unconfirmed})))`;
}

/** The columns of task_events a rule reads. */
export interface EventColumns {
  taskId: SQLWrapper;
  kind: SQLWrapper;
  at: SQLWrapper;
}

/**
 * A task other than `self`, among the rows of `other` (an alias of tasks) with their events `event`,
 * whose scope overlaps [start, end) under `key` and that was claimed at or after `since`. A lapsed
 * holder may not resume after one (resumeLease, `since` its lease's end): that attempt may have
 * written to the days its plan was made from, even if it has finished since and holds them no more.
 */
export function scopeClaimedSince(
  other: TaskColumns,
  event: EventColumns,
  scope: TaskScope,
  since: SQLWrapper | number,
): SQL {
  return sql`${event.taskId} = ${other.id} and ${event.kind} = 'claimed' and ${event.at} >= ${since} and ${scopeOverlaps(other, scope)}`;
}

/** The queue's candidates alone: what the `tasks_queued` index holds, live, attempts left. */
export const queuedCandidateWhere = (t: TaskColumns, now: StoreNow): SQL =>
  sql`${queuedRows(t)} and ${liveRows(t, now)} and ${t.attempt} < ${t.maxAttempts}`;

/** Lapsed claims (on the `tasks_leased` index) a claim may take over: attempts left. */
export const lapsedCandidateWhere = (t: TaskColumns, now: StoreNow): SQL =>
  sql`${leasedRows(t)} and ${t.leaseExpiresAt} < ${now} and ${liveRows(t, now)} and ${t.attempt} < ${t.maxAttempts}`;

export const claimSet = (claimedBy: string, leaseMs: number, t: TaskColumns, now: StoreNow): TaskSet => ({
  claimedBy,
  attempt: sql`${t.attempt} + 1`,
  leaseExpiresAt: sql`${now} + ${leaseMs}`,
  startedAt: sql`coalesce(${t.startedAt}, ${now})`,
});

export const leaseSet = (leaseMs: number, now: StoreNow): TaskSet => ({ leaseExpiresAt: sql`${now} + ${leaseMs}` });

/**
 * `release`, and `reap` (no refund). A refund (an attempt interrupted on purpose, not failed) gives
 * the task one more attempt, as a park does, rather than taking its number back: the attempt is
 * half of the fence (attempt, claimant), so a number used once is never used again, and a write the
 * released attempt still had in flight can never pass the fence of the next claim (by the same
 * claimant, too). Attempts left (`max_attempts - attempt`) are as before the claim.
 */
export const releaseSet = (t: TaskColumns, now: StoreNow, refundAttempt = false): TaskSet => ({
  claimedBy: null,
  leaseExpiresAt: null,
  lastUpdatedAt: now,
  ...(refundAttempt ? { maxAttempts: sql`${t.maxAttempts} + 1` } : {}),
});

/** `reap`: the working tasks claimed by any of `claimants`. */
export const claimedByAnyWhere = (claimants: readonly string[], t: TaskColumns): SQL =>
  sql`${leasedRows(t)} and ${t.claimedBy} in (${sql.join(
    claimants.map((c) => sql`${c}`),
    sql`, `,
  )})`;

export const progressSet = (message: string, now: StoreNow): TaskSet => ({
  statusMessage: message,
  lastUpdatedAt: now,
});

/** `park` (for the requester: input_required) or `hold` (for `awaiting`, an operator: working, held). */
export const parkSet = (t: TaskColumns, message: string, now: StoreNow, awaiting?: string): TaskSet => ({
  status: awaiting ? 'working' : 'input_required',
  statusMessage: message,
  lastUpdatedAt: now,
  claimedBy: null,
  heldFor: awaiting ?? null,
  leaseExpiresAt: null,
  // The parking attempt did its work: the run after the answer is not counted against the task.
  maxAttempts: sql`${t.maxAttempts} + 1`,
});

/** Who may answer: the requester answers input_required, `awaiting` answers a task held for it. */
export const waitingWhere = (id: string, t: TaskColumns, now: StoreNow, awaiting?: string): SQL =>
  awaiting
    ? sql`${t.id} = ${id} and ${t.status} = 'working' and ${t.heldFor} = ${awaiting} and ${liveRows(t, now)}`
    : sql`${t.id} = ${id} and ${t.status} = 'input_required' and ${liveRows(t, now)}`;

export const answerSet = (now: StoreNow, resumed: boolean, message: string): TaskSet => ({
  lastUpdatedAt: now,
  ...(resumed ? { status: 'working', statusMessage: message, heldFor: null } : {}),
});

export type TaskTerminalOutcome =
  { status: 'completed'; result: string; message: string } | { status: 'failed'; error: TaskError; message: string };

export const finishSet = (outcome: TaskTerminalOutcome, now: StoreNow): TaskSet => ({
  status: outcome.status,
  statusMessage: outcome.message,
  result: outcome.status === 'completed' ? outcome.result : null,
  error: outcome.status === 'failed' ? outcome.error : null,
  lastUpdatedAt: now,
  finishedAt: now,
  leaseExpiresAt: null,
});

/** Cancel: any state a task can still leave, live or not yet swept. */
export const cancelWhere = (id: string, t: TaskColumns): SQL =>
  sql`${t.id} = ${id} and ${t.status} in ('working', 'input_required')`;

export const cancelSet = (message: string, now: StoreNow): TaskSet => ({
  status: 'cancelled',
  statusMessage: message,
  lastUpdatedAt: now,
  finishedAt: now,
  leaseExpiresAt: null,
});

/** Every attempt used, waiting in the queue (the `tasks_queued` index). */
export const exhaustedQueuedWhere = (t: TaskColumns): SQL => sql`${queuedRows(t)} and ${t.attempt} >= ${t.maxAttempts}`;

/** Every attempt used, the last one's lease lapsed (the `tasks_leased` index). */
export const exhaustedLapsedWhere = (t: TaskColumns, now: StoreNow): SQL =>
  sql`${leasedRows(t)} and ${t.leaseExpiresAt} < ${now} and ${t.attempt} >= ${t.maxAttempts}`;

/**
 * Give up: every attempt used, and no claim or a lapsed one (never a held task). Judged again by the
 * write itself: a last attempt that renewed or resumed its lease since the sweeper listed the task keeps it.
 */
export const exhaustedWhere = (t: TaskColumns, now: StoreNow): SQL =>
  sql`((${exhaustedQueuedWhere(t)}) or (${exhaustedLapsedWhere(t, now)}))`;

export const giveUpSet = (error: TaskError, now: StoreNow): TaskSet => ({
  status: 'failed',
  statusMessage: error.message,
  error,
  lastUpdatedAt: now,
  finishedAt: now,
  claimedBy: null,
  leaseExpiresAt: null,
});
