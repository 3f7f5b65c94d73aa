// The drizzle database over node-postgres, or a transaction of it: every query group runs on either.
import type { PgDatabase } from 'drizzle-orm/pg-core';
import type { NodePgQueryResultHKT } from 'drizzle-orm/node-postgres';
import { sql } from 'drizzle-orm';
import type * as schema from './schema/index.ts';

export type PgDb = PgDatabase<NodePgQueryResultHKT, typeof schema>;

/**
 * The database's clock in epoch ms: the start of the current statement, so one statement judges
 * every row at one instant, and each statement of a long transaction at its own (a write late in
 * an apply is judged when it is made, not when the transaction began). Never a node's clock.
 */
export const NOW_MS = sql<number>`floor(extract(epoch from statement_timestamp()) * 1000)::bigint`;

/**
 * The database's clock when the expression is evaluated, not when the statement began: for a check
 * made after the statement waited for a row lock (lease-edge.ts).
 */
export const CLOCK_NOW_MS = sql<number>`floor(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/** Transaction-scoped advisory lock classes (the two-key form), so the kinds of lock never collide. */
export const LOCK_CLASS = {
  migrate: 7_160_001,
  scope: 7_160_002,
  owner: 7_160_003,
  dedupe: 7_160_004,
  siteImport: 7_160_005,
} as const;

/** The one channel every store signal is sent on; the payload is `signal:taskId`. */
export const SIGNAL_CHANNEL = 'reflow_store_signals';
