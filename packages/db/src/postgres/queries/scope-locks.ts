// Scope exclusion across nodes: one transaction-scoped advisory lock per day a scope covers, so two
// scopes contend only where their days meet, and reflows of disjoint windows claim and apply at once.
// Days are UTC days (the store knows no time zone): two overlapping scopes share the UTC day of any
// instant they share, so they always contend; two disjoint ones share at most the UTC day their
// boundary falls in, which costs a moment's wait, never a wrong answer.
import { sql } from 'drizzle-orm';
import { LOCK_CLASS, type PgDb } from '../pg-db.ts';

const DAY_MS = 86_400_000;

export interface ScopeRange {
  scopeKey: string;
  scopeStart: number;
  scopeEnd: number;
}

/** The UTC day numbers `scope` covers, in order, as a set-returning SQL expression (`day`); each lock is `key:day`. */
function dayKeys({ scopeStart, scopeEnd }: ScopeRange) {
  const first = Math.floor(scopeStart / DAY_MS);
  const last = Math.floor(Math.max(scopeStart, scopeEnd - 1) / DAY_MS);
  return sql`generate_series(${first}::bigint, ${last}::bigint) as day`;
}

/** Takes every day lock of `scope` without waiting; false when another transaction holds one of them. */
export async function tryLockScope(tx: PgDb, scope: ScopeRange): Promise<boolean> {
  const [{ locked }] = (
    await tx.execute<{ locked: boolean }>(
      sql`select bool_and(pg_try_advisory_xact_lock(${LOCK_CLASS.scope}, hashtext(${scope.scopeKey} || ':' || day))) as locked from ${dayKeys(scope)}`,
    )
  ).rows;
  return locked;
}

/**
 * Takes every day lock of `scope`, waiting (bounded by the connection's lock_timeout) for holders to
 * commit; in day order, so two transactions taking overlapping scopes never deadlock.
 */
export async function lockScope(tx: PgDb, scope: ScopeRange): Promise<void> {
  await tx.execute(
    sql`select pg_advisory_xact_lock(${LOCK_CLASS.scope}, hashtext(${scope.scopeKey} || ':' || day)) from ${dayKeys(scope)} order by day`,
  );
}
