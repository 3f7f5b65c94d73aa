// Fences, recovery, exclusive scopes and expiry, against real SQLite files.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { after, afterEach, test } from 'node:test';
import { StaleAttemptError } from '@reflow/db';
import { engineFactory, gated, until, settled } from './engine-helper.ts';
import { testSql } from '../../../scripts/test-sql.mjs';
import { MOVES_THE_CLOCK, SAME_HOST_PIDS, sqliteOnly } from '../../../scripts/test-store.mjs';

const engines = engineFactory();
afterEach(() => engines.closeAll());
after(() => engines.removeDir());

test('a stale attempt is fenced out: no progress, no lease renewal, no terminal write, no release', async () => {
  const job = gated('job');
  const { engine } = await engines.open(engines.freshPath(), [job.handler]);
  await engine.start();
  const { task } = await engine.create({ owner: 'o', kind: 'job', input: {} });
  await until(() => job.waiting() === 1, 'the first attempt');
  const claimed = (await engine.get(task.id))!;
  const stale = { taskId: task.id, attempt: claimed.attempt, claimedBy: claimed.claimedBy! };
  // Someone else takes the task over (as after a lapsed lease): attempt 2, another claimant.
  await (
    await testSql(engine.store)
  ).run("UPDATE tasks SET attempt = attempt + 1, claimed_by = 'inst_other@elsewhere:1' WHERE id = ?", task.id);
  const q = engine.store.tasks;
  assert.equal(await q.progress(stale, 'late progress'), false);
  assert.equal(await q.renewLease(stale, 60_000), false);
  assert.equal(await q.release(stale, 'late release'), false);
  await assert.rejects(
    engine.store.transaction((tx) => tx.tasks.finish(stale, { status: 'completed', result: '{}', message: 'late' })),
    StaleAttemptError,
  );
  const row = (await engine.get(task.id))!;
  assert.deepEqual(
    [row.status, row.attempt, row.claimedBy, row.result],
    ['working', 2, 'inst_other@elsewhere:1', null],
  );
  assert.ok(!(await q.events(task.id)).some((e) => e.message.startsWith('late')));
  job.openNext();
});

test(
  'on start, claims of a dead process on this host are released at once; a live or remote claimant keeps its lease',
  sqliteOnly(SAME_HOST_PIDS),
  async () => {
    const path = engines.freshPath();
    const { engine: first, connection } = await engines.open(path, [gated('job').handler], { concurrency: 0 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await first.create({ owner: 'o', kind: 'job', input: { n: Math.random() } })).task.id);
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid;
    const claimants = [
      `inst_aa@${hostname()}:${deadPid}`,
      `inst_bb@${hostname()}:${process.ppid}`,
      'inst_cc@another-host:1',
    ];
    const lease = Date.now() + 600_000;
    ids.forEach((id, i) =>
      connection.sqlite
        .prepare('UPDATE tasks SET claimed_by = ?, attempt = 1, lease_expires_at = ? WHERE id = ?')
        .run(claimants[i], lease, id),
    );
    const job = gated('job');
    const { engine } = await engines.open(path, [job.handler]);
    await engine.start();
    await until(() => job.waiting() === 1, 'the reclaimed task to run');
    const rows = await Promise.all(ids.map((id) => engine.get(id)));
    assert.deepEqual(
      rows.map((row, i) => row!.claimedBy === claimants[i]),
      [false, true, true],
      'only the dead claimant lost its claim',
    );
    const reclaimed = (await engine.get(ids[0]))!;
    assert.equal(reclaimed.attempt, 2);
    assert.ok(
      (await engine.store.tasks.events(ids[0])).some(
        (e) => e.kind === 'released' && /process running this attempt stopped/.test(e.message),
      ),
    );
    job.openNext();
  },
);

