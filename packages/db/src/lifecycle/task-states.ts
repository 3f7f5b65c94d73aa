// Every state a task row can be in, declared once. The wire shows five statuses (`status`); the
// store tells more apart, from the row's columns, and each is defined here as one SQL predicate that
// both dialects run (and the schema's partial indexes use), and as one function of a row.
//
// | state          | the row                                            | moved in by              | moved out by                          |
// | -------------- | -------------------------------------------------- | ------------------------ | ------------------------------------- |
// | queued         | working, no claim, not held                        | create, release, answer  | claim, cancel, give up, expire        |
// | running        | working, claimed, lease holds                      | claim, resume            | renew (stays), finish, park, hold,    |
// |                |                                                    |                          | release, cancel, lapse (the clock)    |
// | lapsed         | working, claimed, lease past                       | the clock (no renewal)   | claim (takeover), resume, release,    |
// |                |                                                    |                          | give up, cancel, expire               |
// | held           | working, held for a party (`operator`), no lease   | hold                     | answer (the party's), cancel, expire  |
// | input_required | parked for the requester's answers, no claim       | park                     | answer (the last key), cancel, expire |
// | completed      | terminal                                           | finish                   | expire                                |
// | failed         | terminal                                           | finish, give up          | expire                                |
// | cancelled      | terminal                                           | cancel                   | expire                                |
// | expired        | past its TTL (any state above); then a tombstone   | the clock; sweep deletes | (tombstone retention ends)            |
//
// `running` and `lapsed` differ only by the store's clock: a lease lapses without a write.
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

/** The statuses a client sees (the MCP wire's), in the order the wire lists them. */
export const TASK_STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** The terminal statuses: a task in one never changes again (it only expires). */
export const TERMINAL_STATUSES = ['completed', 'failed', 'cancelled'] as const satisfies readonly TaskStatus[];
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];
/** The statuses a task can still leave: what cancel, the dedupe check and the active count look for. */
export const OPEN_STATUSES = ['working', 'input_required'] as const satisfies readonly TaskStatus[];

const terminal: ReadonlySet<string> = new Set(TERMINAL_STATUSES);
export const isTerminalStatus = (status: string): status is TerminalStatus => terminal.has(status);

/** Every state a row can be in (the table above). */
export const TASK_ROW_STATES = [
  'queued',
  'running',
  'lapsed',
  'held',
  'input_required',
  'completed',
  'failed',
  'cancelled',
  'expired',
] as const;
export type TaskRowState = (typeof TASK_ROW_STATES)[number];

/** The columns the states are judged by: a table's columns on either dialect, or bare names (an index's WHERE). */
export interface StateColumns {
  status: SQLWrapper;
  claimedBy: SQLWrapper;
  heldFor: SQLWrapper;
  leaseExpiresAt: SQLWrapper;
  expiresAt: SQLWrapper;
}

/** The columns by their bare names, for the schema's partial indexes. */
export const BARE_COLUMNS: StateColumns = {
  status: sql.raw('"status"'),
  claimedBy: sql.raw('"claimed_by"'),
  heldFor: sql.raw('"held_for"'),
  leaseExpiresAt: sql.raw('"lease_expires_at"'),
  expiresAt: sql.raw('"expires_at"'),
};

/**
 * The store's clock in a statement: a bound epoch ms on SQLite (the one host's clock), the
 * database's `statement_timestamp()` on PostgreSQL.
 */
export type StoreNow = number | SQL;

// Literals, never bound parameters: SQLite uses a partial index only when the query repeats the
// index's WHERE terms, and a parameter is not a term it can match.

/** Queued: waiting for a worker (the `tasks_queued` index). */
export const queuedRows = (t: StateColumns): SQL =>
  sql`${t.status} = 'working' and ${t.claimedBy} is null and ${t.heldFor} is null`;

/** Claimed by a worker, lease holding or not (the `tasks_leased` index): running or lapsed. */
export const leasedRows = (t: StateColumns): SQL => sql`${t.status} = 'working' and ${t.claimedBy} is not null`;

/**
 * What may hold a scope (the `tasks_scope_holders` index): claimed, held, or parked for input. A
 * lapsed claim is in it too; the overlap test judges its lease at the statement's instant.
 */
export const scopeHolderRows = (t: StateColumns): SQL =>
  sql`(${t.status} = 'input_required' or (${t.status} = 'working' and (${t.claimedBy} is not null or ${t.heldFor} is not null)))`;

/** Live at `now`: not past its TTL (any state but expired). */
export const liveRows = (t: Pick<StateColumns, 'expiresAt'>, now: StoreNow): SQL => sql`${t.expiresAt} > ${now}`;

/** Open (OPEN_STATUSES: not finished) and live: what a duplicate and the per-owner active count are. */
export const openRows = (t: StateColumns, now: StoreNow): SQL =>
  sql`${t.status} in (${sql.raw(OPEN_STATUSES.map((s) => `'${s}'`).join(', '))}) and ${liveRows(t, now)}`;

/** The SQL predicate of each live state at `now` (expired is any row past its TTL). */
export function statePredicate(state: TaskRowState, t: StateColumns, now: StoreNow): SQL {
  const live = liveRows(t, now);
  switch (state) {
    case 'queued':
      return sql`${queuedRows(t)} and ${live}`;
    case 'running':
      return sql`${leasedRows(t)} and ${t.leaseExpiresAt} >= ${now} and ${live}`;
    case 'lapsed':
      return sql`${leasedRows(t)} and ${t.leaseExpiresAt} < ${now} and ${live}`;
    case 'held':
      return sql`${t.status} = 'working' and ${t.heldFor} is not null and ${live}`;
    case 'input_required':
    case 'completed':
    case 'failed':
    case 'cancelled':
      return sql`${t.status} = ${sql.raw(`'${state}'`)} and ${live}`;
    case 'expired':
      return sql`${t.expiresAt} <= ${now}`;
  }
}

/** The predicate of any of `states`. */
export const inStates = (states: readonly TaskRowState[], t: StateColumns, now: StoreNow): SQL =>
  sql`(${sql.join(
    states.map((s) => sql`(${statePredicate(s, t, now)})`),
    sql` or `,
  )})`;

/** The state of a row at `now` (epoch ms): the same judgement as statePredicate, in JavaScript. */
export function stateOf(
  row: {
    status: TaskStatus;
    claimedBy: string | null;
    heldFor: string | null;
    leaseExpiresAt: number | null;
    expiresAt: number;
  },
  now: number,
): TaskRowState {
  if (row.expiresAt <= now) return 'expired';
  if (row.status !== 'working') return row.status;
  if (row.heldFor !== null) return 'held';
  if (row.claimedBy === null) return 'queued';
  return (row.leaseExpiresAt ?? -Infinity) >= now ? 'running' : 'lapsed';
}
