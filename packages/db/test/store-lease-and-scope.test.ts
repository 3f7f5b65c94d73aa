// The lease is part of the fence, and scope exclusion agrees with it, on both stores: a holder whose
// lease lapsed writes nothing and holds no scope; it may ask for its lease again (resumeLease) only
// while no overlapping task was claimed meanwhile; a give-up is judged again in its write; disjoint
// scopes are held at once. Each interleaving is forced with short leases on the store's own clock.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { StaleAttemptError, type Store, type TaskRow } from '../src/index.ts';
import { STORE_KINDS, opener, newTask, sleep } from './store-harness.ts';

const fenceOf = (row: TaskRow) => ({ taskId: row.id, attempt: row.attempt, claimedBy: row.claimedBy! });
const DAY = 86_400_000;
/** A lease short enough to lapse within a test, long enough to hold across a few statements. */
const SHORT_LEASE_MS = 150;
const lapse = () => sleep(SHORT_LEASE_MS * 2);

async function scoped(store: Store, startDay: number, endDay: number, over: Parameters<typeof newTask>[0] = {}) {
  const task = newTask({ scopeKey: 'bookings', scopeStart: startDay * DAY, scopeEnd: endDay * DAY, ...over });
  return (await store.tasks.createOrFind(task, { message: 'Queued' })).task;
}

/**
 * a (days 10–14) claimed on `store` by node-1 on a short lease, which lapses; then b (days 13–16),
 * which waited while a held its days, claimed on `other` by node-2.
 */
async function overlapClaimedAfterLapse(store: Store, other: Store) {
  const a = await scoped(store, 10, 14);
  const b = await scoped(store, 13, 16);
  const claimedA = (await store.tasks.claimNext('node-1', SHORT_LEASE_MS))!;
  assert.equal(claimedA.id, a.id);
  assert.equal(await other.tasks.claimNext('node-2', 30_000), undefined, 'b waits while a holds days 13–14');
  await lapse();
  // Queued tasks only (a, lapsed, would be taken over first: that is the other way it loses).
  const claimedB = (await other.tasks.claimNext('node-2', 30_000, [], { takeOverLapsed: false }))!;
  assert.equal(claimedB.id, b.id, 'a lapsed holder does not hold its days');
  return { a, claimedA, claimedB };
}

