// What the abuse limits need to know about one principal: its unfinished tasks, its creation bucket.
import { and, eq, sql } from 'drizzle-orm';
import { openRows } from '../../lifecycle/task-states.ts';
import { refillBucket } from '../../queries/principal-queries.ts';
import type { PrincipalStore } from '../../store.ts';
import { NOW_MS, type PgDb } from '../pg-db.ts';
import { principalBuckets, tasks } from '../schema/index.ts';
import { countAll } from './task-sql.ts';

export function principalQueries(db: PgDb): PrincipalStore {
  return {
    activeTaskCount: async (owner) =>
      (
        await db
          .select({ n: countAll })
          .from(tasks)
          .where(and(eq(tasks.owner, owner), openRows(tasks, NOW_MS)))
      )[0].n,

    /**
     * The upsert makes the row exist and locks it until the transaction ends, so two nodes taking a
     * token of one principal at once take turns; the refill is judged on the database's clock.
     */
    takeToken: (principal, burst, perMinute) =>
      db.transaction(async (tx) => {
        const [locked] = await tx
          .insert(principalBuckets)
          .values({ principal, tokens: burst, refilledAt: NOW_MS })
          .onConflictDoUpdate({ target: principalBuckets.principal, set: { principal } })
          .returning({
            tokens: principalBuckets.tokens,
            refilledAt: principalBuckets.refilledAt,
            now: sql<number>`${NOW_MS}`.mapWith(Number),
          });
        const next = refillBucket(locked, burst, perMinute, locked.now);
        await tx
          .update(principalBuckets)
          .set({
            tokens: next.tokens,
            refilledAt: sql`greatest(${principalBuckets.refilledAt}, ${locked.now}::bigint)`,
          })
          .where(eq(principalBuckets.principal, principal));
        return next.taken;
      }),
  };
}
