// Engines are nodes of the store: a node whose heartbeat lapsed is dead and a survivor takes its
// tasks over within about one lease; a clean stop leaves at once; a cancel sent through another
// node reaches the attempt through the store's signal.
import assert from 'node:assert/strict';
import { after, afterEach, test } from 'node:test';
import { AttemptInterrupted, TaskEngine, type TaskHandler } from '../src/index.ts';
import { onPostgres } from '../../../scripts/test-store.mjs';
import { engineFactory, gated, settled, silent, until } from './engine-helper.ts';

const engines = engineFactory();
afterEach(() => engines.closeAll());
after(() => engines.removeDir());

const LONG_LEASE_MS = 600_000; // its heartbeats (a third of it) never fire during a test

test('a node whose heartbeat lapsed: a survivor releases its working task within about a lease and runs it; the dead attempt writes nothing', async () => {
  let raced = 0;
  for (let scene = 1; ; scene++) {
    assert.ok(scene <= 5, `B took the task before A's claim landed in ${raced} scenes of ${scene - 1}`);
    const path = engines.freshPath();
    const leaseMs = 1000;
    const b = gated('job');
    const a = gated('job');
    // Node A claims the task, then falls silent (its heartbeats never come, like a frozen or dead
    // process). Its claim has a lease of ten minutes, so only A's lapse as a node lets B take the task.
    // Node B, with a lease of 1 s, declares A dead once A's heartbeat is older than 1 s. On SQLite B is
    // up first: started later, it would reclaim A's claim at once by the same-host pid check (both are
    // this process), not by the lapse. On PostgreSQL (no pid check) B starts once A has claimed: up
    // first, it would hear the create's NOTIFY too and race A for the claim.
    const openB = async () => {
      const opened = await engines.open(path, [b.handler], { leaseMs, sweepIntervalMs: 50 });
      await opened.engine.start();
      return opened;
    };
    let first: Awaited<ReturnType<typeof openB>> | undefined = onPostgres() ? undefined : await openB();
    const { engine: nodeA } = await engines.open(path, [a.handler], { leaseMs: LONG_LEASE_MS });
    await nodeA.start();
    const lastHeartbeat = Date.now();
    const { task } = await nodeA.create({ owner: 'o', kind: 'job', input: {} });
    // On a loaded machine B can declare A dead (A's only heartbeat is at its start) before A's
    // claim lands, and run the task itself: the engine as designed, but not this scene. Set it again.
    // Likewise when B declared A dead so soon after A's claim that B has released it already.
    await until(() => a.waiting() === 1 || b.waiting() === 1, 'attempt 1 on node A (or on B)');
    first ??= await openB();
    const { engine: nodeB, store } = first;
    if (a.waiting() === 0 || (await nodeB.get(task.id))!.claimedBy !== nodeA.instanceId) {
      raced++;
      await engines.closeAll();
      continue;
    }
    await until(() => b.waiting() === 1, 'node B to take the task over', 10_000);
    const tookMs = Date.now() - lastHeartbeat;
    assert.ok(tookMs < 10 * leaseMs, `taken over ${tookMs} ms after A's last heartbeat: about a lease (${leaseMs} ms)`);
    const row = (await nodeB.get(task.id))!;
    // Attempt 2 as a rule; later when A was declared dead before its claim landed (a loaded machine)
    // and let its claim go at once, as it must.
    assert.equal(row.claimedBy, nodeB.instanceId);
    assert.ok(row.attempt >= 2, `attempt ${row.attempt}`);
    assert.ok(
      (await store.tasks.events(task.id)).some((e) => e.kind === 'released' && /stopped answering/.test(e.message)),
      'the release says why',
    );
    assert.ok(
      (await store.nodes.list()).some((n) => n.id === nodeB.instanceId),
      'B is a node',
    );
    // A wakes and finishes its attempt: refused by the fence; the task ends with B's attempt.
    a.openNext();
    await until(() => nodeA.runningCount === 0, 'node A to let go of its attempt');
    assert.equal((await nodeB.get(task.id))!.status, 'working', "A's finish was refused");
    b.openNext();
    const done = await settled(nodeB, task.id);
    assert.deepEqual([done?.status, done?.attempt], ['completed', row.attempt]);
    assert.ok(!(await store.tasks.events(task.id)).some((e) => e.kind === 'completed' && e.attempt === 1));
    return;
  }
});

