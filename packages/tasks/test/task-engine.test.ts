// The durable engine against a real store (REFLOW_TEST_STORE): durable create, dedupe, terminal states that stay
// terminal, retries, fenced writes from a superseded attempt, restart reclaim and TTL.
import assert from 'node:assert/strict';
import { after, afterEach, test } from 'node:test';
import { PermanentTaskError, type TaskHandler } from '../src/index.ts';
import { engineFactory, gated, until, settled } from './engine-helper.ts';
import { MOVES_THE_CLOCK, SAME_HOST_PIDS, sqliteOnly } from '../../../scripts/test-store.mjs';

const engines = engineFactory();
afterEach(() => engines.closeAll());
after(() => engines.removeDir());
const engineOn: typeof engines.open = (...args) => engines.open(...args);
const freshPath = engines.freshPath;
/** A write a commit makes inside its transaction (an audit row), to see whether it rolled back. */
const sideEffect = (taskId: string) => ({
  taskId,
  bookingId: 'bk-side-effect',
  code: 'test',
  reason: 'side effect',
  recordedAt: Date.now(),
});

const echo: TaskHandler<{ value: number }> = {
  kind: 'echo',
  async run(input, ctx) {
    ctx.progress(`working on ${input.value}`);
    return { status: 'completed', result: { doubled: input.value * 2 }, message: 'done' };
  },
};

test('create is durable, dedupes identical work per owner, and completes', async () => {
  const path = freshPath();
  const { engine } = await engineOn(path, [echo]);
  // Started after the dedupe checks: a finished task is no longer "identical work" to dedupe.
  const a = await engine.create({ owner: 'alice', kind: 'echo', input: { value: 21 } });
  const reader = await engines.openReader(path);
  try {
    assert.ok(await reader.tasks.get(a.task.id), 'row visible to another connection');
  } finally {
    await reader.close();
  }
  const again = await engine.create({ owner: 'alice', kind: 'echo', input: { value: 21 } });
  assert.equal(again.created, false);
  assert.equal(again.task.id, a.task.id);
  assert.equal((await engine.create({ owner: 'bob', kind: 'echo', input: { value: 21 } })).created, true);
  // Two forms of one piece of work (a field that is not part of it): the same work when `sameWorkAs` says so.
  const form = (approval: boolean) => ({
    owner: 'alice',
    kind: 'echo',
    input: { value: 7, approval },
    sameWorkAs: { value: 7 },
  });
  const plain = await engine.create(form(false));
  const other = await engine.create(form(true));
  assert.deepEqual([plain.created, other.created, other.task.id], [true, false, plain.task.id]);
  assert.equal(
    plain.task.dedupeKey,
    (await engine.create({ owner: 'carol', kind: 'echo', input: { value: 7 } })).task.dedupeKey,
  );
  // An engine not yet started claims nothing on its own: no attempt began during the checks above.
  const waiting = await engine.get(a.task.id);
  assert.deepEqual([waiting?.attempt, waiting?.claimedBy], [0, null]);
  await engine.start();
  const done = await settled(engine, a.task.id);
  assert.equal(done?.status, 'completed');
  assert.deepEqual(JSON.parse(done.result!), { doubled: 42 });
  assert.deepEqual(
    (await engine.store.tasks.events(a.task.id)).map((e) => e.kind),
    ['created', 'claimed', 'progress', 'completed'],
  );
  // Terminal means terminal: a later cancel changes nothing.
  assert.equal(await engine.cancel(a.task.id, 'alice'), false);
  assert.equal((await engine.get(a.task.id))?.status, 'completed');
});

test('a failing attempt is retried; a task out of attempts fails with the reason; a permanent error fails at once', async () => {
  let calls = 0;
  const flaky: TaskHandler = {
    kind: 'flaky',
    async run() {
      if (++calls === 1) throw new Error('transient');
      return { status: 'completed', result: { calls }, message: 'ok' };
    },
  };
  const broken: TaskHandler = {
    kind: 'broken',
    maxAttempts: 2,
    async run() {
      throw new Error('always broken');
    },
  };
  const refused: TaskHandler = {
    kind: 'refused',
    async run() {
      throw new PermanentTaskError('bad input', -32602);
    },
  };
  const { engine } = await engineOn(freshPath(), [flaky, broken, refused]);
  await engine.start();
  const f = await settled(engine, (await engine.create({ owner: 'o', kind: 'flaky', input: {} })).task.id);
  assert.equal(f?.status, 'completed');
  assert.equal(f.attempt, 2);
  const b = await settled(engine, (await engine.create({ owner: 'o', kind: 'broken', input: {} })).task.id);
  assert.equal(b?.status, 'failed');
  assert.match(b.error!.message, /Failed after 2 attempt\(s\): always broken/);
  const r = await settled(engine, (await engine.create({ owner: 'o', kind: 'refused', input: {} })).task.id);
  assert.deepEqual([r?.status, r?.attempt, r?.error?.code], ['failed', 1, -32602]);
});

