// What an operator reads in the log: every line of an attempt names its task, attempt and kind; a
// retried or failed attempt logs the error; a stopped one says why; the engine's own failures (a
// claim, a sweep, leaving the store) are logged with their error instead of thrown; a sweep says
// which nodes it took over and how many expired tasks it deleted, and only when it did.
// Real engines on this run's store (REFLOW_TEST_STORE).
import assert from 'node:assert/strict';
import { after, afterEach, test } from 'node:test';
import { openSqliteStore } from '@reflow/db';
import { TaskEngine, WorkerPool, type TaskHandler } from '../src/index.ts';
import { engineFactory, gated, recordingLogger, settled, until, type LogLine } from './engine-helper.ts';
import { MOVES_THE_CLOCK, sqliteOnly } from '../../../scripts/test-store.mjs';

const engines = engineFactory();
afterEach(() => engines.closeAll());
after(() => engines.removeDir());

const summary = (lines: LogLine[]) => lines.map((l) => [l.level, l.message]);

test('each line of an attempt names its task, attempt and kind; the finish says the status', async () => {
  const job = gated('job');
  const { logger, lines } = recordingLogger();
  const { engine } = await engines.open(engines.freshPath(), [job.handler], { logger });
  await engine.start();
  const { task } = await engine.create({ owner: 'o', kind: 'job', input: {} });
  await until(() => job.waiting() === 1, 'the attempt to start');
  job.openNext();
  await settled(engine, task.id);
  await until(() => lines.some((l) => l.message === 'task attempt finished'), 'the finish to be logged');
  const ofTask = lines.filter((l) => l.fields.taskId === task.id);
  assert.deepEqual(summary(ofTask), [
    ['info', 'task attempt started'],
    ['info', 'task attempt finished'],
  ]);
  for (const line of ofTask) assert.deepEqual([line.fields.attempt, line.fields.kind], [1, 'job']);
  assert.equal(ofTask[1].fields.status, 'completed');
});

test('a failed attempt logs the error it retries on, and the last one the error the task fails with', async () => {
  const failing: TaskHandler = {
    kind: 'failing',
    maxAttempts: 2,
    async run() {
      throw new Error('disk full');
    },
  };
  const { logger, lines } = recordingLogger();
  const { engine } = await engines.open(engines.freshPath(), [failing], { logger });
  await engine.start();
  const { task } = await engine.create({ owner: 'o', kind: 'failing', input: {} });
  assert.equal((await settled(engine, task.id))?.status, 'failed');
  await until(() => lines.some((l) => l.message === 'task failed'), 'the failure to be logged');
  const problems = lines.filter((l) => l.level !== 'info' && l.fields.taskId === task.id);
  assert.deepEqual(
    problems.map((l) => [l.level, l.message, l.fields.attempt, (l.fields.err as Error | undefined)?.message]),
    [
      ['warn', 'task attempt failed; will retry', 1, 'disk full'],
      ['error', 'task failed', 2, 'disk full'],
    ],
  );
});

test('a cancelled attempt logs that it was cancelled, whatever the handler threw on its way out', async () => {
  const started: (() => void)[] = [];
  const copying: TaskHandler = {
    kind: 'copying',
    async run(_input, ctx) {
      await new Promise<void>((resolve) => {
        started.push(resolve);
        ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      throw new Error('interrupted while copying');
    },
  };
  const { logger, lines } = recordingLogger();
  const { engine } = await engines.open(engines.freshPath(), [copying], { logger });
  await engine.start();
  const { task } = await engine.create({ owner: 'o', kind: 'copying', input: {} });
  await until(() => started.length === 1, 'the attempt to start');
  assert.equal(await engine.cancel(task.id, 'o'), true);
  await until(() => lines.some((l) => l.message === 'task attempt discarded'), 'the end of the attempt to be logged');
  const end = lines.find((l) => l.message === 'task attempt discarded')!;
  assert.match(String(end.fields.reason), /cancelled/);
  assert.equal(end.fields.taskId, task.id);
});

test(
  'a store that is gone: the claim, the sweep and leaving the store each log their error instead of throwing',
  sqliteOnly('a closed SQLite file stands for a store that is gone'),
  async () => {
    const path = engines.freshPath();
    const store = openSqliteStore(path);
    await store.migrate();
    const pool = new WorkerPool(1);
    const { logger, lines } = recordingLogger();
    const engine = new TaskEngine({ store, pool, logger, sweepIntervalMs: 20 });
    engine.register(gated('job').handler);
    try {
      await engine.start();
      await store.close();
      await engine.kick();
      await until(() => lines.some((l) => l.message === 'task sweep failed'), 'a sweep to fail');
      await engine.stop(0);
      const failures = new Map(lines.filter((l) => l.level === 'error').map((l) => [l.message, l.fields.err]));
      for (const message of ['claiming queued tasks failed', 'task sweep failed', 'leaving the store failed'])
        assert.match(String(failures.get(message)), /database connection is not open/, message);
    } finally {
      await pool.close();
    }
  },
);

test(
  'a sweep logs how many expired tasks it deleted, and logs nothing when there were none',
  sqliteOnly(MOVES_THE_CLOCK),
  async () => {
    let offset = 0;
    const job = gated('job');
    const { logger, lines } = recordingLogger();
    const { engine } = await engines.open(engines.freshPath(), [job.handler], {
      logger,
      now: () => Date.now() + offset,
      sweepIntervalMs: 20,
    });
    await engine.start();
    const { task } = await engine.create({ owner: 'o', kind: 'job', input: {}, ttlMs: 60_000 });
    await until(() => job.waiting() === 1, 'the attempt to start');
    job.openNext();
    await settled(engine, task.id);
    await new Promise((r) => setTimeout(r, 100)); // sweeps that find nothing to delete
    assert.deepEqual(
      lines.filter((l) => l.message === 'expired tasks deleted'),
      [],
    );
    offset = 120_000;
    await until(() => lines.some((l) => l.message === 'expired tasks deleted'), 'the sweep to delete the task');
    assert.deepEqual(lines.find((l) => l.message === 'expired tasks deleted')!.fields, { swept: 1 });
  },
);