test('a clean stop leaves the store at once: the node is gone from the list and its task is free for another node', async () => {
  const path = engines.freshPath();
  const a = gated('job');
  const { engine: nodeA, store } = await engines.open(path, [a.handler], { leaseMs: LONG_LEASE_MS });
  await nodeA.start();
  const { task } = await nodeA.create({ owner: 'o', kind: 'job', input: {} });
  await until(() => a.waiting() === 1, 'the attempt on node A');
  assert.ok(
    (await store.nodes.list()).some((n) => n.id === nodeA.instanceId),
    'A registered at start',
  );
  await nodeA.stop(0);
  assert.deepEqual(await store.nodes.list(), [], 'A unregistered');
  // Another node claims it at once: no waiting for A's ten-minute lease.
  const b = gated('job');
  const { engine: nodeB } = await engines.open(path, [b.handler]);
  await nodeB.kick();
  // The claim is made by the kick; the attempt reaches the handler a few store round trips later.
  await until(() => b.waiting() === 1, 'node B to claim it at once', 2_000);
  assert.equal((await nodeB.get(task.id))!.claimedBy, nodeB.instanceId);
  b.openNext();
  assert.equal((await settled(nodeB, task.id))?.status, 'completed');
});

test('a cancel through another node sharing the store stops the attempt where it runs, at once, through the store signal', async () => {
  const attempts: AbortSignal[] = [];
  const job: TaskHandler = {
    kind: 'job',
    // Ignores nothing, writes nothing until aborted: only the abort ends it.
    async run(_input, ctx) {
      attempts.push(ctx.signal);
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
      ctx.signal.throwIfAborted();
      return { status: 'completed', result: {}, message: 'not reached' };
    },
  };
  const { engine: runner, store, pool } = await engines.open(engines.freshPath(), [job], { leaseMs: LONG_LEASE_MS });
  await runner.start();
  // A second node on the same store, running nothing itself; the cancel arrives there.
  const other = new TaskEngine({ store, pool, logger: silent, concurrency: 0, leaseMs: LONG_LEASE_MS });
  other.register(job);
  await other.start();
  try {
    const { task } = await other.create({ owner: 'o', kind: 'job', input: {} });
    await until(() => attempts.length === 1, 'the attempt on the runner');
    assert.equal(await other.cancel(task.id, 'o'), true);
    await until(() => attempts[0].aborted, 'the runner to stop the cancelled attempt', 2_000);
    await until(() => runner.runningCount === 0, 'the runner to let go of it');
    assert.equal((await runner.get(task.id))?.status, 'cancelled');
  } finally {
    await other.stop(0);
  }
});

test('a node that hears from its heartbeat it was declared dead stops its attempt, joins again, and may claim the task anew', async () => {
  const path = engines.freshPath();
  const a = gated('job');
  // A lease long enough that a busy machine cannot lapse attempt 2 between A's heartbeats (a third
  // of it): with 300 ms, a stalled event loop let A's own sweep take attempt 2 back as attempt 3.
  const leaseMs = 2_000;
  const { engine: nodeA, store } = await engines.open(path, [a.handler], { leaseMs });
  await nodeA.start();
  const { task } = await nodeA.create({ owner: 'o', kind: 'job', input: {} });
  await until(() => a.waiting() === 1, 'attempt 1 on node A');
  // Another node, its clock a lease and a second ahead, finds A's heartbeat older than a lease: A is
  // dead. On the store's own clock (PostgreSQL's cannot be moved) that is a lapse of -1000 ms.
  const { store: later } = await engines.open(path, [], { concurrency: 0 });
  assert.deepEqual(await later.nodes.reapLapsed(leaseMs - (leaseMs + 1_000), 'declared dead by the test'), [
    nodeA.instanceId,
  ]);
  await until(
    async () => (await store.nodes.list()).some((n) => n.id === nodeA.instanceId),
    'A to hear it and join again',
  );
  // Its attempt 1 was stopped; as a live node again it claims the released task: attempt 2.
  await until(async () => (await nodeA.get(task.id))?.attempt === 2, 'attempt 2 on node A');
  // The claim is written before the attempt reaches the handler (a few store round trips later).
  await until(() => a.waiting() > 0, 'attempt 2 to reach the handler');
  assert.equal(a.waiting(), 1, 'one attempt at a time');
  a.openNext();
  assert.deepEqual((await settled(nodeA, task.id))?.attempt, 2);
});

