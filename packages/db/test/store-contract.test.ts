// The store contract: the same cases, run against the SQLite store and the PostgreSQL store (a real
// server, started by scripts/postgres-for-tests.mjs). Times are each store's own clock, so a case
// that needs time to pass (a TTL, a lease) waits for it rather than moving a clock.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StaleAttemptError, stateOf, type StoreSignal, type TaskRow } from '../src/index.ts';
import { STORE_KINDS, opener, newTask, sleep, smallSite } from './store-harness.ts';

const fenceOf = (row: TaskRow) => ({ taskId: row.id, attempt: row.attempt, claimedBy: row.claimedBy! });

for (const kind of STORE_KINDS) {
  describe(`store contract: ${kind.name}`, () => {
    const open = opener(kind);

    test('create writes a working task stamped by the store clock, once per identical work', async () => {
      const { store } = await open();
      const before = store.clock();
      const task = newTask({ ttlMs: 90_000 });
      const first = await store.tasks.createOrFind(task, { message: 'Queued' });
      assert.equal(first.created, true);
      assert.equal(first.task.status, 'working');
      assert.equal(first.task.attempt, 0);
      assert.ok(Math.abs(first.task.createdAt - before) < 2000, 'createdAt on the store clock');
      assert.equal(first.task.expiresAt, first.task.createdAt + 90_000);
      assert.equal(first.task.lastUpdatedAt, first.task.createdAt);
      // The row a create returns is the row as stored, every column (SQLite builds it rather than read it back).
      assert.deepStrictEqual(first.task, await store.tasks.get(first.task.id));
      const scoped = await store.tasks.createOrFind(
        newTask({
          input: { nested: { a: [1, 2] }, gone: undefined },
          scopeKey: 'bookings',
          scopeStart: 10,
          scopeEnd: 20,
        }),
        { message: 'Queued behind 3', data: { ahead: 3 } },
      );
      assert.deepStrictEqual(scoped.task, await store.tasks.get(scoped.task.id));
      assert.deepStrictEqual(scoped.task.input, { nested: { a: [1, 2] } });
      const events = async (id: string) =>
        (await store.tasks.events(id)).map((e) => [e.kind, e.message, e.attempt, e.data]);
      assert.deepEqual(await events(first.task.id), [['created', 'Queued', 0, null]]);
      assert.deepEqual(await events(scoped.task.id), [['created', 'Queued behind 3', 0, { ahead: 3 }]]);
      const again = await store.tasks.createOrFind({ ...task, id: 'other-id' }, { message: 'Queued' });
      assert.deepEqual(again, { task: first.task, created: false });
      const otherOwner = await store.tasks.createOrFind(
        { ...task, id: `${task.id}-bob`, owner: 'bob' },
        { message: 'Queued' },
      );
      assert.equal(otherOwner.created, true);
      assert.deepEqual(
        (await store.tasks.events(task.id)).map((e) => [e.kind, e.attempt, e.message]),
        [['created', 0, 'Queued']],
      );
      assert.equal(await store.tasks.get('other-id'), undefined);
    });

    test('admit runs in the creating transaction: a refusal writes nothing, and it sees the transaction', async () => {
      const { store } = await open();
      await store.tasks.createOrFind(newTask(), { message: 'Queued' });
      const refused = newTask();
      await assert.rejects(
        store.tasks.createOrFind(refused, { message: 'Queued' }, async (tx) => {
          assert.equal(await tx.principals.activeTaskCount('alice'), 1);
          throw new Error('limit reached');
        }),
        /limit reached/,
      );
      assert.equal(await store.tasks.get(refused.id), undefined);
      assert.deepEqual(await store.tasks.events(refused.id), []);
      assert.equal(await store.principals.activeTaskCount('alice'), 1);
      // An identical task under way is found without asking admit (limits apply to new work only).
      const existing = newTask();
      await store.tasks.createOrFind(existing, { message: 'Queued' });
      const found = await store.tasks.createOrFind({ ...existing, id: 'x' }, { message: 'Queued' }, async () => {
        throw new Error('admit must not run for existing work');
      });
      assert.equal(found.created, false);
    });

    test('get and poll show live tasks only; past its TTL the owner hears "expired" until swept and after', async () => {
      const { store } = await open();
      const short = newTask({ ttlMs: 400 });
      await store.tasks.createOrFind(short, { message: 'Queued' });
      const long = newTask();
      await store.tasks.createOrFind(long, { message: 'Queued' });
      assert.equal((await store.tasks.get(short.id))?.id, short.id);
      const poll = await store.tasks.poll(short.id);
      assert.equal(poll?.status, 'working');
      assert.ok(poll);
      assert.equal('input' in poll, false, 'a poll reads no input');
      assert.equal(await store.tasks.expiredOwner(short.id), undefined);
      await sleep(600);
      assert.equal(await store.tasks.get(short.id), undefined);
      assert.equal(await store.tasks.poll(short.id), undefined);
      assert.equal(await store.tasks.expiredOwner(short.id), 'alice');
      assert.deepEqual(
        (await store.tasks.listForOwner('alice', 10)).map((t) => t.id),
        [long.id],
      );
      assert.equal(await store.tasks.sweepExpired(), 1);
      assert.equal(await store.tasks.sweepExpired(), 0);
      assert.equal(await store.tasks.expiredOwner(short.id), 'alice', 'the tombstone answers');
      assert.deepEqual(await store.tasks.events(short.id), [], 'its events went with it');
      assert.equal((await store.tasks.get(long.id))?.id, long.id);
      assert.equal(await store.tasks.expiredOwner('unknown'), undefined);
      assert.equal(await store.tasks.get('unknown'), undefined);
    });

    test('claims take the queue oldest first, bump the attempt, skip the running and the exhausted', async () => {
      const { store } = await open();
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const t = newTask({ maxAttempts: i === 3 ? 0 : 3 });
        ids.push(t.id);
        await store.tasks.createOrFind(t, { message: 'Queued' });
        await sleep(5);
      }
      assert.deepEqual(
        (await store.tasks.queueOrder()).map((q) => q.id),
        ids,
      );
      assert.equal(await store.tasks.queueDepth(), 4);
      const first = await store.tasks.claimNext('node-1', 30_000, [ids[0]]);
      assert.equal(first?.id, ids[1], 'a task the caller runs is never claimed again');
      assert.equal(first.attempt, 1);
      assert.equal(first.claimedBy, 'node-1');
      assert.ok(Math.abs(first.leaseExpiresAt! - (store.clock() + 30_000)) < 2000);
      assert.ok(first.startedAt !== null);
      assert.equal((await store.tasks.claimNext('node-1', 30_000))?.id, ids[0]);
      assert.equal((await store.tasks.claimNext('node-2', 30_000))?.id, ids[2]);
      assert.equal(await store.tasks.claimNext('node-2', 30_000), undefined, 'no attempts left on the last one');
      assert.equal(await store.tasks.queueDepth(), 1);
      assert.deepEqual((await store.tasks.claimants()).sort(), ['node-1', 'node-2']);
      const events = await store.tasks.events(ids[1]);
      assert.deepEqual(
        events.map((e) => [e.kind, e.attempt]),
        [
          ['created', 0],
          ['claimed', 1],
        ],
      );
      assert.deepEqual(events[1].data, { by: 'node-1' });
    });

    test('every write of an attempt is fenced: stale attempt, wrong claimant, after cancel, past the TTL', async () => {
      const { store } = await open();
      await store.tasks.createOrFind(newTask(), { message: 'Queued' });
      const claimed = (await store.tasks.claimNext('node-1', 30_000))!;
      const fence = fenceOf(claimed);
      const stale = { ...fence, attempt: fence.attempt + 1 };
      const stranger = { ...fence, claimedBy: 'node-2' };
      for (const bad of [stale, stranger]) {
        assert.equal(await store.tasks.progress(bad, 'x'), false);
        assert.equal(await store.tasks.renewLease(bad, 30_000), false);
        assert.equal(await store.tasks.release(bad, 'x'), false);
        await assert.rejects(
          store.tasks.finish(bad, { status: 'completed', result: '{}', message: 'done' }),
          StaleAttemptError,
        );
        await assert.rejects(
          store.inputs.park(bad, { requests: { q: 1 }, state: null, message: 'ask' }),
          StaleAttemptError,
        );
      }
      assert.equal(await store.tasks.progress(fence, 'Solving'), true);
      assert.equal((await store.tasks.get(claimed.id))?.statusMessage, 'Solving');
      assert.equal(await store.tasks.cancel(claimed.id, 'Cancelled by the requester', 'alice'), true);
      assert.equal(await store.tasks.cancel(claimed.id, 'again', 'alice'), false, 'a terminal task stays as it is');
      assert.equal(await store.tasks.progress(fence, 'late'), false);
      assert.equal(await store.tasks.renewLease(fence, 30_000), false);
      await assert.rejects(
        store.tasks.finish(fence, { status: 'completed', result: '{}', message: 'done' }),
        StaleAttemptError,
      );
      const row = (await store.tasks.get(claimed.id))!;
      assert.equal(row.status, 'cancelled');
      assert.equal(row.result, null);
      assert.deepEqual(
        (await store.tasks.events(claimed.id)).map((e) => e.kind),
        ['created', 'claimed', 'progress', 'cancelled'],
      );

      const short = newTask({ ttlMs: 500 });
      await store.tasks.createOrFind(short, { message: 'Queued' });
      const shortClaim = (await store.tasks.claimNext('node-1', 30_000))!;
      assert.equal(shortClaim.id, short.id);
      await sleep(700);
      assert.equal(await store.tasks.renewLease(fenceOf(shortClaim), 30_000), false, 'past its TTL it never writes');
      assert.equal(await store.tasks.progress(fenceOf(shortClaim), 'late'), false);
      await assert.rejects(
        store.tasks.finish(fenceOf(shortClaim), { status: 'completed', result: '{}', message: 'done' }),
        StaleAttemptError,
      );
    });

    test('renew extends the lease; release requeues (refunding on request); a lapsed lease is reclaimed and fences out its holder', async () => {
      const { store } = await open();
      await store.tasks.createOrFind(newTask(), { message: 'Queued' });
      const claimed = (await store.tasks.claimNext('node-1', 1000))!;
      await sleep(20);
      assert.equal(await store.tasks.renewLease(fenceOf(claimed), 60_000), true);
      const renewed = (await store.tasks.get(claimed.id))!;
      assert.ok(renewed.leaseExpiresAt! > claimed.leaseExpiresAt! + 50_000);
      assert.equal(await store.tasks.release(fenceOf(claimed), 'Shutting down', { refundAttempt: true }), true);
      const released = (await store.tasks.get(claimed.id))!;
      assert.equal(released.claimedBy, null);
      assert.equal(released.leaseExpiresAt, null);
      assert.deepEqual(
        [released.attempt, released.maxAttempts],
        [1, 4],
        'the refunded attempt does not count (one more allowed), and its number is not used again',
      );

      const again = (await store.tasks.claimNext('node-1', 300))!;
      assert.equal(again.attempt, 2);
      assert.equal(await store.tasks.claimNext('node-2', 300), undefined, 'a live lease is not taken');
      assert.deepEqual(await store.tasks.listExhausted(), []);
      await sleep(450);
      const taken = (await store.tasks.claimNext('node-2', 30_000))!;
      assert.equal(taken.id, claimed.id);
      assert.equal(taken.attempt, 3);
      assert.equal(await store.tasks.progress(fenceOf(again), 'late'), false, 'the lapsed holder is fenced out');
      const kinds = (await store.tasks.events(claimed.id)).map((e) => `${e.kind}:${e.attempt}`);
      assert.deepEqual(kinds, ['created:0', 'claimed:1', 'released:1', 'claimed:2', 'released:2', 'claimed:3']);
    });

    test('exhausted tasks are listed once their last claim lapsed, and fail without a fence', async () => {
      const { store } = await open();
      const t = newTask({ maxAttempts: 1 });
      await store.tasks.createOrFind(t, { message: 'Queued' });
      const claimed = (await store.tasks.claimNext('node-1', 200))!;
      assert.deepEqual(await store.tasks.listExhausted(), []);
      await sleep(350);
      assert.deepEqual(
        (await store.tasks.listExhausted()).map((r) => r.id),
        [t.id],
      );
      assert.deepEqual(await store.tasks.listExhausted([t.id]), [], 'not the caller’s own running one');
      assert.equal(await store.tasks.failExhausted(t.id, { code: -32603, message: 'Gave up' }), true);
      assert.equal(await store.tasks.failExhausted(t.id, { code: -32603, message: 'Gave up' }), false);
      const row = (await store.tasks.get(t.id))!;
      assert.equal(row.status, 'failed');
      assert.deepEqual(row.error, { code: -32603, message: 'Gave up' });
      assert.equal(await store.tasks.progress(fenceOf(claimed), 'late'), false);
    });

    test('exclusive scopes: an overlapping scope waits for the holder (claimed, parked or held); adjacent ones and other keys do not', async () => {
      const { store } = await open();
      const hour = 3_600_000;
      const scoped = (start: number, end: number, key = 'site-1') =>
        newTask({ scopeKey: key, scopeStart: start * hour, scopeEnd: end * hour });
      const a = scoped(0, 10);
      const b = scoped(5, 15);
      const c = scoped(10, 20);
      const d = scoped(0, 10, 'site-2');
      for (const t of [a, b, c, d]) {
        await store.tasks.createOrFind(t, { message: 'Queued' });
        await sleep(3);
      }
      const first = (await store.tasks.claimNext('node-1', 30_000))!;
      assert.equal(first.id, a.id);
      const second = (await store.tasks.claimNext('node-1', 30_000))!;
      assert.equal(second.id, c.id, 'b overlaps a and waits; c, adjacent to a, runs');
      assert.equal((await store.tasks.claimNext('node-2', 30_000))?.id, d.id, 'another key runs');
      assert.equal(await store.tasks.claimNext('node-2', 30_000), undefined, 'b overlaps both a and c');
      await store.tasks.finish(fenceOf(second), { status: 'completed', result: '{}', message: 'done' });
      assert.equal(await store.tasks.claimNext('node-2', 30_000), undefined, 'a still holds');
      // Parked for an answer, a still owns its scope.
      await store.inputs.park(fenceOf(first), { requests: { approve: {} }, state: null, message: 'Approve?' });
      assert.equal(await store.tasks.claimNext('node-2', 30_000), undefined, 'a parked task holds its scope');
      await store.tasks.cancel(a.id, 'Cancelled', 'alice');
      assert.equal((await store.tasks.claimNext('node-2', 30_000))?.id, b.id);
    });

    test('a lapsed lease holds no scope, except for the caller that still runs it', async () => {
      const { store } = await open();
      const a = newTask({ scopeKey: 's', scopeStart: 0, scopeEnd: 10 });
      const b = newTask({ scopeKey: 's', scopeStart: 5, scopeEnd: 15 });
      await store.tasks.createOrFind(a, { message: 'Queued' });
      await sleep(3);
      await store.tasks.createOrFind(b, { message: 'Queued' });
      assert.equal((await store.tasks.claimNext('node-1', 200))?.id, a.id);
      await sleep(350);
      assert.equal(await store.tasks.claimNext('node-1', 30_000, [a.id]), undefined, 'a runs on: its scope holds');
      // Another node sees a lapsed lease: it takes a over again (the oldest), never b beside it.
      assert.equal((await store.tasks.claimNext('node-2', 30_000))?.id, a.id);
      assert.equal(await store.tasks.claimNext('node-3', 30_000), undefined);
    });

    test('park and answer: keys per round, partial answers, resume to the queue with the attempt given back', async () => {
      const { store } = await open();
      await store.tasks.createOrFind(newTask({ maxAttempts: 1 }), { message: 'Queued' });
      const claimed = (await store.tasks.claimNext('node-1', 30_000))!;
      const pending = await store.inputs.park(fenceOf(claimed), {
        requests: { approve: { text: 'Apply?' }, note: { text: 'Why?' } },
        state: { plan: [1, 2] },
        message: 'Waiting for approval',
      });
      assert.deepEqual(Object.keys(pending).sort(), ['r1-approve', 'r1-note']);
      const parked = (await store.tasks.get(claimed.id))!;
      assert.equal(parked.status, 'input_required');
      assert.equal(parked.claimedBy, null);
      assert.equal(parked.maxAttempts, 2, 'the parking attempt is given back');
      assert.deepEqual((await store.inputs.get(claimed.id))?.state, { plan: [1, 2] });
      assert.equal(await store.tasks.claimNext('node-1', 30_000), undefined, 'a parked task is not claimed');
      assert.deepEqual(await store.inputs.answer(claimed.id, { nope: 1 }, 'alice'), { accepted: 0, resumed: false });
      assert.deepEqual(await store.inputs.answer(claimed.id, { 'r1-approve': true }, 'alice'), {
        accepted: 1,
        resumed: false,
      });
      assert.deepEqual(await store.inputs.answer(claimed.id, { 'r1-approve': false }, 'alice'), {
        accepted: 0,
        resumed: false,
      });
      assert.deepEqual(await store.inputs.answer(claimed.id, { 'r1-note': 'ok' }, 'alice'), {
        accepted: 1,
        resumed: true,
      });
      assert.deepEqual((await store.inputs.get(claimed.id))?.responses, { approve: true, note: 'ok' });
      const resumed = (await store.tasks.claimNext('node-2', 30_000))!;
      assert.equal(resumed.id, claimed.id);
      assert.equal(resumed.attempt, 2);
      const again = await store.inputs.park(fenceOf(resumed), {
        requests: { approve: {} },
        state: null,
        message: 'Again',
      });
      assert.deepEqual(Object.keys(again), ['r2-approve']);
    });

    test('a task held for an operator stays working, held for it with no claim; only that party answers it', async () => {
      const { store } = await open();
      await store.tasks.createOrFind(newTask(), { message: 'Queued' });
      const claimed = (await store.tasks.claimNext('node-1', 30_000))!;
      const pending = await store.inputs.park(fenceOf(claimed), {
        requests: { approve: {} },
        state: null,
        message: 'Waiting for an operator',
        awaiting: 'operator',
      });
      const held = (await store.tasks.get(claimed.id))!;
      assert.equal(held.status, 'working');
      assert.equal(held.heldFor, 'operator');
      assert.equal(held.claimedBy, null);
      assert.equal(held.leaseExpiresAt, null);
      assert.equal(stateOf(held, Date.now()), 'held');
      assert.equal(await store.tasks.queueDepth(), 0, 'a held task is not queued');
      assert.deepEqual(await store.tasks.claimants(), [], 'nor claimed');
      assert.equal(await store.taskList.countAwaiting({}, 'operator'), 1);
      assert.equal(await store.tasks.claimNext('node-2', 30_000), undefined, 'nothing claims a held task');
      const key = Object.keys(pending)[0];
      assert.deepEqual(await store.inputs.answer(claimed.id, { [key]: true }, 'alice'), {
        accepted: 0,
        resumed: false,
      });
      assert.deepEqual(await store.inputs.answer(claimed.id, { [key]: true }, 'ops', 'operator'), {
        accepted: 1,
        resumed: true,
      });
      assert.equal((await store.tasks.claimNext('node-2', 30_000))?.id, claimed.id);
    });

    test('a transaction commits all its writes or none; finish inside it rolls the work back when the fence fails', async () => {
      const { store } = await open({ seed: smallSite });
      const t = newTask();
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.tasks.createOrFind(t, { message: 'Queued' });
          assert.equal((await tx.tasks.get(t.id))?.id, t.id, 'the transaction sees its own write');
          throw new Error('abort');
        }),
        /abort/,
      );
      assert.equal(await store.tasks.get(t.id), undefined);

      await store.tasks.createOrFind(t, { message: 'Queued' });
      const claimed = (await store.tasks.claimNext('node-1', 30_000))!;
      await store.tasks.cancel(t.id, 'Cancelled', 'alice');
      const booking = (await store.bookings.get('bk-2'))!;
      await assert.rejects(
        store.transaction(async (tx) => {
          const [locked] = await tx.bookings.getForUpdate(['bk-2']);
          assert.equal(
            await tx.bookings.move('bk-2', locked.version, {
              roomId: 'studio-b',
              startAt: locked.startAt,
              endAt: locked.endAt,
            }),
            true,
          );
          await tx.audit.recordMove({
            taskId: t.id,
            bookingId: 'bk-2',
            fromRoom: 'studio-a',
            toRoom: 'studio-b',
            fromStart: locked.startAt,
            toStart: locked.startAt,
            shiftMinutes: 0,
            appliedAt: await tx.now(),
          });
          await tx.tasks.finish(fenceOf(claimed), { status: 'completed', result: '{}', message: 'Applied' });
        }),
        StaleAttemptError,
      );
      assert.deepEqual(await store.bookings.get('bk-2'), booking, 'the move was rolled back');
      assert.deepEqual(await store.audit.movesOf(t.id), []);

      const value = await store.transaction(async (tx) => {
        await tx.audit.recordUnresolved({
          taskId: t.id,
          bookingId: 'bk-1',
          code: 'NO_ROOM',
          reason: 'full',
          recordedAt: 1,
        });
        return 42;
      });
      assert.equal(value, 42);
      assert.equal((await store.audit.unresolvedOf(t.id)).length, 1);
    });

    test('site and bookings: write, read, versioned moves, conflicts; a replace starts a new generation', async () => {
      const { store } = await open({ seed: smallSite });
      assert.equal((await store.site.getSite())?.generation, 1);
      assert.deepEqual(
        (await store.site.listRooms()).map((r) => r.id),
        ['studio-a', 'studio-b'],
      );
      assert.deepEqual((await store.site.listRooms())[0].features, ['piano']);
      assert.deepEqual(await store.site.roomIds(), ['studio-a', 'studio-b']);
      assert.deepEqual(await store.site.unknownRooms(['studio-z', 'studio-b', 'attic', 'studio-a']), [
        'studio-z',
        'attic',
      ]);
      assert.deepEqual(await store.site.unknownRooms([]), []);
      assert.equal(await store.site.bookingCount(), 3);
      const site = smallSite();
      const day = site.bookings[0].startAt;
      const overlapping = await store.bookings.overlapping({
        from: day,
        to: day + 24 * 3_600_000,
        roomIds: ['studio-a'],
      });
      assert.deepEqual(
        overlapping.map((b) => b.id),
        ['bk-1', 'bk-2'],
      );
      const bk1 = (await store.bookings.get('bk-1'))!;
      assert.deepEqual(bk1.requiredFeatures, ['piano']);
      assert.equal((await store.bookings.firstConflict('studio-b', bk1.startAt, bk1.endAt, []))?.id, 'bk-3');
      assert.equal(await store.bookings.firstConflict('studio-b', bk1.startAt, bk1.endAt, ['bk-3']), undefined);
      assert.equal(
        await store.bookings.move('bk-1', bk1.version + 1, { roomId: 'studio-b', startAt: 0, endAt: 1 }),
        false,
      );
      assert.equal(
        await store.bookings.move('bk-1', bk1.version, {
          roomId: 'studio-b',
          startAt: bk1.startAt + 3_600_000,
          endAt: bk1.endAt + 3_600_000,
        }),
        true,
        'touching bk-3 (09:00–10:00) end to start is fine',
      );
      const moved = (await store.bookings.get('bk-1'))!;
      assert.equal(moved.version, bk1.version + 1);
      assert.equal(moved.roomId, 'studio-b');
      assert.equal(await store.bookings.setStatus('bk-1', moved.version, 'needs_rebooking'), true);
      assert.equal((await store.bookings.get('bk-1'))?.status, 'needs_rebooking');
      await store.site.writeSite(smallSite(), true);
      assert.equal((await store.site.getSite())?.generation, 2);
      assert.equal((await store.bookings.get('bk-1'))?.version, 1);
    });

    test('lists and counts: pages newest first, counts per status, active tasks per owner', async () => {
      const { store } = await open();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const t = newTask({ kind: i % 2 ? 'revert' : 'reflow_month' });
        ids.push(t.id);
        await store.tasks.createOrFind(t, { message: 'Queued' });
        await sleep(3);
      }
      await store.tasks.cancel(ids[0], 'Cancelled', 'alice');
      const page1 = await store.taskList.page({}, 2);
      assert.deepEqual(
        page1.rows.map((r) => r.id),
        [ids[4], ids[3]],
      );
      assert.equal(page1.more, true);
      const last = page1.rows.at(-1)!;
      const page2 = await store.taskList.page({}, 10, { createdAt: last.createdAt, id: last.id });
      assert.deepEqual(
        page2.rows.map((r) => r.id),
        [ids[2], ids[1], ids[0]],
      );
      assert.equal(page2.more, false);
      assert.deepEqual(
        (await store.taskList.page({ kind: 'revert' }, 10)).rows.map((r) => r.id),
        [ids[3], ids[1]],
      );
      const counts = await store.taskList.countsByStatus({});
      assert.deepEqual(counts, { working: 4, input_required: 0, completed: 0, failed: 0, cancelled: 1 });
      assert.equal(await store.principals.activeTaskCount('alice'), 4);
      assert.equal(await store.taskList.countLiveByDedupeKey(`key-${ids[0]}`, ['cancelled']), 1);
      assert.deepEqual(
        (await store.tasks.listForOwner('alice', 2)).map((t) => t.id),
        [ids[4], ids[3]],
      );
    });

    test('nodes: heartbeats on the store clock; a lapsed node is reaped with its claims released; unregister releases at once', async () => {
      const { store } = await open();
      await store.nodes.register({ id: 'node-1', host: 'h1', pid: 11, workers: 2 });
      await store.nodes.register({ id: 'node-2', host: 'h2', pid: 22, workers: 2 });
      const a = newTask();
      const b = newTask();
      await store.tasks.createOrFind(a, { message: 'Queued' });
      await sleep(3);
      await store.tasks.createOrFind(b, { message: 'Queued' });
      assert.equal((await store.tasks.claimNext('node-1', 60_000))?.id, a.id);
      assert.equal((await store.tasks.claimNext('node-2', 60_000))?.id, b.id);
      assert.equal(await store.nodes.heartbeat('node-1', [a.id]), true);
      const listed = await store.nodes.list();
      assert.deepEqual(
        listed.map((n) => [n.id, n.host, n.pid, n.workers]),
        [
          ['node-1', 'h1', 11, 2],
          ['node-2', 'h2', 22, 2],
        ],
      );
      assert.deepEqual(listed[0].running, [a.id]);
      assert.ok(Math.abs(listed[0].heartbeatAt - store.clock()) < 2000);
      await sleep(400);
      assert.equal(await store.nodes.heartbeat('node-2', [b.id]), true);
      assert.deepEqual(
        await store.nodes.reapLapsed(300, 'node-1 judging', 'node-1'),
        [],
        'a node never reaps itself (stalled after its own beat, it is left to the others)',
      );
      assert.equal((await store.tasks.get(a.id))?.claimedBy, 'node-1');
      assert.deepEqual(await store.nodes.reapLapsed(300, 'Node node-1 stopped beating', 'node-2'), ['node-1']);
      assert.deepEqual(await store.nodes.reapLapsed(300, 'again'), []);
      assert.equal((await store.tasks.get(a.id))?.claimedBy, null, 'the dead node’s claim is released');
      assert.equal((await store.tasks.get(b.id))?.claimedBy, 'node-2');
      assert.equal(await store.nodes.heartbeat('node-1', []), false, 'a reaped node hears it is dead');
      assert.deepEqual((await store.tasks.events(a.id)).at(-1)?.message, 'Node node-1 stopped beating');
      await store.nodes.unregister('node-2', 'Node node-2 shut down');
      assert.equal((await store.tasks.get(b.id))?.claimedBy, null);
      assert.deepEqual(await store.nodes.list(), []);
      assert.equal(await store.tasks.queueDepth(), 2);
    });

    /**
     * A store and what a listener hears of it: on PostgreSQL another node, on SQLite the same
     * process; `waitFor` waits (up to 2 s) until `signal:taskId` is heard.
     */
    async function openListening() {
      const { store, second } = await open();
      const listener = kind.name === 'postgres' ? await second() : store;
      const heard: string[] = [];
      listener.onSignal((signal: StoreSignal, taskId: string) => heard.push(`${signal}:${taskId}`));
      await listener.listening();
      const waitFor = async (expected: string) => {
        for (let i = 0; i < 100 && !heard.includes(expected); i++) await sleep(20);
        assert.ok(heard.includes(expected), `heard ${expected} (heard: ${heard.join(', ')})`);
      };
      return { store, heard, waitFor };
    }

    test('signals: create, cancel, answer (resumed) and release are heard, and nothing of a rolled-back create', async () => {
      const { store, heard, waitFor } = await openListening();
      const rolledBack = newTask();
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.tasks.createOrFind(rolledBack, { message: 'Queued' });
          throw new Error('abort');
        }),
      );
      const a = newTask();
      await store.tasks.createOrFind(a, { message: 'Queued' });
      await waitFor(`created:${a.id}`);
      const claimed = (await store.tasks.claimNext('node-1', 30_000))!;
      await store.tasks.release(fenceOf(claimed), 'Retry');
      await waitFor(`released:${a.id}`);
      const again = (await store.tasks.claimNext('node-1', 30_000))!;
      const pending = await store.inputs.park(fenceOf(again), { requests: { q: {} }, state: null, message: 'Ask' });
      await store.inputs.answer(a.id, Object.fromEntries(Object.keys(pending).map((k) => [k, 1])), 'alice');
      await waitFor(`answered:${a.id}`);
      await store.tasks.cancel(a.id, 'Cancelled', 'alice');
      await waitFor(`cancelled:${a.id}`);
      assert.equal(
        heard.some((h) => h.endsWith(rolledBack.id)),
        false,
        'a rolled-back change is never signalled',
      );
    });

    test('signals: claims released by reaping (releaseClaimsOf, reapLapsed, unregister) are heard, and nothing of a rolled-back one', async () => {
      const { store, heard, waitFor } = await openListening();
      await store.nodes.register({ id: 'node-2', host: 'h2', pid: 22, workers: 1 });
      await store.nodes.register({ id: 'node-3', host: 'h3', pid: 33, workers: 1 });
      const claimed: Record<string, string> = {};
      for (const claimant of ['gone-1', 'node-2', 'node-3', 'kept-4']) {
        await store.tasks.createOrFind(newTask(), { message: 'Queued' });
        claimed[claimant] = (await store.tasks.claimNext(claimant, 60_000))!.id;
      }
      await assert.rejects(
        store.transaction(async (tx) => {
          assert.equal(await tx.tasks.releaseClaimsOf(['kept-4'], 'Released, then rolled back'), 1);
          throw new Error('abort');
        }),
      );
      assert.equal(await store.tasks.releaseClaimsOf(['gone-1'], 'Its process is gone'), 1);
      await waitFor(`released:${claimed['gone-1']}`);
      await sleep(100);
      assert.deepEqual(await store.nodes.reapLapsed(50, 'Node node-2 stopped beating', 'node-3'), ['node-2']);
      await waitFor(`released:${claimed['node-2']}`);
      await store.nodes.unregister('node-3', 'Node node-3 shut down');
      await waitFor(`released:${claimed['node-3']}`);
      assert.equal((await store.tasks.get(claimed['kept-4']))?.claimedBy, 'kept-4', 'the rollback kept the claim');
      assert.equal(heard.includes(`released:${claimed['kept-4']}`), false, 'a rolled-back release is never signalled');
    });

    test('migrate is idempotent, seeds an empty site once, and reports the migrations applied', async () => {
      const { store } = await open();
      assert.equal(await store.migrationsApplied(), true);
      assert.equal(await store.site.getSite(), undefined);
      assert.deepEqual(await store.migrate({ seed: smallSite }), { seeded: true });
      assert.deepEqual(await store.migrate({ seed: smallSite }), { seeded: false });
      assert.equal(await store.site.bookingCount(), 3);
      await store.ping();
      assert.ok(Math.abs((await store.now()) - store.clock()) < 1000, 'clock() estimates the store clock');
    });
  });
}