test('a cancelled task discards its attempt: writes it would commit roll back', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const path = freshPath();
  const { engine } = await engineOn(path, []);
  engine.register({
    kind: 'slow',
    async run(_input, ctx) {
      await gate;
      return {
        status: 'completed',
        commit: async (tx) => {
          await tx.audit.recordUnresolved(sideEffect(ctx.taskId));
          return { result: {}, message: 'applied' };
        },
      };
    },
  });
  await engine.start();
  const { task } = await engine.create({ owner: 'o', kind: 'slow', input: {} });
  await until(() => engine.runningCount === 1, 'the attempt to start');
  assert.equal(await engine.cancel(task.id, 'o'), true);
  release();
  await until(() => engine.runningCount === 0, 'the cancelled attempt to end');
  assert.equal((await engine.get(task.id))?.status, 'cancelled');
  assert.deepEqual(await engine.store.audit.unresolvedOf(task.id), [], 'its write rolled back');
});

test(
  'after a restart the new process reclaims the task; the old attempt, still running, can no longer write',
  sqliteOnly(SAME_HOST_PIDS),
  async () => {
    let releaseOld!: () => void;
    const oldGate = new Promise<void>((r) => (releaseOld = r));
    const path = freshPath();
    const old = await engineOn(path, []);
    old.engine.register({
      kind: 'job',
      // Like a solve that never looks at its signal: it only ends when the test lets it.
      async run(_input, ctx) {
        await oldGate;
        return {
          status: 'completed',
          commit: async (tx) => {
            await tx.audit.recordUnresolved(sideEffect(ctx.taskId));
            return { result: { by: 'old' }, message: 'old' };
          },
        };
      },
    });
    await old.engine.start();
    const { task } = await old.engine.create({ owner: 'o', kind: 'job', input: {} });
    await until(() => old.engine.runningCount === 1, 'the first attempt to start');
    // A second process starts on the same file, as after a crash of the first; its attempt waits on a gate.
    const next = gated('job');
    const fresh = await engineOn(path, [next.handler]);
    await fresh.engine.start();
    await until(() => next.waiting() === 1, 'the second attempt to start');
    // The old attempt now tries to commit while attempt 2 holds the task (status still working).
    releaseOld();
    await until(() => old.engine.runningCount === 0, 'the old attempt to end');
    const during = (await fresh.engine.get(task.id))!;
    assert.deepEqual(
      [during.status, during.attempt, during.claimedBy, during.result],
      ['working', 2, fresh.engine.instanceId, null],
      'the stale attempt changed nothing',
    );
    assert.deepEqual(await old.store.audit.unresolvedOf(task.id), [], 'its commit rolled back');
    assert.ok(!(await fresh.engine.store.tasks.events(task.id)).some((e) => e.attempt === 1 && e.kind === 'completed'));
    next.openNext();
    const done = await settled(fresh.engine, task.id);
    assert.deepEqual([done?.status, done?.attempt], ['completed', 2]);
    assert.deepEqual(JSON.parse(done!.result!), { input: {} }, "the result is the live attempt's");
  },
);

test(
  'TTL counts from creation: an expired task reads as gone and the sweeper deletes it with its history',
  sqliteOnly(MOVES_THE_CLOCK),
  async () => {
    let now = 1_000_000;
    const { engine, connection } = await engineOn(freshPath(), [echo], { now: () => now, defaultTtlMs: 60_000 });
    const { task } = await engine.create({ owner: 'o', kind: 'echo', input: { value: 1 } });
    assert.equal(task.expiresAt, task.createdAt + 60_000);
    now += 59_999;
    assert.ok(await engine.get(task.id));
    now += 1;
    assert.equal(await engine.get(task.id), undefined);
    assert.equal(await engine.store.tasks.sweepExpired(), 1);
    assert.equal(connection.sqlite.prepare('SELECT count(*) FROM tasks WHERE id = ?').pluck().get(task.id), 0);
    assert.equal((await engine.store.tasks.events(task.id)).length, 0);
  },
);
