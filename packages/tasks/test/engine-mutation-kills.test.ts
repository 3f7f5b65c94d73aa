// What the claim loop, the launch of an attempt, the sweep and stop do that the other engine tests
// did not pin down (the mutation run's survivors, docs/testing.md): one claim loop at a time, a
// kick during a loop runs it again, an engine that was not started claims nothing, the lease kept
// alive by heartbeats and lost when another takes the claim, progress throttled and heard, the
// attempt durations behind the poll interval, a dead node's claims taken over by the sweep, an
// attempt whose failure cannot be written reported as a crash, and stop leaving the nodes.
// Real engines on this run's store (REFLOW_TEST_STORE).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, test } from 'node:test';
import type { NewTask } from '@reflow/db';
import { AttemptInterrupted, PermanentTaskError, type TaskHandler } from '../src/index.ts';
import { engineFactory, gated, recordingLogger, settled, until } from './engine-helper.ts';
import { testSql } from '../../../scripts/test-sql.mjs';

const engines = engineFactory();
afterEach(() => engines.closeAll());
after(() => engines.removeDir());

const queued = (id: string, kind: string): NewTask => ({
  id,
  owner: 'o',
  kind,
  input: { id },
  dedupeKey: id,
  statusMessage: `Queued ${kind}`,
  ttlMs: 600_000,
  pollIntervalMs: 1_000,
  maxAttempts: 3,
});

