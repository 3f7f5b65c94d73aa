// The task row types and the fence every write of a running attempt is checked against.
import { and, eq, gte, sql } from 'drizzle-orm';
import { taskEvents, tasks } from '../schema/index.ts';

export type TaskRow = typeof tasks.$inferSelect;
export type NewTaskRow = typeof tasks.$inferInsert;
export type TaskEventRow = typeof taskEvents.$inferSelect;
export type TaskError = NonNullable<TaskRow['error']>;

/** The fence every write of a running attempt carries: this attempt, this claimant, still working, still live. */
export interface AttemptFence {
  taskId: string;
  attempt: number;
  claimedBy: string;
}

export const live = (now: number) => sql`${tasks.expiresAt} > ${now}`;
/** How long a tombstone of an expired task is kept, so its owner hears "expired" rather than "not found". */
export const TOMBSTONE_RETENTION_MS = 7 * 86_400_000;
/**
 * What an attempt still owns after its lease lapsed: this attempt, this claimant, still working, not
 * past its TTL. Enough to give the task back (a release only shrinks what it holds) or to ask for its
 * lease again (resumeLease, which re-checks its scope as a claim does); never enough to write work.
 */
export const owned = (f: AttemptFence, now: number) =>
  and(
    eq(tasks.id, f.taskId),
    eq(tasks.attempt, f.attempt),
    eq(tasks.claimedBy, f.claimedBy),
    eq(tasks.status, 'working'),
    live(now),
  );

/**
 * The write guard of an attempt: it owns the task (above) and its lease holds at `now`. A holder
 * whose lease lapsed writes nothing, since scope exclusion no longer counts it as holding its days
 * (the same definition of "holds" as the claim's), and the TTL is the same clock that tells its
 * owner "expired": once told so, the task never writes again.
 */
export const fenced = (f: AttemptFence, now: number) => and(owned(f, now), gte(tasks.leaseExpiresAt, now));

export class StaleAttemptError extends Error {
  constructor(readonly fence: AttemptFence) {
    super(`Task ${fence.taskId} attempt ${fence.attempt} no longer holds its claim; its write was discarded`);
    this.name = 'StaleAttemptError';
  }
}
