// The create through the engine with an admit (where per-principal limits go): the admit runs inside
// the creating transaction, a refusal rolls back what it wrote and signals nothing, an identical
// task under way is found without asking the admit, and the store's `created` signal comes once per
// new task, after its commit. Real engines on this run's store (REFLOW_TEST_STORE).
import assert from 'node:assert/strict';
import { after, afterEach, test } from 'node:test';
import type { NewTask, StoreQueries } from '@reflow/db';
import type { TaskHandler } from '../src/index.ts';
import { engineFactory, until } from './engine-helper.ts';
import { testSql } from '../../../scripts/test-sql.mjs';

const engines = engineFactory();
afterEach(() => engines.closeAll());
after(() => engines.removeDir());

const echo: TaskHandler = {
  kind: 'echo',
  async run(input) {
    return { status: 'completed', result: input, message: 'done' };
  },
};

const aside = (id: string): NewTask => ({
  id,
  owner: 'o',
  kind: 'echo',
  input: { aside: id },
  dedupeKey: id,
  statusMessage: 'Queued echo',
  ttlMs: 60_000,
  pollIntervalMs: 1_000,
  maxAttempts: 3,
});

test('a create with an admit: a refusal rolls back what the admit wrote and signals nothing; an admitted task is signalled once, after its commit; a duplicate skips the admit', async () => {
  const path = engines.freshPath();
  const { engine, store } = await engines.open(path, [echo], { concurrency: 0 });
  const reader = await engines.openReader(path);
  try {
    const sql = await testSql(store);
    const heard: [string, string][] = [];
    const visibleWhenHeard: Promise<boolean>[] = [];
    const off = store.onSignal((signal, taskId) => {
      heard.push([signal, taskId]);
      // Another connection: it sees the row only once the create has committed.
      visibleWhenHeard.push(reader.tasks.get(taskId).then((row) => row !== undefined));
    });
    try {
      await store.listening(); // on PostgreSQL the signals come through LISTEN
      // The admit writes through its transaction, then refuses: both go.
      await assert.rejects(
        engine.create({
          owner: 'o',
          kind: 'echo',
          input: { n: 1 },
          admit: async (tx: StoreQueries) => {
            await tx.tasks.createOrFind(aside('tsk_written_by_admit'), { message: 'Queued echo' });
            throw new Error('over the limit');
          },
        }),
        /^Error: over the limit$/,
      );
      assert.equal(await sql.value('SELECT count(*) FROM tasks'), 0, 'the refusal wrote nothing');

      const admitted: number[] = [];
      const admit = async (tx: StoreQueries) => void admitted.push(await tx.tasks.queueDepth());
      const first = await engine.create({ owner: 'o', kind: 'echo', input: { n: 2 }, admit });
      assert.equal(first.created, true);
      assert.deepEqual(admitted, [0], 'the admit ran once, before the row was written');
      assert.equal((await engine.get(first.task.id))?.status, 'working');
      const again = await engine.create({ owner: 'o', kind: 'echo', input: { n: 2 }, admit });
      assert.deepEqual([again.created, again.task.id], [false, first.task.id], 'the task under way, found');
      assert.deepEqual(admitted, [0], 'no admit for work already under way');

      // Signals arrive in commit order: once this one is heard, any of the above would have been.
      const plain = await engine.create({ owner: 'o', kind: 'echo', input: { n: 3 } });
      await until(() => heard.length >= 2, 'the created signals', 5_000);
      assert.deepEqual(heard, [
        ['created', first.task.id],
        ['created', plain.task.id],
      ]);
      assert.deepEqual(await Promise.all(visibleWhenHeard), [true, true], 'each signal came after its commit');
      assert.equal(await sql.value('SELECT count(*) FROM tasks'), 2);
    } finally {
      off();
    }
  } finally {
    await reader.close();
  }
});