/** Lets every pending callback run (on SQLite a kick's claim and launch happen within it). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

test('one claim loop at a time: kicks at once never run more attempts than the concurrency', async () => {
  const job = gated('job');
  const { engine, store } = await engines.open(engines.freshPath(), [job.handler], { concurrency: 1 });
  for (const id of ['tsk_a', 'tsk_b', 'tsk_c']) await store.tasks.createOrFind(queued(id, 'job'), { message: 'q' });
  await Promise.all([engine.kick(), engine.kick(), engine.kick()]);
  assert.equal(engine.runningCount, 1);
  const sql = await testSql(store);
  assert.equal(await sql.value('SELECT count(*) FROM tasks WHERE claimed_by IS NOT NULL'), 1);
});

test('a kick that arrives while the claim loop runs makes it go round again', async () => {
  const job = gated('job');
  const path = engines.freshPath();
  const { engine, store } = await engines.open(path, [job.handler], { concurrency: 2 });
  const { store: elsewhere } = await engines.open(path, [job.handler], { concurrency: 0 });
  // A task another node holds, with a lease far ahead: nothing to claim yet.
  await elsewhere.tasks.createOrFind(queued('tsk_late', 'job'), { message: 'q' });
  const holder = { taskId: 'tsk_late', attempt: 1, claimedBy: 'inst_0ff@another-host:1' };
  const sql = await testSql(elsewhere);
  assert.equal(
    await sql.run(
      'UPDATE tasks SET claimed_by = ?, attempt = 1, lease_expires_at = ? WHERE id = ?',
      holder.claimedBy,
      Date.now() + 3_600_000,
      holder.taskId,
    ),
    1,
  );
  await engine.start();
  await store.listening(); // on PostgreSQL the signals come through LISTEN
  // The loop's claim has looked (on SQLite at once, in this call) and found nothing...
  const loop = engine.kick();
  // ...then the holder lets the task go through another connection (on SQLite at once, and its
  // signal is not heard here; on PostgreSQL its NOTIFY is)...
  const released = elsewhere.tasks.release(holder, 'let go');
  // ...and a kick arrives while the loop is still going.
  void engine.kick();
  assert.equal(await released, true);
  await loop;
  await until(() => job.waiting() === 1, 'the released task to be claimed', 3_000);
});

test('an engine that was not started claims nothing, even when it answers a task back into the queue', async () => {
  const approval: TaskHandler = {
    kind: 'approval',
    async run(_input, ctx) {
      if (ctx.resumed) return { status: 'completed', result: ctx.resumed.responses, message: 'approved' };
      return { status: 'input_required', requests: { ok: { ask: 'apply?' } }, message: 'Awaiting' };
    },
  };
  const path = engines.freshPath();
  const { engine: worker } = await engines.open(path, [approval]);
  await worker.start();
  const { task } = await worker.create({ owner: 'o', kind: 'approval', input: {} });
  await until(async () => (await worker.get(task.id))?.status === 'input_required', 'the task to park');
  await worker.stop(0);

  const { engine: front } = await engines.open(path, [approval], { concurrency: 1 });
  const waiting = (await front.create({ owner: 'o', kind: 'approval', input: { n: 2 } })).task.id;
  assert.deepEqual(await front.answer('tsk_unknown', { 'r1-ok': 'yes' }, 'o'), { accepted: 0, resumed: false });
  await settle();
  assert.equal(front.runningCount, 0);
  assert.deepEqual(await front.answer(task.id, { 'r1-ok': 'yes' }, 'o'), { accepted: 1, resumed: true });
  await settle();
  assert.equal(front.runningCount, 0);
  for (const id of [task.id, waiting]) assert.equal((await front.get(id))?.claimedBy, null, `${id} left queued`);
});

test('heartbeats keep an attempt that outlives its lease several times; a claim taken by another stops it as "lease lost"', async () => {
  // A heartbeat every third of the lease: the rival takes over only if this engine's event loop
  // stalls for two thirds of it. At 300 ms a loaded machine (a 200 ms stall) did that; 1 s leaves room.
  const leaseMs = 1_000;
  const stop: { reason?: unknown } = {};
  const long: TaskHandler = {
    kind: 'long',
    async run(input: { ms: number }, ctx) {
      try {
        await sleep(input.ms, undefined, { signal: ctx.signal });
      } catch (error) {
        stop.reason = ctx.signal.reason;
        throw error;
      }
      return { status: 'completed', result: {}, message: 'done' };
    },
  };
  const path = engines.freshPath();
  const { engine, store } = await engines.open(path, [long], { leaseMs });
  // Another node that would take over any lapsed lease.
  const { engine: rival } = await engines.open(path, [long], { leaseMs });
  await engine.start();
  const { task } = await engine.create({ owner: 'o', kind: 'long', input: { ms: 4 * leaseMs } });
  await until(() => engine.runningCount === 1, 'the attempt to start');
  const over = new AbortController();
  const rivalry = (async () => {
    while (!over.signal.aborted) {
      await rival.kick();
      await sleep(leaseMs / 6);
    }
  })();
  try {
    const row = await settled(engine, task.id);
    assert.deepEqual([row?.status, row?.attempt, row?.claimedBy], ['completed', 1, engine.instanceId]);
    assert.equal(stop.reason, undefined);
  } finally {
    over.abort();
    await rivalry;
  }

  const second = (await engine.create({ owner: 'o', kind: 'long', input: { ms: 60_000 } })).task.id;
  await until(() => engine.runningCount === 1, 'the second attempt to start');
  const sql = await testSql(store);
  assert.equal(await sql.run("UPDATE tasks SET claimed_by = 'inst_other@elsewhere:1' WHERE id = ?", second), 1);
  const reason = (): unknown => stop.reason;
  await until(() => reason() !== undefined, 'the attempt to hear its lease is lost', 5_000);
  const heard = reason();
  assert.ok(heard instanceof AttemptInterrupted);
  assert.equal(heard.why, 'lease lost');
});

test('progress is written at most once per interval, the newest kept, and every write is heard by a waiter', async () => {
  const steps: TaskHandler = {
    kind: 'steps',
    async run(_input, ctx) {
      for (let i = 1; i <= 10; i++) {
        ctx.progress(`step ${i}`);
        await sleep(2);
      }
      return { status: 'completed', result: {}, message: 'done' };
    },
  };
  const { engine } = await engines.open(engines.freshPath(), [steps]);
  const { task } = await engine.create({ owner: 'o', kind: 'steps', input: {} });
  const heard: string[] = [];
  const done = engine.waitFor(task.id, (message) => heard.push(message), AbortSignal.timeout(15_000));
  await engine.kick();
  assert.equal((await done)?.status, 'completed');
  const written = (await engine.store.tasks.events(task.id)).filter((e) => e.kind === 'progress').map((e) => e.message);
  assert.equal(written[0], 'step 1', 'the first at once');
  assert.equal(written.at(-1), 'step 10', 'the last flushed before the outcome');
  assert.ok(written.length <= 4, `throttled: ${written.length} writes of 10 reports`);
  assert.deepEqual(heard, written);
});

test('the poll interval learns how long finished attempts of a kind take, and only finished ones', async () => {
  const slow = gated('slow');
  const stopped = gated('stopped');
  const { engine } = await engines.open(engines.freshPath(), [slow.handler, stopped.handler], {
    basePollIntervalMs: 1,
    concurrency: 2,
  });
  await engine.start();
  assert.equal(await engine.pollIntervalMs('slow'), 1, 'no estimate yet: the base');

  const began = Date.now();
  const { task } = await engine.create({ owner: 'o', kind: 'slow', input: {} });
  await until(() => slow.waiting() === 1, 'the attempt to start');
  const cancelled = (await engine.create({ owner: 'o', kind: 'stopped', input: {} })).task.id;
  await until(() => stopped.waiting() === 1, 'the other attempt to start');
  await sleep(400); // how long the attempts run
  assert.equal(await engine.cancel(cancelled, 'o'), true);
  slow.openNext();
  assert.equal((await settled(engine, task.id))?.status, 'completed');
  const took = Date.now() - began;
  await until(() => engine.runningCount === 0, 'both attempts to end');

  const interval = await engine.pollIntervalMs('slow');
  // A quarter of the typical attempt: it ran at least 400 ms and at most as long as the test waited.
  assert.ok(interval >= 100 && interval <= Math.ceil(took / 4), `poll interval ${interval} for ${took} ms`);
  assert.equal(await engine.pollIntervalMs('stopped'), 1, 'a cancelled attempt teaches nothing');
});

test('the sweep takes over the claims of a node whose heartbeat lapsed; stop leaves the nodes', async () => {
  const job = gated('job');
  const path = engines.freshPath();
  const { logger, lines } = recordingLogger();
  const { engine, store } = await engines.open(path, [job.handler], { logger, sweepIntervalMs: 20 });
  const sql = await testSql(store);
  const other = 'inst_0ff@another-host:1';
  await store.nodes.register({ id: other, host: 'another-host', pid: 1, workers: 1 });
  assert.equal(await sql.run('UPDATE nodes SET heartbeat_at = ? WHERE id = ?', Date.now() - 3_600_000, other), 1);
  await store.tasks.createOrFind(queued('tsk_held', 'job'), { message: 'q' });
  // Claimed by that node with a lease far ahead: only its node's death frees it.
  assert.equal(
    await sql.run(
      'UPDATE tasks SET claimed_by = ?, attempt = 1, lease_expires_at = ? WHERE id = ?',
      other,
      Date.now() + 3_600_000,
      'tsk_held',
    ),
    1,
  );
  await engine.start();
  await until(() => job.waiting() === 1, 'the task to be taken over', 5_000);
  const row = await engine.get('tsk_held');
  assert.deepEqual([row?.claimedBy, row?.attempt], [engine.instanceId, 2]);
  assert.ok(
    (await store.tasks.events('tsk_held')).some((e) => e.kind === 'released' && /stopped answering/.test(e.message)),
  );
  assert.deepEqual(
    (await store.nodes.list()).map((n) => n.id),
    [engine.instanceId],
  );
  job.openNext();
  await settled(engine, 'tsk_held');
  await sleep(100); // more sweeps, with no node to take over
  assert.deepEqual(
    lines.filter((l) => l.message === 'took over the tasks of nodes whose heartbeat lapsed').map((l) => l.fields.nodes),
    [[other]],
    'said once, naming the node',
  );
  await engine.stop(0);
  assert.deepEqual(await store.nodes.list(), [], 'gone at once, not after its heartbeat lapses');
});

test('an attempt whose failure cannot be written is reported as a crash, and the task is left to be retried', async () => {
  const { logger: recording, lines } = recordingLogger();
  const unwritable: TaskHandler = {
    kind: 'unwritable',
    maxAttempts: 1,
    async run() {
      // Its data cannot be stored (JSON has no bigint): the failed state's write throws.
      throw new PermanentTaskError('bad', -32602, { n: 1n });
    },
  };
  const { engine } = await engines.open(engines.freshPath(), [unwritable], { logger: recording });
  await engine.start();
  const { task } = await engine.create({ owner: 'o', kind: 'unwritable', input: {} });
  await until(() => lines.some((l) => l.message === 'task attempt crashed'), 'the crash to be reported', 5_000);
  const crash = lines.find((l) => l.message === 'task attempt crashed')!;
  assert.equal(crash.fields.taskId, task.id);
  assert.ok(crash.fields.err instanceof Error, 'with the error');
  const row = await engine.get(task.id);
  assert.deepEqual([row?.status, row?.error], ['working', null], 'nothing of the failure was written');
});
