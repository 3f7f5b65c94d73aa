// The node condition both stores run, written once (either dialect's `nodes` columns).
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { StoreNow } from '../lifecycle/task-states.ts';

/**
 * The nodes whose last heartbeat is more than `lapseMs` before `now` (the store's clock), other than
 * `reaper`, the node judging: a node never reaps itself, however late its own beat.
 */
export function lapsedNodesWhere(
  n: { id: SQLWrapper; heartbeatAt: SQLWrapper },
  now: StoreNow,
  lapseMs: number,
  reaper: string | undefined,
): SQL {
  const others = reaper === undefined ? sql`` : sql` and ${n.id} <> ${reaper}`;
  return sql`${n.heartbeatAt} < ${now} - ${lapseMs}${others}`;
}
