// Creating tasks on PostgreSQL: one statement writes a whole batch of creates (the ones group commit
// gathered, or a single one), each unless an open duplicate exists, with their `created` events and
// NOTIFYs. Run under the batch's locks (lockCreates), so the duplicate check sees every earlier commit.
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { TaskStore } from '../../store.ts';
import { alias } from 'drizzle-orm/pg-core';
import { openDuplicateWhere } from '../../lifecycle/task-transitions.ts';
import { NOW_MS, SIGNAL_CHANNEL } from '../pg-db.ts';
import { taskEvents, tasks } from '../schema/index.ts';
import { namedStatement, taskRowFrom } from './task-sql.ts';

type CreateArgs = Parameters<TaskStore['createOrFind']>;
/** A create to write: its row and its `created` event. */
export interface CreateToWrite {
  task: CreateArgs[0];
  event: CreateArgs[1];
}

/** The statement's parameters, one array each, the i-th element of each belonging to the i-th create. */
const ARRAYS = [
  ['ids', 'text'],
  ['owners', 'text'],
  ['kinds', 'text'],
  ['inputs', 'text'],
  ['dedupeKeys', 'text'],
  ['statusMessages', 'text'],
  ['ttls', 'bigint'],
  ['pollIntervals', 'int'],
  ['maxAttempts', 'int'],
  ['scopeKeys', 'text'],
  ['scopeStarts', 'bigint'],
  ['scopeEnds', 'bigint'],
  ['messages', 'text'],
  ['data', 'text'],
] as const;
type ArrayName = (typeof ARRAYS)[number][0];

/** The candidate duplicate, and the work each create of `input` asks for (lifecycle's duplicate rule). */
const t = alias(tasks, 't');
const INPUT_WORK = { owner: sql`i.owner`, kind: sql`i.kind`, dedupeKey: sql`i.dedupe_key` };

/**
 * `input` holds the creates (with `n`, their place in the batch); `existing`, the open duplicate of
 * each, if any (a lookup per create on the owner's index: LATERAL, so no plan scans the table);
 * `ins`, the rows of the rest, stamped by the database's clock. The result has one row per create:
 * its place, whether this statement created it, and the task's columns. `sig` (a plain SELECT) runs
 * only when read, so the created rows' branch reads its count.
 */
const createTasks = (array: (name: ArrayName) => SQLWrapper): SQL => {
  const unnest = sql.join(
    ARRAYS.map(([name, type]) => sql`${array(name)}::${sql.raw(type)}[]`),
    sql`, `,
  );
  return sql`with input as (
      select * from unnest(${unnest}) with ordinality as i(id, owner, kind, input, dedupe_key, status_message,
        ttl_ms, poll_interval_ms, max_attempts, scope_key, scope_start, scope_end, message, data, n)),
    existing as (
      select i.n as batch_index, false as created, t.* from input i cross join lateral (
        select * from ${tasks} t where ${openDuplicateWhere(t, INPUT_WORK, NOW_MS)} limit 1) t),
    ins as (
      insert into ${tasks} (id, owner, kind, input, dedupe_key, status, status_message, created_at, last_updated_at,
        ttl_ms, expires_at, poll_interval_ms, max_attempts, scope_key, scope_start, scope_end)
      select id, owner, kind, input::json, dedupe_key, 'working', status_message, ${NOW_MS}, ${NOW_MS}, ttl_ms,
        ${NOW_MS} + ttl_ms, poll_interval_ms, max_attempts, scope_key, scope_start, scope_end
      from input i where not exists (select 1 from existing e where e.batch_index = i.n)
      returning *),
    ev as (
      insert into ${taskEvents} (task_id, at, attempt, kind, message, data)
      select ins.id, ins.created_at, 0, 'created', i.message, i.data::json from ins join input i on i.id = ins.id),
    sig as (select pg_notify(${SIGNAL_CHANNEL}, 'created:' || id) from ins)
    select * from existing
    union all
    select i.n, true, ins.* from ins join input i on i.id = ins.id
    where (select count(*) from sig) >= 0`;
};

/** The statement built once with placeholders: a named statement, parsed and planned once per connection. */
export const CREATE_TASKS_STATEMENT = namedStatement(
  'reflow_create_tasks',
  createTasks((name) => sql.placeholder(name)),
);

/** The statement's parameters for `creates`, in CREATE_TASKS_STATEMENT's order. */
export function createTasksValues(creates: CreateToWrite[]): unknown[] {
  return CREATE_TASKS_STATEMENT.values(arraysOf(creates));
}

/** The same statement as drizzle SQL, for a transaction drizzle runs (a create inside a caller's transaction). */
export function createTasksQuery(creates: CreateToWrite[]): SQL {
  const arrays = arraysOf(creates);
  return createTasks((name) => sql.param(arrays[name]));
}

function arraysOf(creates: CreateToWrite[]): Record<ArrayName, unknown[]> {
  const column = (value: (c: CreateToWrite) => unknown) => creates.map((c) => value(c));
  return {
    ids: column((c) => c.task.id),
    owners: column((c) => c.task.owner),
    kinds: column((c) => c.task.kind),
    inputs: column((c) => JSON.stringify(c.task.input)),
    dedupeKeys: column((c) => c.task.dedupeKey),
    statusMessages: column((c) => c.task.statusMessage),
    ttls: column((c) => c.task.ttlMs),
    pollIntervals: column((c) => c.task.pollIntervalMs),
    maxAttempts: column((c) => c.task.maxAttempts),
    scopeKeys: column((c) => c.task.scopeKey ?? null),
    scopeStarts: column((c) => c.task.scopeStart ?? null),
    scopeEnds: column((c) => c.task.scopeEnd ?? null),
    messages: column((c) => c.event.message),
    data: column((c) => (c.event.data === undefined ? null : JSON.stringify(c.event.data))),
  };
}

type CreateOutcome = Awaited<ReturnType<TaskStore['createOrFind']>>;

/**
 * Writes `batch` through `run` (the statement on some connection, answering its rows) and answers
 * each create's outcome in the batch's order. In rounds, one statement each: a statement does not see
 * its own inserts, so two creates of the same work (owner, kind, dedupe key) go in different rounds,
 * and the later one finds the earlier one's row as its duplicate.
 */
export async function writeCreates(
  batch: CreateToWrite[],
  run: (round: CreateToWrite[]) => Promise<Record<string, unknown>[]>,
): Promise<CreateOutcome[]> {
  const rounds: { create: CreateToWrite; index: number }[][] = [];
  const seen = new Map<string, number>();
  batch.forEach((create, index) => {
    const work = JSON.stringify([create.task.owner, create.task.kind, create.task.dedupeKey]);
    const round = seen.get(work) ?? 0;
    seen.set(work, round + 1);
    (rounds[round] ??= []).push({ create, index });
  });
  const outcomes: CreateOutcome[] = [];
  for (const round of rounds) {
    const rows = await run(round.map((r) => r.create));
    // `batch_index` counts from 1 within the round (WITH ORDINALITY).
    for (const row of rows)
      outcomes[round[Number(row.batch_index) - 1].index] = { task: taskRowFrom(row), created: row.created === true };
  }
  return outcomes;
}
