// The task guarantees as an MCP client sees them over a real socket: expiry, dedupe, and cancel
// while queued, while solving and after completion.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { DateTime } from 'luxon';
import { bookingsSnapshot, rpc, startTestServer, waitForTaskStatus } from '../helpers/test-server.ts';
import { SLOW_REFLOW, slowMonthSeedFile } from '../helpers/slow-month.ts';

const REFLOW = { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20' };
const call = (url: string, args: Record<string, unknown>) =>
  rpc(url, 'tools/call', { name: 'reflow_month', arguments: args });
/** The calendar day `days` after `day` (both YYYY-MM-DD). */
const dayAfter = (day: string, days: number) => DateTime.fromISO(day, { zone: 'utc' }).plus({ days }).toISODate()!;

test('a task reads for its whole TTL; afterwards tasks/get and tasks/cancel answer -32602 "Task has expired"; an unknown id "Task not found"', async (t) => {
  const server = await startTestServer({ TASK_TTL_MS: '1000', WORKERS: '0' });
  t.after(() => server.close());
  const { body } = await call(server.mcpUrl, { ...REFLOW, dry_run: true });
  const { taskId, createdAt, ttlMs } = body.result;
  assert.equal(ttlMs, 1000);
  const got = await rpc(server.mcpUrl, 'tasks/get', { taskId });
  assert.equal(got.body.result.status, 'working');
  await sleep(Math.max(0, Date.parse(createdAt) + ttlMs - Date.now() + 20));
  for (const method of ['tasks/get', 'tasks/cancel']) {
    const expired = await rpc(server.mcpUrl, method, { taskId });
    assert.deepEqual([expired.body.error?.code, expired.body.error?.message], [-32602, 'Task has expired'], method);
  }
  // After the sweeper deleted the row, a tombstone still tells its owner it expired.
  // Swept here, or already by the server's own sweeper (its interval may have ticked meanwhile).
  assert.ok((await server.services.store.tasks.sweepExpired()) <= 1);
  assert.equal(await server.services.store.tasks.get(taskId), undefined);
  assert.equal((await rpc(server.mcpUrl, 'tasks/get', { taskId })).body.error?.message, 'Task has expired');
  const unknown = await rpc(server.mcpUrl, 'tasks/get', { taskId: 'tsk_0000000000000000000000000000000000000000' });
  assert.deepEqual([unknown.body.error?.code, unknown.body.error?.message], [-32602, 'Task not found']);
});

test('queued in the database: the same request twice is one task; cancel while queued means it never runs', async (t) => {
  // An accept-only process (no workers) keeps tasks queued; a second process on the same file runs them.
  const acceptOnly = await startTestServer({ WORKERS: '0' });
  t.after(() => acceptOnly.close({ keepDatabase: true }));
  const first = (await call(acceptOnly.mcpUrl, { ...REFLOW, from: '2026-09-21', to: '2026-09-22' })).body.result;
  const again = (
    await call(acceptOnly.mcpUrl, {
      to: '2026-09-22',
      from: '2026-09-21',
      offline_rooms: ['studio-b'],
      month: '2026-09',
    })
  ).body.result;
  assert.equal(again.taskId, first.taskId, 'the identical request returned the existing task');
  const doomed = (await call(acceptOnly.mcpUrl, { ...REFLOW, from: '2026-09-01', to: '2026-09-02' })).body.result;
  assert.equal(
    (await rpc(acceptOnly.mcpUrl, 'tasks/cancel', { taskId: doomed.taskId })).body.result.resultType,
    'complete',
  );
  assert.equal((await rpc(acceptOnly.mcpUrl, 'tasks/get', { taskId: doomed.taskId })).body.result.status, 'cancelled');
  await acceptOnly.close({ keepDatabase: true });

  const worker = await startTestServer({}, acceptOnly.databasePath);
  t.after(() => worker.close());
  const done = await waitForTaskStatus(worker.mcpUrl, first.taskId, ['completed', 'failed']);
  assert.equal(done.status, 'completed');
  assert.equal((await rpc(worker.mcpUrl, 'tasks/get', { taskId: doomed.taskId })).body.result.status, 'cancelled');
  const events = (await worker.services.store.tasks.events(doomed.taskId)).map((e) => e.kind);
  assert.deepEqual(events, ['created', 'cancelled'], 'never claimed');
  assert.deepEqual(await worker.services.store.audit.movesOf(doomed.taskId), []);

  // Cancelling a finished task acknowledges and changes nothing.
  assert.equal((await rpc(worker.mcpUrl, 'tasks/cancel', { taskId: first.taskId })).body.result.resultType, 'complete');
  const after = (await rpc(worker.mcpUrl, 'tasks/get', { taskId: first.taskId })).body.result;
  assert.deepEqual(
    [after.status, after.result.structuredContent.moved],
    ['completed', done.result.structuredContent.moved],
  );
});

test('cancel while solving: the task ends cancelled and applies nothing', async (t) => {
  const server = await startTestServer({ SEED_FILE: slowMonthSeedFile() });
  t.after(() => server.close());
  const bookings = () => bookingsSnapshot(server.services.store);
  const tasks = server.services.store.tasks;
  /** Bounded poll: the value once `probe` returns one, else an error naming what never happened. */
  const pollUntil = async <T>(
    probe: () => T | undefined | Promise<T | undefined>,
    what: string,
    timeoutMs = 20_000,
  ): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await sleep(2);
    }
  };
  let cancelledMidSolve = 0;
  // The slow month's solve takes over a second after its first progress event; cancel lands inside
  // it. Should a run ever finish first, the next window (a day later) tries again (bounded).
  for (const from of [0, 1, 2].map((days) => dayAfter(SLOW_REFLOW.from, days))) {
    // Each try compares against the bookings as they are before it (an earlier try may have applied).
    const before = await bookings();
    const { taskId } = (await call(server.mcpUrl, { ...SLOW_REFLOW, from })).body.result;
    await pollUntil(async () => (await tasks.events(taskId)).find((e) => e.kind === 'progress'), 'the solve to start');
    assert.equal((await rpc(server.mcpUrl, 'tasks/cancel', { taskId })).body.result.resultType, 'complete');
    const end = await waitForTaskStatus(server.mcpUrl, taskId, ['completed', 'failed', 'cancelled']);
    if (end.status !== 'cancelled') continue;
    // Wait until the attempt has ended: a solve that ignored the cancel has then tried to commit.
    await pollUntil(() => (server.services.engine.runningCount === 0 ? true : undefined), 'the attempt to end');
    assert.equal((await rpc(server.mcpUrl, 'tasks/get', { taskId })).body.result.status, 'cancelled');
    assert.deepEqual(
      (await tasks.events(taskId)).filter((e) => e.kind === 'completed' || e.kind === 'failed'),
      [],
      'no outcome after the cancel',
    );
    assert.deepEqual(await server.services.store.audit.movesOf(taskId), []);
    assert.equal(await bookings(), before, 'a cancelled reflow applies nothing');
    cancelledMidSolve++;
    break;
  }
  assert.equal(cancelledMidSolve, 1);
});

