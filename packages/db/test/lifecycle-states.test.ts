// The lifecycle's states (lifecycle/task-states.ts) on real rows, on both stores: a store holding a
// task in every state, each put there by the store's own transitions (claim, park, hold, finish,
// cancel) and then placed against one instant `now` (leases and TTLs on, just before and just past
// it), must have each state's SQL predicate select exactly the rows stateOf names, and the rows the
// table of states says. Then the claim's choice between the oldest queued task and the oldest lapsed
// claim, by age and then by id; and the SQLite store's transaction around what SQLite itself does.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testSql, type TestSql } from '../../../scripts/test-sql.mjs';
import { openSqliteStore, type Store, type StoreSignal, type TaskRow } from '../src/index.ts';
import {
  BARE_COLUMNS,
  inStates,
  statePredicate,
  stateOf,
  TASK_ROW_STATES,
  type TaskRowState,
} from '../src/lifecycle/task-states.ts';
import type { FlushWal } from '../src/wal-flush.ts';
import { STORE_KINDS, opener, newTask, sqliteKind } from './store-harness.ts';

const fenceOf = (row: TaskRow) => ({ taskId: row.id, attempt: row.attempt, claimedBy: row.claimedBy! });

/** The ids of the rows of `tasks` that `where` selects, run as the store's own dialect renders it. */
async function idsWhere(store: Store, db: TestSql, where: SQL): Promise<string[]> {
  const dialect = store.dialect === 'sqlite' ? new SQLiteSyncDialect() : new PgDialect();
  const query = dialect.sqlToQuery(sql`select "id" from "tasks" where ${where}`);
  const rows = await db.all<{ id: string }>(query.sql, ...query.params);
  return rows.map((r) => r.id).sort();
}

interface StateRow {
  id: string;
  status: TaskRow['status'];
  claimedBy: string | null;
  heldFor: string | null;
  leaseExpiresAt: number | null;
  expiresAt: number;
}

const allRows = (db: TestSql) =>
  db.all<StateRow>(
    `select "id", "status", "claimed_by" as "claimedBy", "held_for" as "heldFor",
            "lease_expires_at" as "leaseExpiresAt", "expires_at" as "expiresAt" from "tasks"`,
  );

