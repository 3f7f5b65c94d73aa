// Scope exclusion across nodes: one transaction-scoped advisory lock per day a scope covers, so two
// scopes contend only where their days meet, and reflows of disjoint windows claim and apply at once.
// Days are UTC days (the store knows no time zone): two overlapping scopes share the UTC day of any
// instant they share, so they always contend; two disjoint ones share at most the UTC day their
// boundary falls in, which costs a moment's wait, never a wrong answer.
import { sql, type SQL } from 'drizzle-orm';
import { LOCK_CLASS, type PgDb } from '../pg-db.ts';

const DAY_MS = 86_400_000;

export interface ScopeRange {
  scopeKey: string;
  scopeStart: number;
  scopeEnd: number;
}

/** The UTC day numbers a scope [start, end) covers, as a set-returning SQL expression (`day`). */
const days = (start: SQL, end: SQL) =>
  sql`generate_series(floor(${start} / ${DAY_MS}::bigint)::bigint, floor(greatest(${start}, ${end} - 1) / ${DAY_MS}::bigint)::bigint) as day`;

/**
 * Every day lock of the scope `key` [start, end) (SQL expressions: values, or a row's columns), as
 * one boolean SQL expression: `try` takes them without waiting (false when another transaction holds
 * one); `wait` waits for each in day order, so two transactions taking overlapping scopes never deadlock.
 */
export function dayLocks(key: SQL, start: SQL, end: SQL, mode: 'try' | 'wait'): SQL {
  const lock = sql`(${LOCK_CLASS.scope}::int, hashtext(${key} || ':' || day))`;
  return mode === 'try'
    ? sql`(select coalesce(bool_and(pg_try_advisory_xact_lock${lock}), true) from ${days(start, end)})`
    : sql`(select count(*) >= 0 from (select pg_advisory_xact_lock${lock} from ${days(start, end)} order by day) as taken)`;
}

const asSql = ({ scopeKey, scopeStart, scopeEnd }: ScopeRange) =>
  [sql`${scopeKey}::text`, sql`${scopeStart}::bigint`, sql`${scopeEnd}::bigint`] as const;

/** Takes every day lock of `scope` without waiting; false when another transaction holds one of them. */
export async function tryLockScope(tx: PgDb, scope: ScopeRange): Promise<boolean> {
  const [{ locked }] = (
    await tx.execute<{ locked: boolean }>(sql`select ${dayLocks(...asSql(scope), 'try')} as locked`)
  ).rows;
  return locked;
}

/**
 * Takes every day lock of `scope`, waiting (bounded by the connection's lock_timeout) for holders to
 * commit; in day order, so two transactions taking overlapping scopes never deadlock.
 */
export async function lockScope(tx: PgDb, scope: ScopeRange): Promise<void> {
  await tx.execute(sql`select ${dayLocks(...asSql(scope), 'wait')}`);
}
