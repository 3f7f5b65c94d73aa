// The engine's less travelled paths, which the mutation run (docs/testing.md) found untested: the
// history each state change leaves (who claimed, who cancelled, a lapsed lease, a retry), giving up,
// a kind with no handler, a returned failure, a task held for an operator, an attempt that loses its
// fence as it fails, a graceful stop, and the TTL of a poll. Real engines on this run's store (REFLOW_TEST_STORE).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, test } from 'node:test';
import { EngineStoppingError, PermanentTaskError, type Logger, type TaskHandler } from '../src/index.ts';
import { engineFactory, gated, settled, until } from './engine-helper.ts';
import { testSql } from '../../../scripts/test-sql.mjs';
import { MOVES_THE_CLOCK, sqliteOnly } from '../../../scripts/test-store.mjs';

const engines = engineFactory();
afterEach(() => engines.closeAll());
after(() => engines.removeDir());

const echo: TaskHandler = {
  kind: 'echo',
  async run(input) {
    return { status: 'completed', result: input, message: 'done' };
  },
};

test('each state change leaves its event: who claimed, a retry released, who cancelled, a lapsed lease reclaimed', async () => {
  let calls = 0;
  const flaky: TaskHandler = {
    kind: 'flaky',
    maxAttempts: 2,
    async run() {
      calls++;
      throw new Error('transient');
    },
  };
  const job = gated('job');
  const path = engines.freshPath();
  const { engine } = await engines.open(path, [flaky, job.handler]);
  // A task another node claimed (its lease lapses below), set up before this engine starts: a
  // started engine would hear the create (on PostgreSQL, its NOTIFY) and claim it first.
  const { engine: idle, store: idleStore } = await engines.open(path, [job.handler], { concurrency: 0 });
  const lapsed = (await idle.create({ owner: 'o', kind: 'job', input: { n: 2 } })).task.id;
  const sql = await testSql(idleStore);
  const claimElsewhere = (leaseExpiresAt: number) =>
    sql.run(
      "UPDATE tasks SET claimed_by = 'inst_x@another-host:1', attempt = 1, lease_expires_at = ? WHERE id = ?",
      leaseExpiresAt,
      lapsed,
    );
  assert.equal(await claimElsewhere(Date.now() + 3_600_000), 1);
  await engine.start();
  const failed = await settled(engine, (await engine.create({ owner: 'o', kind: 'flaky', input: {} })).task.id);
  assert.equal(calls, 2);
  assert.deepEqual([failed?.status, failed?.error?.code], ['failed', -32603], 'out of attempts: an internal error');
  const events = await engine.store.tasks.events(failed!.id);
  assert.deepEqual(
    events.map((e) => e.kind),
    ['created', 'claimed', 'released', 'claimed', 'failed'],
  );
  assert.deepEqual(events[1].data, { by: engine.instanceId }, 'the claim says who claimed');
  assert.match(events[2].message, /^Attempt 1 failed \(transient\); retrying$/);

  const { task } = await engine.create({ owner: 'o', kind: 'job', input: {} });
  await until(() => job.waiting() === 1, 'the attempt to start');
  assert.equal(await engine.cancel(task.id, 'alice'), true);
  const cancelled = (await engine.store.tasks.events(task.id)).find((e) => e.kind === 'cancelled');
  assert.deepEqual(cancelled?.data, { by: 'alice' }, 'the history says who cancelled');

  // A claim whose lease lapsed elsewhere is taken over, and the history says so. Lapsed a minute
  // ago: on PostgreSQL the database's clock judges it, not this process's.
  assert.equal((await engine.get(lapsed))?.claimedBy, 'inst_x@another-host:1', 'untouched until its lease lapsed');
  assert.equal(await claimElsewhere(Date.now() - 60_000), 1);
  await engine.kick();
  await until(async () => (await engine.get(lapsed))?.attempt === 2, 'the lapsed task to be reclaimed');
  assert.ok(
    (await engine.store.tasks.events(lapsed)).some(
      (e) => e.kind === 'released' && e.attempt === 1 && /lease of attempt 1 lapsed/.test(e.message),
    ),
  );
  job.openNext();
});

test('giving up fails only a working task out of attempts and unclaimed, records it, and says whether it did', async () => {
  const { engine } = await engines.open(engines.freshPath(), [echo], { concurrency: 0, maxAttempts: 1 });
  const { task } = await engine.create({ owner: 'o', kind: 'echo', input: {} });
  const q = engine.store.tasks;
  const error = { code: -32603, message: 'gave up' };
  assert.equal(await q.failExhausted(task.id, error), false, 'attempts left');
  const claimed = (await q.claimNext('inst_x@host:1', 60_000))!;
  const fence = { taskId: task.id, attempt: claimed.attempt, claimedBy: 'inst_x@host:1' };
  assert.equal(await q.failExhausted(task.id, error), false, 'its last attempt holds its lease');
  assert.equal(await q.release(fence, 'attempt 1 failed'), true);
  assert.equal(await q.failExhausted(task.id, error), true);
  const row = await engine.get(task.id);
  assert.deepEqual([row?.status, row?.error], ['failed', error]);
  assert.deepEqual(
    (await q.events(task.id)).map((e) => [e.kind, e.message]),
    [
      ['created', 'Queued echo'],
      ['claimed', 'Attempt 1 started'],
      ['released', 'attempt 1 failed'],
      ['failed', 'gave up'],
    ],
  );
  assert.equal(await q.failExhausted(task.id, { code: 1, message: 'again' }), false, 'already terminal');
  assert.equal(await q.failExhausted('tsk_unknown', error), false);
  assert.equal((await q.events(task.id)).length, 4);
});