for (const kind of STORE_KINDS) {
  describe(`lifecycle states on real rows: ${kind.name}`, () => {
    const open = opener(kind);

    test('each state predicate selects exactly the rows stateOf names at the same instant, one state per row, edges included', async () => {
      const { store } = await open();
      const db = await testSql(store);
      const expected = new Map<string, TaskRowState>();
      /** A task created and claimed at once (nothing else queued, so the claim takes it). */
      const claimedTask = async () => {
        const { task } = await store.tasks.createOrFind(newTask(), { message: 'Queued' });
        const claimed = (await store.tasks.claimNext('node-1', 30_000))!;
        assert.equal(claimed.id, task.id);
        return claimed;
      };
      /** Parks a claimed task for an operator's approval: it is then held. */
      const holdForOperator = (task: TaskRow) =>
        store.inputs.park(fenceOf(task), {
          requests: { approve: {} },
          state: null,
          message: 'Waiting for an operator',
          awaiting: 'operator',
        });

      const running = await claimedTask();
      const runningAtEdge = await claimedTask();
      const lapsed = await claimedTask();
      const held = await claimedTask();
      await holdForOperator(held);
      const parked = await claimedTask();
      await store.inputs.park(fenceOf(parked), { requests: { pick: {} }, state: null, message: 'Pick one' });
      const completed = await claimedTask();
      const failed = await claimedTask();
      const expiredRunning = await claimedTask();
      const expiredCompleted = await claimedTask();
      const expiredHeld = await claimedTask();
      await holdForOperator(expiredHeld);

      for (const [row, outcome] of [
        [completed, { status: 'completed', result: '{}', message: 'done' }],
        [failed, { status: 'failed', error: { code: -32603, message: 'broke' }, message: 'failed' }],
        [expiredCompleted, { status: 'completed', result: '{}', message: 'done' }],
      ] as const)
        await store.transaction((tx) => tx.tasks.finish(fenceOf(row), outcome));
      const cancelled = (await store.tasks.createOrFind(newTask(), { message: 'Queued' })).task;
      assert.equal(await store.tasks.cancel(cancelled.id, 'Cancelled', 'alice'), true);
      const queued = (await store.tasks.createOrFind(newTask(), { message: 'Queued' })).task;
      const queuedAtEdge = (await store.tasks.createOrFind(newTask(), { message: 'Queued' })).task;
      const expiredAtEdge = (await store.tasks.createOrFind(newTask(), { message: 'Queued' })).task;
      // Every row against one instant: leases and TTLs on it, just before and just past it.
      const now = await store.now();
      const set = (id: string, column: string, value: number) =>
        db.run(`update "tasks" set "${column}" = ? where "id" = ?`, value, id);
      await set(running.id, 'lease_expires_at', now + 10_000);
      await set(runningAtEdge.id, 'lease_expires_at', now);
      await set(lapsed.id, 'lease_expires_at', now - 1);
      await set(queuedAtEdge.id, 'expires_at', now + 1);
      await set(expiredAtEdge.id, 'expires_at', now);
      await set(expiredRunning.id, 'lease_expires_at', now + 10_000);
      await set(expiredRunning.id, 'expires_at', now - 1);
      await set(expiredCompleted.id, 'expires_at', now - 1_000);
      await set(expiredHeld.id, 'expires_at', now - 1);

      const name = (state: TaskRowState, ...rows: { id: string }[]) => {
        for (const row of rows) expected.set(row.id, state);
      };
      name('queued', queued, queuedAtEdge);
      name('running', running, runningAtEdge);
      name('lapsed', lapsed);
      name('held', held);
      name('input_required', parked);
      name('completed', completed);
      name('failed', failed);
      name('cancelled', cancelled);
      name('expired', expiredAtEdge, expiredRunning, expiredCompleted, expiredHeld);

      const rows = await allRows(db);
      assert.equal(rows.length, expected.size);
      for (const row of rows) assert.equal(stateOf(row, now), expected.get(row.id), `stateOf ${row.id}`);

      const named = (state: TaskRowState) =>
        [...expected]
          .filter(([, s]) => s === state)
          .map(([id]) => id)
          .sort();
      for (const state of TASK_ROW_STATES) {
        assert.ok(named(state).length > 0, `a row in ${state}`);
        assert.deepEqual(
          await idsWhere(store, db, statePredicate(state, BARE_COLUMNS, now)),
          named(state),
          `the rows in ${state}`,
        );
      }
      // Any of several states: the claim's candidates, and the states a task can still leave.
      assert.deepEqual(
        await idsWhere(store, db, inStates(['queued', 'lapsed'], BARE_COLUMNS, now)),
        [...named('queued'), ...named('lapsed')].sort(),
      );
      assert.deepEqual(
        await idsWhere(store, db, inStates(['running', 'lapsed', 'held', 'input_required'], BARE_COLUMNS, now)),
        [...named('running'), ...named('lapsed'), ...named('held'), ...named('input_required')].sort(),
      );
      assert.deepEqual(
        await idsWhere(store, db, inStates(TASK_ROW_STATES, BARE_COLUMNS, now)),
        [...expected.keys()].sort(),
        'every row is in some state',
      );
    });

    /**
     * A queued task and a lapsed claim side by side, created at `queuedAt` and `lapsedAt`, their ids
     * ordered as `queuedIdFirst` says: which one the next claim takes.
     */
    async function claimBetween(
      queuedAt: number,
      lapsedAt: number,
      queuedIdFirst: boolean,
    ): Promise<'queued' | 'lapsed'> {
      const { store } = await open();
      const db = await testSql(store);
      const prefix = newTask().id;
      const [queuedId, lapsedId] = queuedIdFirst ? [`${prefix}-a`, `${prefix}-b`] : [`${prefix}-b`, `${prefix}-a`];
      await store.tasks.createOrFind(newTask({ id: lapsedId }), { message: 'Queued' });
      const holder = (await store.tasks.claimNext('node-1', 30_000))!;
      assert.equal(holder.id, lapsedId);
      await store.tasks.createOrFind(newTask({ id: queuedId }), { message: 'Queued' });
      const now = await store.now();
      await db.run(`update "tasks" set "lease_expires_at" = ? where "id" = ?`, now - 60_000, lapsedId);
      await db.run(`update "tasks" set "created_at" = ? where "id" = ?`, now - 100_000 + lapsedAt, lapsedId);
      await db.run(`update "tasks" set "created_at" = ? where "id" = ?`, now - 100_000 + queuedAt, queuedId);
      const claimed = (await store.tasks.claimNext('node-2', 30_000))!;
      assert.ok([queuedId, lapsedId].includes(claimed.id));
      // The other one is still there for the next claim: nothing is lost either way.
      const then = (await store.tasks.claimNext('node-3', 30_000))!;
      assert.deepEqual([claimed.id, then.id].sort(), [queuedId, lapsedId].sort());
      return claimed.id === queuedId ? 'queued' : 'lapsed';
    }

    test('a claim takes the older of the oldest queued task and the oldest lapsed claim', async () => {
      assert.equal(await claimBetween(10, 20, false), 'queued', 'the queued task is older, though its id is not first');
      assert.equal(await claimBetween(20, 10, true), 'lapsed', 'the lapsed claim is older, though its id is not first');
    });

    test('created at the same instant, a claim takes the one whose id comes first', async () => {
      assert.equal(await claimBetween(10, 10, true), 'queued');
      assert.equal(await claimBetween(10, 10, false), 'lapsed');
    });
  });
}