/** A gated job (`a`) whose attempts' abort signals are kept in `signals`, in the order they started. */
function gatedWatched() {
  const a = gated('job');
  const signals: AbortSignal[] = [];
  const job: TaskHandler = {
    kind: 'job',
    run: (input, ctx) => (signals.push(ctx.signal), a.handler.run(input, ctx)),
  };
  return { a, signals, job };
}

test('a node that hears it was declared dead stops only the attempts the reap released: one it claimed since runs on', async () => {
  const path = engines.freshPath();
  const { a, signals, job } = gatedWatched();
  const leaseMs = 2_000;
  const { store, pool } = await engines.open(path, [], { concurrency: 0 });
  // A's store, its heartbeats held at the test's word: the order a busy machine can make, where A's
  // own attempt hears of the reap (its lease renewal is refused) and A claims the task anew before
  // A's next heartbeat comes back with "declared dead".
  let heldBeats = 0;
  let sendBeats!: () => void;
  const beatsSent = new Promise<void>((resolve) => (sendBeats = resolve));
  let holdBeats = false;
  const nodes = new Proxy(store.nodes, {
    get: (target, key) =>
      key === 'heartbeat'
        ? async (id: string, running: string[]) => {
            if (holdBeats) {
              heldBeats++;
              await beatsSent;
            }
            return target.heartbeat(id, running);
          }
        : Reflect.get(target, key, target),
  });
  const storeOfA = new Proxy(store, {
    get: (target, key) => {
      if (key === 'nodes') return nodes;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const nodeA = new TaskEngine({
    store: storeOfA,
    pool,
    logger: silent,
    concurrency: 1,
    leaseMs,
    sweepIntervalMs: 60_000,
  });
  nodeA.register(job);
  await nodeA.start();
  try {
    const { task } = await nodeA.create({ owner: 'o', kind: 'job', input: {} });
    await until(() => a.waiting() === 1, 'attempt 1 on node A');
    // Once a heartbeat is held, none is under way: the reap below is answered only by the held one.
    holdBeats = true;
    await until(() => heldBeats === 1, "A's next heartbeat");
    assert.deepEqual(await store.nodes.reapLapsed(-1_000, 'declared dead by the test'), [nodeA.instanceId]);
    await until(
      async () => (await nodeA.get(task.id))?.attempt === 2 && a.waiting() === 1,
      'attempt 1 to hear of the reap from its lease, and attempt 2 on node A',
    );
    holdBeats = false;
    sendBeats();
    await until(
      async () => (await store.nodes.list()).some((n) => n.id === nodeA.instanceId),
      'A to hear it was declared dead and join again',
    );
    assert.equal(signals.length, 2);
    assert.ok(signals[0].aborted, 'attempt 1, released by the reap, stopped');
    assert.equal(signals[1].aborted, false, 'attempt 2, claimed since the reap, runs on');
    a.openNext();
    assert.deepEqual([(await settled(nodeA, task.id))?.status, (await nodeA.get(task.id))?.attempt], ['completed', 2]);
  } finally {
    await nodeA.stop(0);
  }
});

test('a node that hears from its heartbeat it was declared dead stops the attempt the reap released at once, not at its own next lease renewal', async () => {
  const path = engines.freshPath();
  const { a, signals, job } = gatedWatched();
  // The attempt renews its lease every 20 s (a third of the lease), the node beats at every sweep
  // (100 ms): within the test only the heartbeat can tell the attempt of the reap.
  const { engine: nodeA } = await engines.open(path, [job], { leaseMs: 60_000, sweepIntervalMs: 100 });
  await nodeA.start();
  const { task } = await nodeA.create({ owner: 'o', kind: 'job', input: {} });
  await until(() => a.waiting() === 1, 'attempt 1 on node A');
  const { store: other } = await engines.open(path, [], { concurrency: 0 });
  assert.deepEqual(await other.nodes.reapLapsed(-1_000, 'declared dead by the test'), [nodeA.instanceId]);
  await until(() => signals[0].aborted, 'attempt 1, released by the reap, to stop', 5_000);
  assert.equal((signals[0].reason as AttemptInterrupted).why, 'lease lost');
  // A, alive again, claims the released task anew.
  await until(async () => (await nodeA.get(task.id))?.attempt === 2 && a.waiting() === 1, 'attempt 2 on node A');
  a.openNext();
  assert.deepEqual([(await settled(nodeA, task.id))?.status, (await nodeA.get(task.id))?.attempt], ['completed', 2]);
});
