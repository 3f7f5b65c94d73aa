// The pieces of SQL the task queries share: liveness, judged on the database's
// clock, and the signal sent inside the transaction that made the change.
import { getTableColumns, Placeholder, sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { liveRows } from '../../lifecycle/task-states.ts';
import { POLL_COLUMNS, type TaskPollRow } from '../../queries/task-poll-queries.ts';
import type { TaskRow } from '../../queries/task-rows.ts';
import type { StoreSignal } from '../../store.ts';
import { NOW_MS, SIGNAL_CHANNEL, type PgDb } from '../pg-db.ts';
import { tasks } from '../schema/index.ts';

/** `tasks` rows live on the database's clock (lifecycle's liveRows). */
export const live = () => liveRows(tasks, NOW_MS);

/** NOTIFY inside the caller's transaction: listeners hear it only once (and if) it commits. */
export async function notify(db: PgDb, signal: StoreSignal, taskId: string): Promise<void> {
  await db.execute(sql`select pg_notify(${SIGNAL_CHANNEL}, ${`${signal}:${taskId}`})`);
}

/** `count(*)` as a JS number (PostgreSQL's count is a bigint, which node-postgres reads as a string). */
export const countAll = sql<number>`count(*)::int`;

/** The first row of a result, or undefined when there is none. */
export const first = <T>(rows: T[]): T | undefined => rows[0];

const TASK_COLUMNS = Object.entries(getTableColumns(tasks));

/** A `tasks` row as the driver returns it from raw SQL (snake_case, bigints as text) as drizzle maps it. */
export function taskRowFrom(raw: Record<string, unknown>): TaskRow {
  return Object.fromEntries(
    TASK_COLUMNS.map(([key, column]) => {
      const value = raw[column.name];
      return [key, value === null || value === undefined ? null : column.mapFromDriverValue(value)];
    }),
  ) as TaskRow;
}

const POLL_CELLS = POLL_COLUMNS.map((key) => [key, tasks[key]] as const);

/** A poll's row from its cells (rowMode 'array', in POLL_COLUMNS order), mapped as drizzle maps it. */
export function pollRowFrom(cells: unknown[]): TaskPollRow {
  return Object.fromEntries(
    POLL_CELLS.map(([key, column], i) => {
      const value = cells[i];
      return [key, value === null || value === undefined ? null : column.mapFromDriverValue(value)];
    }),
  ) as TaskPollRow;
}

/** A statement built once from drizzle SQL: its name and text, and its values from named placeholders. */
export interface NamedStatement {
  name: string;
  text: string;
  values(given: Record<string, unknown>): unknown[];
}

/**
 * Builds `query` once into a named statement (node-postgres prepares it on each connection at its
 * first use): no query building per call, and no parse and plan in the database after the first.
 */
export function namedStatement(name: string, query: SQL): NamedStatement {
  const { sql: text, params } = new PgDialect().sqlToQuery(query);
  return {
    name,
    text,
    values: (given) => params.map((p) => (p instanceof Placeholder ? given[p.name] : p)),
  };
}
