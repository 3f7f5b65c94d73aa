// SQLite at synchronous=FULL, with the WAL's fsync off the event loop (wal-flush.ts): a write commits
// at NORMAL and its promise resolves only after the real fdatasync of the WAL returned; until then
// nothing else runs on the connection (no read shows the row before it is durable), the connection
// is back at FULL, and a failed flush fails the writes it held. The flush is the real one, held by a gate.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteStore, type SqliteStore } from '../src/index.ts';
import type { FlushWal } from '../src/wal-flush.ts';
import { newTask } from './store-harness.ts';
import { sqliteOnlyFile } from '../../../scripts/test-store.mjs';

const { test } = sqliteOnlyFile("the WAL flush of SQLite's store at synchronous=FULL");

/** A store on a fresh file whose real WAL flushes are counted and, while `hold` is set, held. */
async function gatedStore(t: { after(fn: () => unknown): void }, synchronous: 'FULL' | 'NORMAL' = 'FULL') {
  const dir = mkdtempSync(join(tmpdir(), 'reflow-wal-flush-'));
  const path = join(dir, 'reflow.db');
  const flushes = { started: 0, done: 0, fail: undefined as Error | undefined };
  let gate: Promise<void> | undefined;
  let open: () => void = () => {};
  const store = openSqliteStore(path, {
    synchronous,
    wrapWalFlush: (real: FlushWal) => async () => {
      flushes.started++;
      await real();
      await gate;
      if (flushes.fail) throw flushes.fail;
      flushes.done++;
    },
  });
  await store.migrate();
  t.after(async () => {
    open();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    store,
    path,
    flushes,
    hold: () => {
      gate = new Promise((resolve) => (open = resolve));
    },
    release: () => {
      gate = undefined;
      open();
    },
  };
}

const pending = async (p: Promise<unknown>) =>
  (await Promise.race([
    p.then(
      () => 'settled',
      () => 'settled',
    ),
    new Promise((r) => setTimeout(r, 50, 'pending')),
  ])) === 'pending';

const synchronousOf = (store: SqliteStore) => store.connection.sqlite.pragma('synchronous', { simple: true });

test('a create answers only after the WAL flush; meanwhile it is committed, nothing reads it here, and the connection is at FULL', async (t) => {
  const { store, path, flushes, hold, release } = await gatedStore(t);
  hold();
  const task = newTask();
  const created = store.tasks.createOrFind(task, { message: 'Queued' });
  assert.ok(await pending(created), 'no answer before the flush returned');
  assert.equal(flushes.started, 1, 'the batch asked for one flush');
  // Committed: another connection (another process would be the same) reads the row.
  const other = new Database(path, { readonly: true });
  t.after(() => other.close());
  assert.equal(other.prepare('SELECT status FROM tasks WHERE id = ?').pluck().get(task.id), 'working');
  // This process's reads wait for the flush: nobody here is shown a task before it is durable.
  const read = store.tasks.get(task.id);
  assert.ok(await pending(read), 'a read waits for the flush');
  assert.equal(synchronousOf(store), 2, 'the connection is back at FULL while the flush runs');

  release();
  assert.equal((await created).created, true);
  assert.equal((await read)?.status, 'working');
  assert.equal(flushes.done, 1);
});

test('a plain write (a claim) also answers after its flush; a write that changed nothing and a read flush nothing', async (t) => {
  const { store, flushes, hold, release } = await gatedStore(t);
  assert.equal(await store.tasks.claimNext('inst_a@host:1', 30_000, []), undefined);
  await store.tasks.get('tsk_missing');
  assert.equal(flushes.started, 0, 'nothing was written, nothing flushed');

  await store.tasks.createOrFind(newTask(), { message: 'Queued' });
  assert.equal(flushes.done, 1);
  hold();
  const claimed = store.tasks.claimNext('inst_a@host:1', 30_000, []);
  assert.ok(await pending(claimed), 'the claim waits for its flush');
  assert.equal(flushes.started, 2);
  release();
  assert.ok(await claimed, 'then it is answered');
  assert.equal(synchronousOf(store), 2);
});

test('a failed flush fails every create it held, and the store goes on at FULL', async (t) => {
  const { store, flushes } = await gatedStore(t);
  flushes.fail = new Error('EIO: the disk refused the flush');
  const held = await Promise.allSettled(
    [1, 2, 3].map(() => store.tasks.createOrFind(newTask(), { message: 'Queued' })),
  );
  assert.deepEqual(
    held.map((h) => h.status),
    ['rejected', 'rejected', 'rejected'],
  );
  for (const h of held) assert.match(String((h as PromiseRejectedResult).reason), /EIO/);
  assert.equal(flushes.started, 1, 'one batch, one flush');

  flushes.fail = undefined;
  assert.equal((await store.tasks.createOrFind(newTask(), { message: 'Queued' })).created, true);
  assert.equal(synchronousOf(store), 2);
});

test('at synchronous=NORMAL nothing is flushed: that setting never syncs at commit', async (t) => {
  const { store, flushes } = await gatedStore(t, 'NORMAL');
  const task = newTask();
  await store.tasks.createOrFind(task, { message: 'Queued' });
  assert.equal((await store.tasks.claimNext('inst_a@host:1', 30_000, []))?.id, task.id, 'the write ran');
  assert.equal(flushes.started, 0);
  assert.equal(synchronousOf(store), 1);
});

test('at synchronous=NORMAL a write still waits for the transaction open on the connection', async (t) => {
  const { store } = await gatedStore(t, 'NORMAL');
  const task = newTask();
  await store.tasks.createOrFind(task, { message: 'Queued' });
  let enter!: () => void;
  const entered = new Promise<void>((resolve) => (enter = resolve));
  let leave!: () => void;
  const gate = new Promise<void>((resolve) => (leave = resolve));
  const rolledBack = store.transaction(async () => {
    enter();
    await gate;
    throw new Error('this transaction rolls back');
  });
  await entered;
  // Run inside the open transaction, the cancel would be rolled back with it.
  const cancelled = store.tasks.cancel(task.id, 'Cancelled', 'alice');
  leave();
  await assert.rejects(rolledBack, /rolls back/);
  assert.equal(await cancelled, true);
  assert.equal((await store.tasks.get(task.id))?.status, 'cancelled', 'the cancel committed on its own');
});
