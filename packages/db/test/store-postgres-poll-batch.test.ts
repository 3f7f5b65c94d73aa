// Polls batched on PostgreSQL (read-batch.ts): polls that reach a node together are one statement,
// and each poller still gets its own task's row (none for an unknown or expired task, the same row
// for two pollers of one task). A poll asked for after a write committed sees that write, in both
// orders against a statement already sent: it never joins one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReadBatch } from '../src/postgres/read-batch.ts';
import { newTask, postgresKind, sleep } from './store-harness.ts';

test('fifty polls in one turn: one statement, each poller its own row, none for unknown or expired tasks', async () => {
  const { store, done } = await postgresKind.open();
  try {
    const tasks = Array.from({ length: 40 }, () => newTask());
    for (const task of tasks) await store.tasks.createOrFind(task, { message: 'Queued' });
    const expired = newTask({ ttlMs: 1 });
    await store.tasks.createOrFind(expired, { message: 'Queued' });
    await store.tasks.cancel(tasks[7].id, 'Cancelled by alice', 'alice');
    await sleep(20);

    const asked = [...tasks.map((t) => t.id), tasks[3].id, tasks[3].id, expired.id, 'tsk_unknown_1', 'tsk_unknown_2'];
    const before = store.pollBatches;
    const rows = await Promise.all(asked.map((id) => store.tasks.poll(id)));
    const after = store.pollBatches;

    assert.equal(after.statements - before.statements, 1, 'one statement for polls asked in one turn');
    assert.equal(after.reads - before.reads, asked.length);
    rows.forEach((row, i) => {
      const id = asked[i];
      if (id === expired.id || id.startsWith('tsk_unknown')) assert.equal(row, undefined, `${id}: no row`);
      else assert.equal(row?.id, id, `poll ${i} answered with its own task`);
    });
    assert.equal(rows[7]?.status, 'cancelled');
    assert.equal(rows[0]?.status, 'working');
    assert.ok(rows[0]);
    assert.equal('input' in rows[0], false, 'a poll reads no input');
  } finally {
    await done();
  }
});

test('a poll after a committed cancel sees it, while an earlier poll of the task is in flight', async () => {
  const { store, second, done } = await postgresKind.open();
  try {
    const other = await second();
    const task = newTask();
    await store.tasks.createOrFind(task, { message: 'Queued' });
    // Every pool connection busy: the first poll's statement waits in the pool, in flight.
    const held = await Promise.all(Array.from({ length: store.pool.options.max }, () => store.pool.connect()));
    const first = store.tasks.poll(task.id);
    await sleep(20);
    assert.equal(await other.tasks.cancel(task.id, 'Cancelled by alice', 'alice'), true, 'another node cancels');
    const later = store.tasks.poll(task.id);
    for (const client of held) client.release();
    assert.equal((await later)?.status, 'cancelled', 'the poll asked after the cancel committed sees it');
    assert.ok(await first);
    assert.equal(store.pollBatches.statements >= 2, true, 'the later poll went in a statement of its own');
  } finally {
    await done();
  }
});

// The ordering rule itself, with a statement whose snapshot time the test controls.
test('a read never joins a statement already sent, in either order against a write', async () => {
  let value = 'before';
  const sent: { keys: string[]; release: () => void }[] = [];
  const batch = new ReadBatch<{ key: string; value: string }>(
    (keys) => {
      const snapshot = value; // what the statement reads: the state when it was sent
      return new Promise((resolve) => {
        sent.push({ keys, release: () => resolve(keys.map((key) => ({ key, value: snapshot }))) });
      });
    },
    (row) => row.key,
  );
  // Write after the first statement is sent: a read asked for afterwards waits for a second statement.
  const early = batch.read('a');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(sent.length, 1);
  value = 'after';
  const late = batch.read('a');
  const alsoLate = batch.read('b');
  sent[0].release();
  assert.equal((await early)?.value, 'before');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(sent.length, 2, 'the later reads went in a second statement');
  assert.deepEqual(sent[1].keys, ['a', 'b']);
  sent[1].release();
  assert.equal((await late)?.value, 'after');
  assert.equal((await alsoLate)?.value, 'after');

  // Write before any statement is sent: reads asked for together share one, and see the write.
  value = 'third';
  const together = [batch.read('a'), batch.read('a'), batch.read('c')];
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(sent.length, 3);
  assert.deepEqual(sent[2].keys, ['a', 'c'], 'one key asked twice is read once');
  sent[2].release();
  assert.deepEqual(
    (await Promise.all(together)).map((row) => row?.value),
    ['third', 'third', 'third'],
  );
  assert.deepEqual(batch.stats, { statements: 3, reads: 6 });
});

test('a failed statement fails every read in it, and the next reads go on', async () => {
  let fail = true;
  const batch = new ReadBatch<{ key: string }>(
    async (keys) => {
      if (fail) throw new Error('connection lost');
      return keys.filter((k) => k !== 'gone').map((key) => ({ key }));
    },
    (row) => row.key,
  );
  const failed = await Promise.allSettled([batch.read('a'), batch.read('b')]);
  assert.deepEqual(
    failed.map((r) => r.status === 'rejected' && String(r.reason)),
    ['Error: connection lost', 'Error: connection lost'],
  );
  fail = false;
  assert.deepEqual(await Promise.all([batch.read('a'), batch.read('gone')]), [{ key: 'a' }, undefined]);
});
