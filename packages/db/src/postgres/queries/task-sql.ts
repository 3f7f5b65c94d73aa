// The pieces of SQL the task queries share: liveness and the attempt fence, judged on the database's
// clock, and the signal sent inside the transaction that made the change.
import { and, eq, sql } from 'drizzle-orm';
import type { AttemptFence } from '../../queries/task-rows.ts';
import type { StoreSignal } from '../../store.ts';
import { NOW_MS, SIGNAL_CHANNEL, type PgDb } from '../pg-db.ts';
import { tasks } from '../schema/index.ts';

export const live = () => sql`${tasks.expiresAt} > ${NOW_MS}`;

/** What an attempt still owns after its lease lapsed, as on SQLite (queries/task-rows.ts `owned`). */
export const owned = (f: AttemptFence) =>
  and(
    eq(tasks.id, f.taskId),
    eq(tasks.attempt, f.attempt),
    eq(tasks.claimedBy, f.claimedBy),
    eq(tasks.status, 'working'),
    live(),
  );

/** The write guard of an attempt, as on SQLite: it owns the task and its lease holds now. */
export const fenced = (f: AttemptFence) => and(owned(f), sql`${tasks.leaseExpiresAt} >= ${NOW_MS}`);

/** NOTIFY inside the caller's transaction: listeners hear it only once (and if) it commits. */
export async function notify(db: PgDb, signal: StoreSignal, taskId: string): Promise<void> {
  await db.execute(sql`select pg_notify(${SIGNAL_CHANNEL}, ${`${signal}:${taskId}`})`);
}

/** `count(*)` as a JS number (PostgreSQL's count is a bigint, which node-postgres reads as a string). */
export const countAll = sql<number>`count(*)::int`;

/** The first row of a result, or undefined when there is none. */
export const first = <T>(rows: T[]): T | undefined => rows[0];