test('cancel through another server on the same file while the first solves: its commit is refused, nothing applied', async (t) => {
  // The solving process never hears of this cancel (no abort reaches it): only the fence, which
  // requires the task still working, stops its commit.
  // The slow month: the cancel must land while the first server still solves.
  const solver = await startTestServer({ SEED_FILE: slowMonthSeedFile() });
  t.after(() => solver.close());
  const front = await startTestServer({ WORKERS: '0' }, solver.databasePath);
  t.after(() => front.close({ keepDatabase: true }));
  const bookings = () => bookingsSnapshot(solver.services.store);
  const tasks = solver.services.store.tasks;
  const before = await bookings();
  const { taskId } = (await call(solver.mcpUrl, SLOW_REFLOW)).body.result;
  const deadline = Date.now() + 20_000;
  while (!(await tasks.events(taskId)).some((e) => e.kind === 'progress')) {
    assert.ok(Date.now() < deadline, 'the solve started within 20 s');
    await sleep(2);
  }
  assert.equal((await rpc(front.mcpUrl, 'tasks/cancel', { taskId })).body.result.resultType, 'complete');
  assert.equal(solver.services.engine.runningCount, 1, 'the first server is still solving');
  // The solve runs to its end (its heartbeat is seconds away), then tries to commit.
  const running = () => solver.services.engine.runningCount;
  while (running() > 0) {
    assert.ok(Date.now() < deadline + 20_000, 'the attempt ended within 20 s of the cancel');
    await sleep(5);
  }
  assert.equal((await rpc(solver.mcpUrl, 'tasks/get', { taskId })).body.result.status, 'cancelled');
  const kinds = (await tasks.events(taskId)).map((e) => e.kind);
  assert.equal(kinds.at(-1), 'cancelled', `nothing written after the cancel: ${kinds.join(', ')}`);
  assert.ok(!kinds.includes('completed') && !kinds.includes('failed'), kinds.join(', '));
  assert.deepEqual(await solver.services.store.audit.movesOf(taskId), []);
  assert.equal(await bookings(), before, 'a cancelled reflow applies nothing');
});