for (const kind of STORE_KINDS) {
  describe(`lease fence and scopes: ${kind.name}`, () => {
    const open = opener(kind);

    test('a holder whose lease lapsed writes nothing (progress, renew, park, finish, holdScope); it may still give the task back', async () => {
      const { store } = await open();
      const task = (await store.tasks.createOrFind(newTask(), { message: 'Queued' })).task;
      const claimed = (await store.tasks.claimNext('node-1', SHORT_LEASE_MS))!;
      assert.equal(claimed.id, task.id);
      const fence = fenceOf(claimed);
      assert.equal(await store.tasks.progress(fence, 'still within the lease'), true);
      await lapse();
      assert.equal(await store.tasks.progress(fence, 'after the lapse'), false);
      assert.equal(await store.tasks.renewLease(fence, 30_000), false, 'a lapsed lease is not revived by a renewal');
      await assert.rejects(
        store.inputs.park(fence, { requests: {}, state: null, message: 'parked' }),
        StaleAttemptError,
      );
      await assert.rejects(
        store.transaction((tx) => tx.tasks.holdScope(fence)),
        StaleAttemptError,
      );
      await assert.rejects(
        store.transaction((tx) => tx.tasks.finish(fence, { status: 'completed', result: '{}', message: 'done' })),
        StaleAttemptError,
      );
      assert.equal((await store.tasks.get(task.id))?.status, 'working', 'nothing of the lapsed attempt was written');
      assert.equal(await store.tasks.release(fence, 'given back after a lapse', { refundAttempt: true }), true);
      const back = (await store.tasks.get(task.id))!;
      assert.deepEqual(
        [back.claimedBy, back.attempt, back.maxAttempts],
        [null, 1, 4],
        'queued again, the attempt refunded (one more allowed)',
      );
    });

    test('a refunded attempt’s number is never used again: claimed anew by the same claimant, the old attempt’s writes are refused', async () => {
      const { store } = await open();
      const task = (await store.tasks.createOrFind(newTask({ maxAttempts: 1 }), { message: 'Queued' })).task;
      const first = (await store.tasks.claimNext('node-1', 30_000))!;
      assert.equal(first.id, task.id);
      const old = fenceOf(first);
      assert.equal(await store.tasks.release(old, 'Shutting down', { refundAttempt: true }), true);
      assert.deepEqual(await store.tasks.listExhausted(), [], 'the refunded attempt did not use up the only one');
      const again = (await store.tasks.claimNext('node-1', 30_000))!;
      assert.equal(again.id, task.id, 'the same task, claimed again by the same claimant');
      // Writes the old attempt still had queued land nowhere: the new attempt's row is untouched.
      assert.equal(await store.tasks.progress(old, 'late progress of the old attempt'), false);
      assert.equal(await store.tasks.renewLease(old, 60_000), false);
      await assert.rejects(
        store.inputs.park(old, { requests: { q: {} }, state: null, message: 'late park' }),
        StaleAttemptError,
      );
      await assert.rejects(
        store.transaction((tx) => tx.tasks.finish(old, { status: 'completed', result: '{}', message: 'late' })),
        StaleAttemptError,
      );
      assert.equal(await store.tasks.release(old, 'late release'), false);
      const row = (await store.tasks.get(task.id))!;
      assert.deepEqual(
        [row.status, row.claimedBy, row.attempt, row.leaseExpiresAt],
        ['working', 'node-1', again.attempt, again.leaseExpiresAt],
      );
      assert.equal(
        (await store.tasks.events(task.id)).some((e) => e.message.startsWith('late')),
        false,
        'no event of the old attempt after its release',
      );
      assert.equal(await store.tasks.progress(fenceOf(again), 'the new attempt writes'), true);
      assert.notEqual(again.attempt, old.attempt, 'a new attempt number, so a new fence');
      assert.equal(again.maxAttempts - again.attempt, 0, 'still its one attempt: the refunded one was not counted');
    });

    test('resumeLease: a lapsed holder gets its lease back while no overlapping task was claimed, and the attempt goes on', async () => {
      const { store } = await open();
      await scoped(store, 10, 12);
      const claimed = (await store.tasks.claimNext('node-1', SHORT_LEASE_MS))!;
      const fence = fenceOf(claimed);
      await lapse();
      assert.equal(await store.tasks.progress(fence, 'lapsed'), false);
      assert.equal(await store.tasks.resumeLease(fence, 30_000), true);
      assert.equal(await store.tasks.progress(fence, 'resumed'), true);
      await store.transaction(async (tx) => {
        await tx.tasks.holdScope(fence);
        await tx.tasks.finish(fence, { status: 'completed', result: '{}', message: 'done' });
      });
      const done = (await store.tasks.get(claimed.id))!;
      assert.deepEqual([done.status, done.attempt], ['completed', 1], 'one attempt, not two');
    });

    test('scope exclusion and the fence agree: a lapsed holder holds no scope, and once an overlapping task is claimed it cannot resume or apply', async () => {
      const { store, second } = await open();
      const { a, claimedA } = await overlapClaimedAfterLapse(store, await second());
      const fenceA = fenceOf(claimedA);
      assert.equal(await store.tasks.resumeLease(fenceA, 30_000), false, 'b holds the days now');
      await assert.rejects(
        store.transaction((tx) => tx.tasks.holdScope(fenceA)),
        StaleAttemptError,
      );
      assert.equal((await store.tasks.get(a.id))?.status, 'working');
    });

    test('a lapsed holder cannot resume once an overlapping task was claimed meanwhile, even one that has finished since', async () => {
      const { store, second } = await open();
      const other = await second();
      const { claimedA, claimedB } = await overlapClaimedAfterLapse(store, other);
      // b applies and finishes: it holds no days any more, but it wrote to days a planned from.
      await other.transaction(async (tx) => {
        await tx.tasks.holdScope(fenceOf(claimedB));
        await tx.tasks.finish(fenceOf(claimedB), { status: 'completed', result: '{}', message: 'b done' });
      });
      const fenceA = fenceOf(claimedA);
      assert.equal(await store.tasks.resumeLease(fenceA, 30_000), false, 'b was claimed after a’s lease lapsed');
      await assert.rejects(
        store.transaction((tx) => tx.tasks.holdScope(fenceA)),
        StaleAttemptError,
      );
      // A task claimed before a's claim (and done before it) does not stop a from resuming.
      const c = await scoped(store, 30, 34);
      const d = await scoped(store, 31, 35);
      const claimedC = (await store.tasks.claimNext('node-1', 30_000, [], { takeOverLapsed: false }))!;
      assert.equal(claimedC.id, c.id);
      await store.tasks.finish(fenceOf(claimedC), { status: 'completed', result: '{}', message: 'c done' });
      const claimedD = (await store.tasks.claimNext('node-1', SHORT_LEASE_MS, [], { takeOverLapsed: false }))!;
      assert.equal(claimedD.id, d.id);
      await lapse();
      assert.equal(await store.tasks.resumeLease(fenceOf(claimedD), 30_000), true, 'c ended before d was claimed');
    });

    test('disjoint scopes are held at once by two nodes; an overlapping one waits', async () => {
      const { store, second } = await open();
      const other = await second();
      const week1 = await scoped(store, 100, 109);
      const week3 = await scoped(store, 114, 123);
      const overlapping = await scoped(store, 105, 116);
      const first = (await store.tasks.claimNext('node-1', 30_000))!;
      const then = (await other.tasks.claimNext('node-2', 30_000))!;
      assert.deepEqual([first.id, then.id], [week1.id, week3.id]);
      assert.equal(await store.tasks.claimNext('node-3', 30_000), undefined, `${overlapping.id} overlaps both`);
      // Both apply at once: each holds its own days in its own open transaction.
      let release!: () => void;
      const holding = new Promise<void>((resolve) => (release = resolve));
      const applyWeek1 = store.transaction(async (tx) => {
        await tx.tasks.holdScope(fenceOf(first));
        await holding;
        await tx.tasks.finish(fenceOf(first), { status: 'completed', result: '{}', message: 'week 1' });
      });
      if (kind.name === 'postgres') {
        // On SQLite one write transaction at a time is the rule of the file; PostgreSQL holds days.
        await other.transaction(async (tx) => {
          await tx.tasks.holdScope(fenceOf(then));
          await tx.tasks.finish(fenceOf(then), { status: 'completed', result: '{}', message: 'week 3' });
        });
        assert.equal(
          (await other.tasks.get(week3.id))?.status,
          'completed',
          'week 3 applied while week 1 held its days',
        );
      }
      release();
      await applyWeek1;
    });

    test('an apply in flight holds its days past its lease: an overlapping claim waits for its end, and its stale finish is refused', async (t) => {
      if (kind.name !== 'postgres')
        return t.skip('SQLite: a write transaction already keeps every claim out until it ends');
      const { store, second } = await open();
      const other = await second();
      const a = await scoped(store, 10, 14);
      const b = await scoped(store, 13, 16);
      const claimedA = (await store.tasks.claimNext('node-1', SHORT_LEASE_MS))!;
      assert.equal(claimedA.id, a.id);
      const apply = store.transaction(async (tx) => {
        await tx.tasks.holdScope(fenceOf(claimedA));
        await lapse();
        // The lease lapsed while the apply ran: an overlapping claim must still not commit meanwhile.
        assert.equal(await other.tasks.claimNext('node-2', 30_000), undefined, 'b waits for the apply to end');
        await tx.tasks.finish(fenceOf(claimedA), { status: 'completed', result: '{}', message: 'late' });
      });
      await assert.rejects(apply, StaleAttemptError);
      assert.equal((await store.tasks.get(a.id))?.status, 'working', 'the late apply rolled back');
      assert.equal((await other.tasks.claimNext('node-2', 30_000, [], { takeOverLapsed: false }))?.id, b.id);
    });

    test('a renewal in flight as its lease runs out still holds the scope: an overlapping claim on another node does not take it', async (t) => {
      if (kind.name !== 'postgres')
        return t.skip('SQLite: one write at a time, so no write is in flight while a claim checks');
      const { store, second, url } = await open();
      const other = await second();
      const a = await scoped(store, 10, 14);
      const b = await scoped(store, 13, 16);
      const claimedA = (await store.tasks.claimNext('node-1', SHORT_LEASE_MS))!;
      assert.equal(claimedA.id, a.id);
      const renewal = new pg.Client({ connectionString: url });
      await renewal.connect();
      try {
        // A's renewal, judged while its lease held, its commit not yet visible.
        await renewal.query('BEGIN');
        await renewal.query('UPDATE tasks SET lease_expires_at = lease_expires_at + 60000 WHERE id = $1', [a.id]);
        await lapse();
        // In the claim's snapshot a's lease has lapsed; the row being written says it may not have.
        assert.equal(await other.tasks.claimNext('node-2', 30_000), undefined, `${b.id} overlaps a, being renewed`);
        await renewal.query('COMMIT');
        assert.equal(await other.tasks.claimNext('node-2', 30_000), undefined, 'a holds its lease again');
        assert.equal(await store.tasks.renewLease(fenceOf(claimedA), 30_000), true);
      } finally {
        await renewal.end();
      }
    });

    test('a renewal or a park that waited past its lease for an overlapping claim’s check is refused', async (t) => {
      if (kind.name !== 'postgres') return t.skip('SQLite: one write at a time, so no write waits on a claim’s check');
      const { store, url } = await open();
      const claim = new pg.Client({ connectionString: url });
      await claim.connect();
      try {
        const given: string[] = [];
        for (const write of ['renew', 'park'] as const) {
          const task = await scoped(store, 20, 24, { id: `tsk_waits_${write}` });
          // Not the task given back by the round before (listed as the caller's own, so skipped).
          const claimed = (await store.tasks.claimNext('node-1', SHORT_LEASE_MS, given))!;
          assert.equal(claimed.id, task.id);
          // An overlapping claim on another node checks this holder (its row locked FOR SHARE) ...
          await claim.query('BEGIN');
          await claim.query('SELECT id FROM tasks WHERE id = $1 FOR SHARE', [task.id]);
          // ... while the holder writes, its lease still holding when the write starts ...
          const written =
            write === 'renew'
              ? store.tasks.renewLease(fenceOf(claimed), 30_000)
              : store.inputs.park(fenceOf(claimed), { requests: { q: 1 }, state: null, message: 'ask' }).then(
                  () => true,
                  (error: unknown) => (error instanceof StaleAttemptError ? false : Promise.reject(error)),
                );
          await lapse();
          // ... and the check ends after the lease ran out: the claim judged it lapsed, so the write may not hold it.
          await claim.query('COMMIT');
          assert.equal(await written, false, `the ${write} is judged when it has the row, after the lease ran out`);
          assert.ok(await store.tasks.release(fenceOf(claimed), 'test done'));
          given.push(task.id);
        }
      } finally {
        await claim.end();
      }
    });

    test('a give-up is judged again in its write: a last attempt that resumed its lease keeps the task', async () => {
      const { store } = await open();
      const task = (await store.tasks.createOrFind(newTask({ maxAttempts: 1 }), { message: 'Queued' })).task;
      const claimed = (await store.tasks.claimNext('node-1', SHORT_LEASE_MS))!;
      await lapse();
      assert.deepEqual(
        (await store.tasks.listExhausted()).map((r) => r.id),
        [task.id],
        'the sweeper sees it out of attempts, lapsed',
      );
      assert.equal(await store.tasks.resumeLease(fenceOf(claimed), 30_000), true);
      assert.equal(await store.tasks.failExhausted(task.id, { code: -32603, message: 'gave up' }), false);
      assert.equal((await store.tasks.get(task.id))?.status, 'working');
      await store.transaction((tx) =>
        tx.tasks.finish(fenceOf(claimed), { status: 'completed', result: '{}', message: 'done' }),
      );
      assert.equal((await store.tasks.get(task.id))?.status, 'completed', 'its finished work is kept');
    });

    test('a claim that may not take over lapsed leases (a node not yet watching for a lease) takes queued tasks only', async () => {
      const { store } = await open();
      const lapsedTask = (await store.tasks.createOrFind(newTask(), { message: 'Queued' })).task;
      await store.tasks.claimNext('node-1', SHORT_LEASE_MS);
      await lapse();
      const queued = (await store.tasks.createOrFind(newTask(), { message: 'Queued' })).task;
      assert.equal((await store.tasks.claimNext('node-2', 30_000, [], { takeOverLapsed: false }))?.id, queued.id);
      assert.equal(await store.tasks.claimNext('node-2', 30_000, [], { takeOverLapsed: false }), undefined);
      assert.equal((await store.tasks.claimNext('node-2', 30_000))?.id, lapsedTask.id);
    });
  });
}
