// The claim under a backlog: `queued` waiting tasks and `finished` done ones, written straight into
// the store's tables with SQL, then claims timed one at a time through the store itself (what a
// worker's claim costs, with no HTTP or solver around it). Each queued task has a scope of its own
// (one day, a key of its own), so the claim's scope test runs but never blocks; with `blocked`, the
// oldest `blocked` queued tasks share one scope held by a running task, so every claim must step
// past them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgresStore, openSqliteStore, type Store } from '@reflow/db';
import { percentile } from './percentile.ts';

export interface BacklogFigures {
  claims: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface Backlog {
  queued: number;
  finished: number;
  blocked: number;
}

const DAY_MS = 86_400_000;

/** The rows, as one INSERT … SELECT per kind; `series` is the dialect's row generator over i = 1..n. */
function fillStatements(backlog: Backlog, now: number, series: (n: number) => string): string[] {
  const far = now + 30 * DAY_MS;
  const columns =
    'id, owner, kind, input, dedupe_key, status, created_at, last_updated_at, ttl_ms, expires_at, poll_interval_ms, attempt, max_attempts, claimed_by, lease_expires_at, finished_at, scope_key, scope_start, scope_end';
  const { queued, finished, blocked } = backlog;
  return [
    `insert into tasks (${columns}) select 'done-' || i, 'bench', 'reflow', '{}', 'd' || i, 'completed', ${now - DAY_MS} + i, ${now}, ${30 * DAY_MS}, ${far}, 1000, 1, 3, null, null, ${now}, null, null, null from ${series(finished)}`,
    // The oldest `blocked` share the held scope ('held', day 0); the rest each a scope of their own.
    `insert into tasks (${columns}) select 'queued-' || i, 'bench', 'reflow', '{}', 'q' || i, 'working', ${now - DAY_MS / 2} + i, ${now}, ${30 * DAY_MS}, ${far}, 1000, 0, 3, null, null, null, case when i <= ${blocked} then 'held' else 'own-' || i end, ${DAY_MS}, ${2 * DAY_MS} from ${series(queued)}`,
    ...(blocked
      ? [
          `insert into tasks (${columns}) values ('holder', 'bench', 'reflow', '{}', 'h', 'working', ${now - DAY_MS}, ${now}, ${30 * DAY_MS}, ${far}, 1000, 1, 3, 'elsewhere:1', ${far}, null, 'held', ${DAY_MS}, ${2 * DAY_MS})`,
        ]
      : []),
  ];
}

async function timeClaims(store: Store, options: { claims: number; seconds: number }): Promise<BacklogFigures> {
  const times: number[] = [];
  const deadline = performance.now() + options.seconds * 1000;
  // One untimed claim first: the connection and the statement warm up.
  await store.tasks.claimNext('bench:0', 60_000);
  while (times.length < options.claims && performance.now() < deadline) {
    const t0 = performance.now();
    const claimed = await store.tasks.claimNext('bench:0', 60_000);
    times.push(performance.now() - t0);
    if (!claimed) throw new Error('the backlog ran out of claimable tasks');
  }
  times.sort((a, b) => a - b);
  return { claims: times.length, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), maxMs: times.at(-1)! };
}

/** `database`: 'file' (a SQLite file of its own) or a PostgreSQL URL. */
export async function measureClaimBacklog(
  database: string,
  backlog: Backlog,
  options: { claims: number; seconds: number },
): Promise<BacklogFigures> {
  const now = Date.now();
  if (database === 'file') {
    const dir = mkdtempSync(join(tmpdir(), 'reflow-bench-backlog-'));
    const store = openSqliteStore(join(dir, 'tasks.db'));
    try {
      await store.migrate();
      const fill = store.connection.sqlite.transaction(() => {
        for (const statement of fillStatements(
          backlog,
          now,
          (n) => `(with recursive s(i) as (select 1 union all select i + 1 from s where i < ${n}) select i from s)`,
        ))
          store.connection.sqlite.exec(statement);
      });
      fill();
      store.connection.sqlite.exec('analyze');
      return await timeClaims(store, options);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const store = await openPostgresStore(database);
  try {
    await store.migrate();
    for (const statement of fillStatements(backlog, now, (n) => `generate_series(1, ${n}) as s(i)`))
      await store.pool.query(statement);
    await store.pool.query('analyze tasks');
    return await timeClaims(store, options);
  } finally {
    await store.close();
  }
}
