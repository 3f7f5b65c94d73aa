// SIGTERM on the real process: running solves finish within SHUTDOWN_GRACE_MS or give their claim
// back (without spending an attempt), and the server leaves the store cleanly: its node row gone,
// no claim left held, nothing committed lost (and on SQLite, no WAL left behind).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import type { Store } from '@reflow/db';
import { pollFor, startServerProcess } from './crash-harness.ts';
import { openTestStore, rpc, waitForTaskStatus } from '../helpers/test-server.ts';
import { SLOW_REFLOW, slowMonthSeedFile } from '../helpers/slow-month.ts';
import { freshTestDatabase, sqliteOnly } from '../../../../scripts/test-store.mjs';

const REFLOW = { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20' };

/** Waits until the task's attempt is solving (its first progress event: the snapshot is read). */
const solving = (store: Store, taskId: string) =>
  pollFor(
    async () => ((await store.tasks.events(taskId)).some((e) => e.kind === 'progress') ? true : undefined),
    20_000,
    2,
  );

const claimOf = async (store: Store, taskId: string) => {
  const task = (await store.tasks.get(taskId))!;
  return { status: task.status, attempt: task.attempt, claimedBy: task.claimedBy };
};

test('SIGTERM: a solve within the grace period finishes; one past it is released, then resumed by the next start', async (t) => {
  const database = await freshTestDatabase();
  const { location } = database;

  // Generous grace: the running solve completes, then the process exits 0.
  // The slow month: the SIGTERM without grace below must land while the solve runs.
  let server = await startServerProcess(location, { SHUTDOWN_GRACE_MS: '20000', SEED_FILE: slowMonthSeedFile() }, true);
  const store = await openTestStore(location);
  t.after(async () => {
    await server.kill();
    await store.close();
    await database.drop();
  });
  const finishing = (
    await rpc(server.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: { ...SLOW_REFLOW, dry_run: true } })
  ).body.result.taskId;
  assert.ok(await solving(store, finishing), 'the first solve started');
  assert.equal((await store.nodes.list()).length, 1, 'the running server is a node of the store');
  assert.equal(await server.terminate(30_000), 'exit 0', server.output().slice(-2000));
  assert.equal((await store.tasks.get(finishing))!.status, 'completed', 'finished within the grace period');
  assert.deepEqual(await store.nodes.list(), [], 'the server left the store: its node row is gone');

  // No grace: the running solve is released, its attempt not counted; the next start completes it.
  server = await startServerProcess(location, { SHUTDOWN_GRACE_MS: '0' }, true);
  const released = (await rpc(server.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: SLOW_REFLOW })).body
    .result.taskId;
  assert.ok(await solving(store, released), 'the second solve started');
  assert.equal(await server.terminate(30_000), 'exit 0', server.output().slice(-2000));
  assert.deepEqual(
    await claimOf(store, released),
    { status: 'working', attempt: 1, claimedBy: null },
    'back in the queue; attempt 1 stays spent as a number (never reused)',
  );
  assert.equal(
    (await store.tasks.get(released))!.maxAttempts,
    (await store.tasks.get(finishing))!.maxAttempts + 1,
    'attempt refunded: one more allowed',
  );
  assert.deepEqual(await store.nodes.list(), [], 'no node left behind to hold a claim');
  assert.ok((await store.tasks.events(released)).some((e) => e.kind === 'released' && /shut down/.test(e.message)));
  assert.deepEqual(await store.audit.movesOf(released), [], 'the released attempt applied nothing');
  // Nothing committed before the shutdowns was lost.
  assert.equal((await store.tasks.get(finishing))!.status, 'completed');

  server = await startServerProcess(location, {}, true);
  const done = await waitForTaskStatus(server.mcpUrl, released, ['completed', 'failed', 'cancelled']);
  assert.equal(done.status, 'completed');
  assert.equal((await store.tasks.get(released))!.attempt, 2, 'one attempt counted, after the refunded one');
  assert.equal((await store.audit.movesOf(released)).length, done.result.structuredContent.moved);
  await server.kill();
});

test(
  'SIGTERM closes the SQLite file cleanly: the last connection checkpoints and removes the WAL',
  { ...sqliteOnly("checks SQLite's write-ahead log file (journal_mode=WAL); PostgreSQL has none") },
  async (t) => {
    const database = await freshTestDatabase();
    const server = await startServerProcess(database.location, { SHUTDOWN_GRACE_MS: '20000' }, true);
    t.after(async () => {
      await server.kill();
      await database.drop();
    });
    const taskId = (
      await rpc(server.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: { ...REFLOW, dry_run: true } })
    ).body.result.taskId;
    // SIGTERM in the middle of the solve; the test's own connection is closed first, so the
    // server's is the last one and must checkpoint the log and remove it.
    const looking = await openTestStore(database.location);
    const started = await solving(looking, taskId);
    await looking.close();
    assert.ok(started, 'the solve started');
    assert.ok(existsSync(`${database.location}-wal`), 'the running server writes through the WAL');
    assert.equal(await server.terminate(30_000), 'exit 0', server.output().slice(-2000));
    // Checked before anything reopens the file.
    assert.ok(!existsSync(`${database.location}-wal`), 'database closed cleanly');
    const after = await openTestStore(database.location);
    const status = (await after.tasks.get(taskId))?.status;
    await after.close();
    assert.equal(status, 'completed', 'finished within the grace period');
  },
);
