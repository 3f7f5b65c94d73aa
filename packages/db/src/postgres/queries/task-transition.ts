// A lifecycle transition on PostgreSQL in one statement, so one round trip: its UPDATE (the WHERE
// and SET of lifecycle/task-transitions.ts), its events and its NOTIFY, as data-modifying CTEs
// (SQLite's twin, queries/task-transition.ts, runs them as statements in process). Outside a
// transaction it commits by itself; inside one it is one statement of it.
import { sql, type SQL } from 'drizzle-orm';
import type { TaskSet, TransitionEvent } from '../../lifecycle/task-transitions.ts';
import type { MovedRow } from '../../queries/task-transition.ts';
import type { StoreSignal } from '../../store.ts';
import { NOW_MS, SIGNAL_CHANNEL, type PgDb } from '../pg-db.ts';
import { tasks } from '../schema/index.ts';

/** The event rows of `event` for each row of the CTE `moved`. */
export const eventsOfMoved = (event: TransitionEvent): SQL =>
  sql`insert into task_events (task_id, at, attempt, kind, message, data)
      select id, ${NOW_MS}, ${event.attempt === undefined ? sql.raw('attempt') : sql`${event.attempt}::int`}, ${event.kind}, ${event.message}, ${event.data === undefined ? null : JSON.stringify(event.data)}::json from moved`;

/** A signal per row of the CTE `moved`, heard only once (and if) the statement's transaction commits. */
export const signalsOfMoved = (signal: StoreSignal): SQL =>
  sql`select pg_notify(${SIGNAL_CHANNEL}, ${`${signal}:`} || id) from moved`;

/** Runs the transition: the rows it moved (their events written and signals queued in the same statement). */
export async function applyTransition(
  db: PgDb,
  set: TaskSet,
  where: SQL,
  event?: TransitionEvent,
  signal?: StoreSignal,
): Promise<MovedRow[]> {
  const update = db.update(tasks).set(set).where(where).returning({ id: tasks.id, attempt: tasks.attempt });
  const { rows } = await db.execute<{ id: string; attempt: number; at: string }>(
    sql`with moved as (${update.getSQL()})${event ? sql`, events as (${eventsOfMoved(event)})` : sql``}${
      signal ? sql`, signals as (${signalsOfMoved(signal)})` : sql``
    } select id, attempt, ${NOW_MS} as at${signal ? sql`, (select count(*) from signals) as signalled` : sql``} from moved`,
  );
  return rows.map((r) => ({ id: r.id, attempt: Number(r.attempt), at: Number(r.at) }));
}

/** A SET list for raw SQL (a statement built once): each column of `set` by its name. */
export function setClause(set: TaskSet): SQL {
  return sql.join(
    Object.entries(set).map(([key, value]) => sql`${sql.identifier(tasks[key as keyof TaskSet].name)} = ${value}`),
    sql`, `,
  );
}
