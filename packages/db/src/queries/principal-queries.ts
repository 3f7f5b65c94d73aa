import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../connection.ts';
import { tasks } from '../schema/index.ts';

/** What the abuse limits need to know about one principal's tasks. */
export function principalQueries(db: Db) {
  const active = db
    .select({ n: sql<number>`count(*)` })
    .from(tasks)
    .where(
      and(
        eq(tasks.owner, sql.placeholder('owner')),
        inArray(tasks.status, ['working', 'input_required']),
        sql`${tasks.expiresAt} > ${sql.placeholder('now')}`,
      ),
    )
    .prepare();
  return {
    /** Tasks of `owner` not yet terminal (and not expired). */
    activeTaskCount(owner: string, now: number): number {
      return active.get({ owner, now })!.n;
    },
  };
}
