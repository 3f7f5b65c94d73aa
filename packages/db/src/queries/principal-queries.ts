import { and, eq, sql } from 'drizzle-orm';
import { openRows } from '../lifecycle/task-states.ts';
import type { Db } from '../connection.ts';
import { principalBuckets, tasks } from '../schema/index.ts';

/** What taking a creation token answers: taken, or how long until one is there. */
export type TokenTaken = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * A token bucket's state after refilling it from `at` to `now` (never above `burst`), and whether
 * one token can be taken. Shared by both stores' queries, so they judge the same way.
 */
export function refillBucket(
  bucket: { tokens: number; refilledAt: number } | undefined,
  burst: number,
  perMinute: number,
  now: number,
): { tokens: number; taken: TokenTaken } {
  const refillPerMs = perMinute / 60_000;
  const tokens = bucket ? Math.min(burst, bucket.tokens + Math.max(0, now - bucket.refilledAt) * refillPerMs) : burst;
  if (tokens >= 1) return { tokens: tokens - 1, taken: { ok: true } };
  return { tokens, taken: { ok: false, retryAfterMs: Math.ceil((1 - tokens) / refillPerMs) } };
}

/** What the abuse limits need to know about one principal's tasks. */
export function principalQueries(db: Db, clock: () => number) {
  const active = db
    .select({ n: sql<number>`count(*)` })
    .from(tasks)
    .where(and(eq(tasks.owner, sql.placeholder('owner')), openRows(tasks, sql`${sql.placeholder('now')}`)))
    .prepare();
  return {
    /** Tasks of `owner` not yet terminal (and not expired). */
    activeTaskCount(owner: string): number {
      const now = clock();
      return active.get({ owner, now })!.n;
    },

    /** Takes one creation token from `principal`'s bucket (read and written under the write lock). */
    takeToken(principal: string, burst: number, perMinute: number): TokenTaken {
      const now = clock();
      return db.$client
        .transaction(() => {
          const bucket = db.select().from(principalBuckets).where(eq(principalBuckets.principal, principal)).get();
          const next = refillBucket(bucket, burst, perMinute, now);
          const refilledAt = Math.max(now, bucket?.refilledAt ?? now);
          db.insert(principalBuckets)
            .values({ principal, tokens: next.tokens, refilledAt })
            .onConflictDoUpdate({ target: principalBuckets.principal, set: { tokens: next.tokens, refilledAt } })
            .run();
          return next.taken;
        })
        .immediate();
    },
  };
}