test('a task of a kind this process has no handler for fails at once, saying so', async () => {
  const path = engines.freshPath();
  const { engine: accepting } = await engines.open(path, [echo], { concurrency: 0 });
  const { task } = await accepting.create({ owner: 'o', kind: 'echo', input: {} });
  const { engine } = await engines.open(path, []);
  await engine.start();
  const failed = await settled(engine, task.id);
  assert.deepEqual(
    [failed?.status, failed?.error],
    ['failed', { code: -32603, message: 'No handler for task kind echo' }],
  );
});

test('a returned failure and a permanent error with data fail the task with exactly that error', async () => {
  const returns: TaskHandler = {
    kind: 'returns',
    async run() {
      return { status: 'failed', error: { code: -32000, message: 'no room' }, message: 'no room' };
    },
  };
  const refuses: TaskHandler = {
    kind: 'refuses',
    async run() {
      throw new PermanentTaskError('bad month', -32602, { field: 'month' });
    },
  };
  const { engine } = await engines.open(engines.freshPath(), [returns, refuses]);
  await engine.start();
  const a = await settled(engine, (await engine.create({ owner: 'o', kind: 'returns', input: {} })).task.id);
  assert.deepEqual([a?.status, a?.error, a?.attempt], ['failed', { code: -32000, message: 'no room' }, 1]);
  const b = await settled(engine, (await engine.create({ owner: 'o', kind: 'refuses', input: {} })).task.id);
  assert.deepEqual([b?.status, b?.error], ['failed', { code: -32602, message: 'bad month', data: { field: 'month' } }]);
});

test('a task held for an operator: only an answer for that party resumes it, and the history says who', async () => {
  const approval: TaskHandler = {
    kind: 'approval',
    async run(_input, ctx) {
      if (ctx.resumed) return { status: 'completed', result: ctx.resumed.responses, message: 'approved' };
      return {
        status: 'input_required',
        requests: { ok: { ask: 'apply?' } },
        message: 'Awaiting',
        awaiting: 'operator',
      };
    },
  };
  const { engine } = await engines.open(engines.freshPath(), [approval]);
  await engine.start();
  const { task } = await engine.create({ owner: 'alice', kind: 'approval', input: {} });
  await until(async () => (await engine.get(task.id))?.heldFor === 'operator', 'the task to be held');
  assert.equal((await engine.get(task.id))?.status, 'working', 'the requester sees it working');
  const parked = (await engine.store.tasks.events(task.id)).find((e) => e.kind === 'input_required');
  assert.deepEqual(parked?.data, { keys: ['r1-ok'], awaiting: 'operator' });

  assert.deepEqual(
    await engine.answer(task.id, { 'r1-ok': 'yes' }, 'alice'),
    { accepted: 0, resumed: false },
    'not its party',
  );
  assert.deepEqual(await engine.answer(task.id, { 'r1-ok': 'yes' }, 'bob', 'auditor'), { accepted: 0, resumed: false });
  assert.deepEqual(await engine.answer('tsk_unknown', { 'r1-ok': 'yes' }, 'op', 'operator'), {
    accepted: 0,
    resumed: false,
  });
  assert.deepEqual(await engine.answer('tsk_unknown', { 'r1-ok': 'yes' }, 'op'), { accepted: 0, resumed: false });
  assert.deepEqual(await engine.answer(task.id, { 'r1-ok': 'yes' }, 'op', 'operator'), { accepted: 1, resumed: true });
  const received = (await engine.store.tasks.events(task.id)).find((e) => e.kind === 'input_received');
  assert.deepEqual(received?.data, { by: 'op', keys: 1, awaiting: 'operator' });
  const done = await settled(engine, task.id);
  assert.deepEqual([done?.status, JSON.parse(done!.result!)], ['completed', { ok: 'yes' }]);
});

test('an attempt that loses its fence while it fails for good writes nothing and ends quietly', async () => {
  const errors: unknown[] = [];
  const recording: Logger = { info() {}, warn() {}, error: (o) => errors.push(o), child: () => recording };
  const path = engines.freshPath();
  const { engine, store } = await engines.open(path, [], { logger: recording });
  const sql = await testSql(store);
  let ran = false;
  engine.register({
    kind: 'taken',
    maxAttempts: 1,
    // Another process takes the task over (as after a stall) just before this attempt fails.
    async run(_input, ctx) {
      await sql.run("UPDATE tasks SET claimed_by = 'inst_other@elsewhere:1' WHERE id = ?", ctx.taskId);
      ran = true;
      throw new Error('boom');
    },
  });
  await engine.start();
  const { task } = await engine.create({ owner: 'o', kind: 'taken', input: {} });
  await until(
    async () => (await engine.store.tasks.events(task.id)).some((e) => e.kind === 'claimed'),
    'the attempt to start',
  );
  // Not only "none running": between its claim and its launch the attempt is not counted yet.
  await until(() => ran && engine.runningCount === 0, 'the attempt to end');
  const row = (await engine.get(task.id))!;
  assert.deepEqual([row.status, row.claimedBy, row.error], ['working', 'inst_other@elsewhere:1', null]);
  assert.ok(!(await engine.store.tasks.events(task.id)).some((e) => e.kind === 'failed'));
  assert.equal(errors.length, 1, 'only the failure itself is logged, not a crash of the attempt');
});

