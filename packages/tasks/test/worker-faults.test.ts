// Real worker threads that crash, run out of memory or ignore the stop flag: the task retries or
// fails with the reason, a cancelled one is stopped, and the pool replaces the thread it lost.
import assert from 'node:assert/strict';
import { getPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { after, afterEach, test } from 'node:test';
import { newStopFlag, raiseStopFlag, WORKER_NICENESS, type TaskHandler } from '../src/index.ts';
import { engineFactory, until, settled } from './engine-helper.ts';
import type { Misbehaviour } from './workers/misbehaving-worker.ts';

const WORKER = fileURLToPath(new URL('./workers/misbehaving-worker.ts', import.meta.url));
const engines = engineFactory();
afterEach(() => engines.closeAll());
after(() => engines.removeDir());

let started = 0;
/** Runs the misbehaving worker; cancel raises its stop flag, then terminates the thread after 200 ms. */
const inWorker: TaskHandler<{ mode: Misbehaviour }> = {
  kind: 'worker',
  async run(input, ctx) {
    const stopFlag = newStopFlag();
    const hardStop = new AbortController();
    ctx.signal.addEventListener('abort', () => {
      raiseStopFlag(stopFlag);
      setTimeout(() => hardStop.abort(ctx.signal.reason), 200).unref();
    });
    const out = await ctx.pool.run<string>(input, {
      filename: WORKER,
      signal: hardStop.signal,
      stopFlag,
      onMessage: () => started++,
    });
    return { status: 'completed', result: { out }, message: out };
  },
};

test('a worker thread that exits or runs out of memory fails its attempt; retried, then failed with the reason; the pool carries on', async () => {
  const { engine } = await engines.open(engines.freshPath(), [inWorker], {
    maxAttempts: 2,
    maxOldGenerationSizeMb: 32,
  });
  await engine.start();
  const crashed = await settled(
    engine,
    (await engine.create({ owner: 'o', kind: 'worker', input: { mode: 'exit' } })).task.id,
  );
  assert.equal(crashed?.status, 'failed');
  assert.equal(crashed.attempt, 2, 'retried once');
  assert.match(crashed.error!.message, /^Failed after 2 attempt\(s\): .*exit/i);
  const oom = await settled(
    engine,
    (await engine.create({ owner: 'o', kind: 'worker', input: { mode: 'oom' } })).task.id,
  );
  assert.equal(oom?.status, 'failed');
  assert.match(oom.error!.message, /^Failed after 2 attempt\(s\): .*memory/i);
  // The pool replaced the dead threads: the next task runs.
  const next = (await engine.create({ owner: 'o', kind: 'worker', input: { mode: 'cooperative', n: 1 } })).task.id;
  await until(() => started > 0, 'a fresh worker to start');
  await engine.cancel(next, 'o');
  assert.equal((await settled(engine, next))?.status, 'cancelled');
});

test('cancel: a worker that checks the flag stops; one that ignores it is terminated after the grace period', async () => {
  const { engine, pool } = await engines.open(engines.freshPath(), [inWorker]);
  await engine.start();
  for (const mode of ['cooperative', 'spin'] as const) {
    started = 0;
    const { task } = await engine.create({ owner: 'o', kind: 'worker', input: { mode } });
    await until(() => started > 0, `${mode} worker running`);
    const t0 = Date.now();
    assert.equal(await engine.cancel(task.id, 'o'), true);
    await until(() => engine.runningCount === 0, `${mode} attempt to end`);
    assert.equal((await engine.get(task.id))?.status, 'cancelled');
    if (mode === 'spin') assert.ok(Date.now() - t0 >= 150, 'the spinning thread got its grace period first');
    assert.equal(pool.utilisation, 0);
  }
});

test(
  'worker threads run at a lower CPU priority than the thread that answers requests (Linux)',
  { skip: process.platform !== 'linux' },
  async () => {
    // Relative to the process's own nice value (a run under `nice -n 10` starts at 10); 19 is the ceiling.
    const base = getPriority();
    const { engine } = await engines.open(engines.freshPath(), [inWorker]);
    await engine.start();
    const task = await settled(
      engine,
      (await engine.create({ owner: 'o', kind: 'worker', input: { mode: 'niceness' } })).task.id,
    );
    assert.equal(task?.status, 'completed');
    const worker = Number(JSON.parse(task.result!).out);
    assert.equal(worker, Math.min(19, base + WORKER_NICENESS), "the worker thread's nice value");
    if (base < 19) assert.ok(worker > base, `the worker thread (${worker}) is nicer than the process (${base})`);
    assert.equal(getPriority(), base, "the main thread's is unchanged");
  },
);
