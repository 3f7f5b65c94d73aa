// The fence through two real server processes on one database: one is solving a reflow when it
// stalls (SIGSTOP) past its lease, and the other takes the task over. The first attempt, thawed,
// keeps solving and tries to commit *while* the second runs; it must write nothing: the task
// completes once, by attempt 2, and the bookings hold exactly the moves its result reports.
// The order is forced, not hoped for: the second server is frozen as soon as it has claimed, so
// attempt 2 is still running when attempt 1 goes on; it is thawed once attempt 1 has ended.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Store } from '@reflow/db';
import { pollFor, startServerProcess, type ServerProcess } from './crash-harness.ts';
import { checkInvariants, readBookings } from '../helpers/booking-invariants.ts';
import { openTestStore, rpc, waitForTaskStatus } from '../helpers/test-server.ts';
import { freshTestDatabase } from '../../../../scripts/test-store.mjs';
import { testSql, type TestSql } from '../../../../scripts/test-sql.mjs';

/**
 * Windows to try in turn; a try is inconclusive when a frozen server held a write, or attempt 1
 * finished before it could be stalled (see below).
 */
const TRIES = ['2026-09-07', '2026-09-14', '2026-09-21'];

/** Whether the server logged the end of the task's attempt (finished, released, discarded or failed). */
function attemptEnded(server: ServerProcess, taskId: string, attempt: number): boolean {
  return server
    .output()
    .split('\n')
    .some((line) => {
      if (!line.includes(taskId)) return false;
      try {
        const entry = JSON.parse(line) as { taskId?: string; attempt?: number; msg?: string };
        return (
          entry.taskId === taskId &&
          entry.attempt === attempt &&
          /^task (attempt (finished|released|discarded)|failed|parked)/.test(entry.msg ?? '')
        );
      } catch {
        return false;
      }
    });
}

/**
 * Lapses the attempt's lease in the database, a minute back (PostgreSQL judges leases by its own
 * clock), with its server frozen so it cannot resume it. A server frozen inside a write holds the
 * row (PostgreSQL) or the file (SQLite): then it is thawed a moment and frozen again. False (the
 * server thawed) when the attempt no longer holds the task: on a busy machine the test saw the
 * solve late and the freeze landed in the apply, which committed once thawed.
 */
async function stallPastLease(server: ServerProcess, sql: TestSql, taskId: string, attempt: number): Promise<boolean> {
  for (let tries = 0; ; tries++) {
    server.freeze();
    let settled = false;
    // Only while the attempt holds the task: a finished task's row matches its id and attempt too.
    const staged = sql
      .run(
        "UPDATE tasks SET lease_expires_at = ? WHERE id = ? AND attempt = ? AND status = 'working' AND claimed_by IS NOT NULL",
        Date.now() - 60_000,
        taskId,
        attempt,
      )
      .finally(() => (settled = true));
    // Waits on the flag, not on the write: a write blocked behind the frozen server never settles.
    if (await pollFor(() => settled || undefined, 2_000, 50)) {
      if ((await staged) === 1) return true;
      server.thaw();
      return false;
    }
    server.thaw();
    await staged;
    assert.ok(tries < 5, 'the frozen server held a write each time');
  }
}

test('a superseded attempt that commits while the new attempt runs is refused; the task completes once, by attempt 2', async (t) => {
  const database = await freshTestDatabase();
  // A: the first claimant (the only server when a task is created, so its attempt 1 is A's).
  const a = await startServerProcess(database.location, {}, true);
  let b: ServerProcess | undefined;
  let store: Store | undefined;
  t.after(async () => {
    for (const server of [a, b]) if (server && !server.dead) server.thaw();
    await b?.kill();
    await a.kill();
    await store?.close();
    await database.drop();
  });
  store = await openTestStore(database.location);
  const sql = await testSql(store);
  const tasks = store.tasks;
  const before = await readBookings(sql);
  let overlapped = 0;
  for (const from of TRIES) {
    const to = `2026-09-${String(Number(from.slice(-2)) + 6).padStart(2, '0')}`;
    const args = { month: '2026-09', offline_rooms: ['studio-b'], from, to };
    const { body } = await rpc(a.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: args });
    const taskId: string = body.result.taskId;
    const events = () => tasks.events(taskId);
    // Attempt 1 has read its snapshot and is solving (its first progress event)...
    const solving = await pollFor(
      async () => (await events()).find((e) => e.attempt === 1 && e.kind === 'progress'),
      20_000,
      2,
    );
    assert.ok(solving, 'attempt 1 started solving');
    const first = (await tasks.get(taskId))!;
    assert.equal(first.attempt, 1);
    // ...when A stalls past its lease. B starts and claims the lapsed task at once: attempt 2.
    if (!(await stallPastLease(a, sql, taskId, 1))) {
      // Attempt 1 finished before it could be stalled: nothing to take over; the next window tries again.
      await waitForTaskStatus(a.mcpUrl, taskId, ['completed', 'failed', 'cancelled']);
      t.diagnostic(`attempt 1 finished before it could be stalled, in the window from ${from}`);
      continue;
    }
    b = await startServerProcess(database.location, {}, true);
    const claimed = await pollFor(
      async () => {
        const row = (await tasks.get(taskId))!;
        return row.attempt === 2 ? row : undefined;
      },
      20_000,
      2,
    );
    assert.ok(claimed, 'server B claimed the lapsed task');
    // B is frozen at once, so attempt 2 is still running while A, thawed, goes on with attempt 1.
    b.freeze();
    assert.ok(claimed.claimedBy && claimed.claimedBy !== first.claimedBy, 'attempt 2 is B’s');
    a.thaw();
    // Attempt 1 solves on, then tries to commit, and ends. (Should B have been frozen inside a
    // write, attempt 1's writes wait on it; that try is inconclusive and the next window tries again.)
    const ended = (await pollFor(() => attemptEnded(a, taskId, 1) || undefined, 20_000, 20)) ?? false;
    const during = (await tasks.get(taskId))!;
    const attempt2StillRunning =
      ended && during.status === 'working' && during.attempt === 2 && during.claimedBy === claimed.claimedBy;
    b.thaw();
    const done = await waitForTaskStatus(b.mcpUrl, taskId, ['completed', 'failed', 'cancelled']);
    const finishes = (await events()).filter((e) => ['completed', 'failed'].includes(e.kind));
    assert.deepEqual(
      finishes.map((e) => [e.kind, e.attempt]),
      [['completed', 2]],
      'only the live attempt finished the task',
    );
    assert.equal(done.status, 'completed');
    // The bookings are the before-state plus exactly the audited moves of each completed task,
    // and this task's audit holds exactly the moves its (attempt 2's) result reports.
    await checkInvariants(sql, before);
    assert.equal((await store.audit.movesOf(taskId)).length, done.result.structuredContent.moved);
    // B goes, so the next window's attempt 1 is A's again (on PostgreSQL B hears every creation).
    await b.terminate(10_000);
    if (attempt2StillRunning) {
      t.diagnostic(`attempt 1 went on while attempt 2 ran, in the window from ${from}`);
      overlapped++;
      break;
    }
  }
  assert.equal(overlapped, 1, 'attempt 1 went on while attempt 2 was running, in one of the windows');
});