test('stop gives a running attempt its grace to finish: the task completes instead of being released', async () => {
  const job = gated('job');
  const { engine } = await engines.open(engines.freshPath(), [job.handler]);
  await engine.start();
  const { task } = await engine.create({ owner: 'o', kind: 'job', input: {} });
  await until(() => job.waiting() === 1, 'the attempt to start');
  const stopped = engine.stop(5_000);
  setTimeout(() => job.openNext(), 60);
  // The deadline's timer is unref'd: once stop returns, it must not hold the test process open.
  const deadline = sleep(3_000, 'still stopping', { ref: false });
  const outcome = await Promise.race([stopped.then(() => 'stopped'), deadline]);
  assert.equal(outcome, 'stopped');
  assert.equal((await engine.get(task.id))?.status, 'completed');
});

test('a poll of a task reads it for exactly its TTL', sqliteOnly(MOVES_THE_CLOCK), async () => {
  let now = 2_000_000;
  const { engine } = await engines.open(engines.freshPath(), [echo], {
    now: () => now,
    defaultTtlMs: 1_000,
    concurrency: 0,
  });
  const { task } = await engine.create({ owner: 'o', kind: 'echo', input: {} });
  assert.equal(await engine.peek('tsk_unknown'), undefined);
  now += 999;
  assert.equal((await engine.peek(task.id))?.id, task.id);
  now += 1;
  assert.equal(await engine.peek(task.id), undefined);
});

test('a create is refused, writing nothing, for a kind with no handler or once the engine is stopping; an accepted one records who asked', async () => {
  const { engine, store } = await engines.open(engines.freshPath(), [echo], { concurrency: 0 });
  const sql = await testSql(store);
  const count = () => sql.value('SELECT count(*) FROM tasks');
  await assert.rejects(
    engine.create({ owner: 'o', kind: 'nope', input: {} }),
    /^Error: No handler for task kind nope$/,
  );
  const { task } = await engine.create({ owner: 'bob', kind: 'echo', input: {} });
  const created = (await engine.store.tasks.events(task.id)).find((e) => e.kind === 'created');
  assert.deepEqual([created?.message, created?.data], ['Queued echo', { by: 'bob', maxAttempts: 3 }]);
  await engine.stop(0);
  await assert.rejects(
    engine.create({ owner: 'o', kind: 'echo', input: { n: 2 } }),
    (error: unknown) => error instanceof EngineStoppingError && /accepts no new tasks/.test(error.message),
  );
  assert.equal(await count(), 1);
});

test('a wait begun once the engine has stopped, or with its request already ended, is answered at once', async () => {
  const { engine } = await engines.open(engines.freshPath(), [echo], { concurrency: 0 });
  const { task } = await engine.create({ owner: 'o', kind: 'echo', input: {} });
  // An 'abort' listener added to a signal already aborted never fires: these waits used to hang.
  const answered = (wait: Promise<unknown>) => Promise.race([wait, sleep(2_000).then(() => 'still waiting')]);
  const ended = new AbortController();
  ended.abort(new Error('the client closed the connection'));
  await assert.rejects(answered(engine.waitFor(task.id, undefined, ended.signal)), /the client closed the connection/);
  await engine.stop(0);
  await assert.rejects(
    answered(engine.waitFor(task.id)),
    (error: unknown) => error instanceof EngineStoppingError && /stays queued/.test(error.message),
  );
});

test(
  'a swept task still answers "expired" to its owner, and only to it, for a week; then it is forgotten',
  sqliteOnly(MOVES_THE_CLOCK),
  async () => {
    const day = 86_400_000;
    let now = 5_000_000;
    const { engine } = await engines.open(engines.freshPath(), [echo], {
      now: () => now,
      defaultTtlMs: 1_000,
      concurrency: 0,
    });
    const { task } = await engine.create({ owner: 'o', kind: 'echo', input: {} });
    now += 1_000;
    assert.equal(await engine.store.tasks.sweepExpired(), 1);
    assert.equal(await engine.get(task.id), undefined);
    now += 7 * day - 1;
    assert.equal(await engine.store.tasks.sweepExpired(), 0);
    assert.deepEqual([await engine.expired(task.id, 'o'), await engine.expired(task.id, 'mallory')], [true, false]);
    now += 2;
    await engine.store.tasks.sweepExpired();
    assert.equal(await engine.expired(task.id, 'o'), false, 'the tombstone went after its week');
  },
);