describe('the SQLite store around what SQLite does itself', () => {
  const open = opener(sqliteKind);

  test('a statement that ends the transaction itself (SQLite rolled it back): the caller gets its error, nothing of it stays, the store goes on', async () => {
    const { store } = await open();
    const db = await testSql(store);
    const kept = (await store.tasks.createOrFind(newTask(), { message: 'Queued' })).task;
    const dropped = newTask();
    await assert.rejects(
      store.transaction(async (tx) => {
        await tx.tasks.createOrFind(dropped, { message: 'Queued' });
        // As SQLITE_FULL or an interrupt would: the failing statement rolls the whole transaction back.
        await db.run(`insert or rollback into "tasks" select * from "tasks" where "id" = ?`, kept.id);
      }),
      (error: { code?: string }) => error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY',
    );
    assert.equal(await store.tasks.get(dropped.id), undefined);
    const after = (await store.transaction((tx) => tx.tasks.createOrFind(newTask(), { message: 'Queued' }))).task;
    assert.equal((await store.tasks.get(after.id))?.status, 'working');
  });

  test('a transaction keeps the synchronous mode the store was opened with (OFF stays OFF)', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'reflow-states-'));
    const store = openSqliteStore(join(dir, 'store.db'), { synchronous: 'OFF' });
    t.after(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    await store.migrate();
    const synchronous = () => store.connection.sqlite.pragma('synchronous', { simple: true });
    assert.equal(synchronous(), 0);
    await store.transaction((tx) => tx.tasks.createOrFind(newTask(), { message: 'Queued' }));
    assert.equal(synchronous(), 0);
  });

  test('at synchronous=FULL a transaction commits at NORMAL (its fsync is the WAL flush, off the event loop), then FULL again', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'reflow-states-'));
    let flushes = 0;
    const store = openSqliteStore(join(dir, 'store.db'), {
      synchronous: 'FULL',
      wrapWalFlush: (flush: FlushWal) => async () => {
        flushes++;
        await flush();
      },
    });
    t.after(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    await store.migrate();
    const synchronous = () => store.connection.sqlite.pragma('synchronous', { simple: true });
    const before = flushes;
    const inside = await store.transaction(async (tx) => {
      await tx.tasks.createOrFind(newTask(), { message: 'Queued' });
      return synchronous();
    });
    assert.equal(inside, 1, 'COMMIT on the event loop does not fsync');
    assert.equal(flushes, before + 1, 'the WAL is flushed once the transaction committed');
    assert.equal(synchronous(), 2);
  });

  test('claims released by reaping (releaseClaimsOf, reapLapsed, unregister) signal once their transaction committed and its WAL flush returned', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'reflow-states-'));
    const path = join(dir, 'store.db');
    let flushes = 0;
    const store = openSqliteStore(path, {
      synchronous: 'FULL',
      wrapWalFlush: (flush: FlushWal) => async () => {
        await flush();
        flushes++;
      },
    });
    await store.migrate();
    // Another connection sees only what was committed.
    const reader = new Database(path, { readonly: true });
    t.after(async () => {
      reader.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const claimOf = reader.prepare('select "claimed_by" from "tasks" where "id" = ?').pluck();
    await store.nodes.register({ id: 'node-2', host: 'h2', pid: 22, workers: 1 });
    await store.nodes.register({ id: 'node-3', host: 'h3', pid: 33, workers: 1 });
    const claimed: Record<string, string> = {};
    for (const claimant of ['gone-1', 'node-2', 'node-3']) {
      await store.tasks.createOrFind(newTask(), { message: 'Queued' });
      claimed[claimant] = (await store.tasks.claimNext(claimant, 60_000))!.id;
    }
    // What the other connection sees of the task, and how many flushes had returned, as each signal is sent.
    const heard: [StoreSignal, string, unknown, number][] = [];
    store.onSignal((signal, id) => heard.push([signal, id, claimOf.get(id), flushes]));
    const releases: [string, () => Promise<unknown>][] = [
      ['gone-1', () => store.tasks.releaseClaimsOf(['gone-1'], 'Its process is gone')],
      // A lapse of -1 ms: every heartbeat up to now has lapsed (node-3 is the reaper, so never reaped).
      ['node-2', () => store.nodes.reapLapsed(-1, 'Node node-2 stopped beating', 'node-3')],
      ['node-3', () => store.nodes.unregister('node-3', 'Node node-3 shut down')],
    ];
    for (const [claimant, release] of releases) {
      heard.length = 0;
      const before = flushes;
      await release();
      assert.deepEqual(
        heard,
        [['released', claimed[claimant], null, before + 1]],
        `${claimant}: signalled once durable`,
      );
    }
  });

  test('a create refused in a batch takes only its own signals with it: an earlier create’s admit still signals', async () => {
    const { store } = await open();
    const victim = (await store.tasks.createOrFind(newTask(), { message: 'Queued' })).task;
    const spared = (await store.tasks.createOrFind(newTask(), { message: 'Queued' })).task;
    const signals: [StoreSignal, string][] = [];
    store.onSignal((signal, id) => signals.push([signal, id]));
    const batchesBefore = store.groupCommit.batches;
    // Submitted together: one batch, one transaction, each create in its own savepoint.
    const first = store.tasks.createOrFind(newTask(), { message: 'Queued' }, async (tx) => {
      assert.equal(await tx.tasks.cancel(victim.id, 'Superseded', 'alice'), true);
    });
    const refused = store.tasks.createOrFind(newTask(), { message: 'Queued' }, async (tx) => {
      assert.equal(await tx.tasks.cancel(spared.id, 'Superseded', 'alice'), true);
      throw new Error('over the limit');
    });
    const [ok, no] = await Promise.allSettled([first, refused]);
    assert.equal(ok.status, 'fulfilled');
    assert.equal(no.status, 'rejected');
    assert.equal(store.groupCommit.batches, batchesBefore + 1, 'both creates in one batch');
    assert.deepEqual(
      signals.filter(([signal]) => signal === 'cancelled'),
      [['cancelled', victim.id]],
      'the first create’s cancel signals; the refused one’s went with its savepoint',
    );
    assert.equal((await store.tasks.get(spared.id))?.status, 'working', 'the refused create’s cancel was rolled back');
    assert.equal((await store.tasks.get(victim.id))?.status, 'cancelled');
  });
});
