// The instant a lease runs out, across nodes. PostgreSQL judges a statement's rows on the snapshot and
// the clock of its start, so a holder's write (a renewal, a park) and another node's claim of an
// overlapping scope could each judge the lease on the wrong side of that instant: the claim reads
// the lease lapsed while the renewal that extends it is in flight, or the renewal, having waited for
// the row behind the claim's check, extends a lease that ran out meanwhile. Both then hold the days.
// So the holder's write is judged once it has the row, on the clock of that moment; and the claim
// counts a lapsed holder as gone only once it has locked the row and found the lease still lapsed.
// Both meet on the holder's row lock, whichever comes first. (SQLite writes one at a time.)
import { sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { fencedBy, type TaskColumns } from '../../lifecycle/task-transitions.ts';
import type { AttemptFence } from '../../queries/task-rows.ts';
import { CLOCK_NOW_MS, NOW_MS } from '../pg-db.ts';
import { tasks } from '../schema/index.ts';

const current = alias(tasks, 'current');

/**
 * The fence of a write that extends what its holder holds (renew, park): the row locked first (a
 * claim's check holding it makes the write wait), then the fence judged on the clock of that moment.
 */
export const fencedOnceLocked = (fence: AttemptFence): SQL =>
  sql`${tasks.id} = (select ${current.id} from ${tasks} as "current" where ${current.id} = ${fence.taskId} for no key update) and ${fencedBy(fence, tasks, CLOCK_NOW_MS)}`;

/**
 * For the claim's overlap test (scopeHeld's `lapseConfirmed`): the lapsed claim of `holder` is still
 * that claim, lapsed, on its newest row, locked. A row a write holds is skipped (that write may
 * extend the lease: the holder still holds); one renewed since the snapshot no longer matches.
 */
export const lapseConfirmed = (holder: TaskColumns): SQL =>
  sql`exists (select 1 from ${tasks} as "current" where ${current.id} = ${holder.id} and ${current.claimedBy} = ${holder.claimedBy} and ${current.attempt} = ${holder.attempt} and ${current.leaseExpiresAt} < ${NOW_MS} for share of "current" skip locked)`;