test('an expired lease is reclaimed while running; a task out of attempts fails saying what happened', async () => {
  const path = engines.freshPath();
  const { engine: first } = await engines.open(path, [gated('job').handler], { concurrency: 0 });
  const lapsed = (await first.create({ owner: 'o', kind: 'job', input: { n: 1 } })).task.id;
  const spent = (await first.create({ owner: 'o', kind: 'job', input: { n: 2 } })).task.id;
  const refunded = (await first.create({ owner: 'o', kind: 'job', input: { n: 3 } })).task.id;
  const sql = await testSql(first.store);
  // Leases that lapsed a second ago (the test's database server shares this host's clock).
  await sql.run(
    "UPDATE tasks SET claimed_by = 'inst_x@another-host:1', attempt = 1, lease_expires_at = ? WHERE id = ?",
    Date.now() - 1000,
    lapsed,
  );
  await sql.run(
    "UPDATE tasks SET claimed_by = 'inst_x@another-host:1', attempt = 3, lease_expires_at = ? WHERE id = ?",
    Date.now() - 1000,
    spent,
  );
  // Out of attempts on its fourth: one of them was refunded (max_attempts raised to 4), so three counted.
  await sql.run(
    "UPDATE tasks SET claimed_by = 'inst_x@another-host:1', attempt = 4, max_attempts = 4, lease_expires_at = ? WHERE id = ?",
    Date.now() - 1000,
    refunded,
  );
  const job = gated('job');
  // This node allows more attempts than the node that created the tasks: what counted is judged by
  // the attempts each task was allowed when it was created.
  const { engine } = await engines.open(path, [job.handler], { sweepIntervalMs: 50, maxAttempts: 5 });
  await engine.start();
  await until(() => job.waiting() === 1, 'the lapsed task to be reclaimed');
  assert.equal((await engine.get(lapsed))!.attempt, 2);
  const failed = await settled(engine, spent);
  assert.equal(failed?.status, 'failed');
  assert.equal(failed.attempt, 3, 'never claimed a fourth time');
  assert.deepEqual(failed.error?.code, -32603);
  assert.match(failed.error.message, /Gave up after 3 attempt\(s\): each time, the process running it stopped/);
  const gaveUp = await settled(engine, refunded);
  assert.equal(gaveUp?.status, 'failed');
  assert.equal(gaveUp.attempt, 4);
  assert.match(gaveUp.error?.message ?? '', /^Gave up after 3 attempt\(s\)/, 'the refunded attempt is not counted');
  job.openNext();
  assert.equal((await settled(engine, lapsed))?.status, 'completed');
});

test('tasks with overlapping scopes run one after the other; disjoint ones run together', async () => {
  const job = gated('scoped', {
    scope: async (input: { from: number; to: number }) => ({ key: 'k', start: input.from, end: input.to }),
  });
  const { engine } = await engines.open(engines.freshPath(), [job.handler], { concurrency: 3, poolSize: 1 });
  await engine.start();
  const a = (await engine.create({ owner: 'o', kind: 'scoped', input: { from: 0, to: 10 } })).task.id;
  const b = (await engine.create({ owner: 'o', kind: 'scoped', input: { from: 5, to: 15 } })).task.id;
  const c = (await engine.create({ owner: 'o', kind: 'scoped', input: { from: 10, to: 20 } })).task.id;
  await until(() => job.waiting() === 2, 'a and c to start');
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(job.waiting(), 2, 'b overlaps both and waits');
  assert.equal((await engine.get(b))!.claimedBy, null);
  job.openNext();
  job.openNext();
  await until(() => job.waiting() === 1, 'b to start after a and c finished');
  const [rowA, rowB, rowC] = await Promise.all([a, b, c].map((id) => engine.get(id)));
  assert.ok(rowB!.startedAt! >= Math.max(rowA!.finishedAt!, rowC!.finishedAt!));
  job.openNext();
  assert.equal((await settled(engine, b))?.status, 'completed');
});

test(
  'an expired task reads as expired to its owner only, before and after the sweep; unknown ids are not expired',
  sqliteOnly(MOVES_THE_CLOCK),
  async () => {
    let now = 5_000_000;
    const job = gated('job');
    const { engine, connection } = await engines.open(engines.freshPath(), [job.handler], {
      now: () => now,
      defaultTtlMs: 60_000,
      concurrency: 0,
    });
    const { task } = await engine.create({ owner: 'alice', kind: 'job', input: {} });
    assert.equal(await engine.expired(task.id, 'alice'), false, 'readable for its whole TTL');
    now += 60_000;
    assert.equal(await engine.get(task.id), undefined);
    assert.equal(await engine.expired(task.id, 'alice'), true);
    assert.equal(await engine.expired(task.id, 'mallory'), false, 'another principal learns nothing');
    assert.equal(await engine.store.tasks.sweepExpired(), 1);
    assert.equal(
      connection.sqlite.prepare('SELECT count(*) FROM tasks WHERE id = ?').pluck().get(task.id),
      0,
      'the row and its events are gone',
    );
    assert.equal(await engine.expired(task.id, 'alice'), true, 'the tombstone remembers');
    assert.equal(await engine.expired('tsk_unknown', 'alice'), false);
  },
);
