// A lock held on the nodes table (a session idle in its transaction) stalls every heartbeat: the
// engine waits on one at a time, never stacking more behind it, and a node whose heartbeats waited
// judges nobody dead until it has watched the store for a whole lease again. PostgreSQL only: a
// SQLite file has one writer at a time by construction.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { PostgresStore } from '@reflow/db';
import { onPostgres } from '../../../scripts/test-store.mjs';
import { engineFactory, gated, until } from './engine-helper.ts';

const engines = engineFactory();
after(async () => {
  await engines.closeAll();
  await engines.removeDir();
});
const skip = onPostgres() ? {} : { skip: 'PostgreSQL only: a lock held by another session on the nodes table' };

test(
  'heartbeats blocked by a lock do not stack, and the stalled nodes reap nobody when it is released',
  skip,
  async () => {
    const leaseMs = 600;
    const path = engines.freshPath();
    const job = gated('job');
    const a = await engines.open(path, [job.handler], { leaseMs, sweepIntervalMs: 100 });
    const b = await engines.open(path, [job.handler], { leaseMs, sweepIntervalMs: 100 });
    await a.engine.start();
    await b.engine.start();
    const store = a.store as PostgresStore;
    const url = (store.pool.options as { connectionString: string }).connectionString;
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE nodes IN SHARE MODE');
      // Four leases, a dozen heartbeat intervals: each engine still waits on one heartbeat at most.
      let most = 0;
      const deadline = Date.now() + 4 * leaseMs;
      while (Date.now() < deadline) {
        // Lock requests waiting on the table, from pg_locks: pg_stat_activity's query text can lag a
        // statement sent with the extended protocol (its lock is taken while it is parsed).
        const { rows } = await holder.query<{ n: number }>(
          `SELECT count(DISTINCT pid)::int AS n FROM pg_locks
            WHERE relation = 'nodes'::regclass AND NOT granted
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        );
        most = Math.max(most, rows[0].n);
        await sleep(50);
      }
      assert.ok(most >= 1, 'the heartbeats did wait on the lock');
      // Per engine one heartbeat, plus one reap a sweep may have begun just before the lock (its
      // statement's clock is from before the stall, so it finds nobody lapsed); a dozen intervals
      // of stacked heartbeats would be far more.
      assert.ok(most <= 4, `at most a heartbeat and a reap waiting per engine (two engines), saw ${most}`);
      await holder.query('ROLLBACK');
      // Both heartbeats lapsed by the database's clock while they waited; neither node may reap the other.
      await sleep(2 * leaseMs);
      const nodes = (await a.store.nodes.list()).map((n) => n.id).sort();
      assert.deepEqual(nodes, [a.engine.instanceId, b.engine.instanceId].sort(), 'both nodes are members still');
      await until(async () => (await a.store.nodes.list()).length === 2, 'both listed');
    } finally {
      await holder.end();
    }
  },
);
