// The fence through two real servers on one database: one is solving a reflow when its lease lapses
// (as after a long stall) and the other takes the task over. The first attempt keeps solving and
// tries to commit *while* the second runs; it must write nothing: the task completes once, by
// attempt 2, and the bookings hold exactly the moves its result reports.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkInvariants, readBookings } from '../helpers/booking-invariants.ts';
import { rpc, startTestServer, waitForTaskStatus } from '../helpers/test-server.ts';
import { testSql } from '../../../../scripts/test-sql.mjs';

const TRIES = ['2026-09-07', '2026-09-14', '2026-09-21'];

/** Polls until `probe` returns a value; throws at the deadline. */
async function pollUntil<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(2);
  }
}

test('a superseded attempt that commits while the new attempt runs is refused; the task completes once, by attempt 2', async (t) => {
  const a = await startTestServer();
  t.after(() => a.close());
  const b = await startTestServer({}, a.databasePath);
  t.after(() => b.close({ keepDatabase: true }));
  // A stall is staged by lapsing the lease in the database itself, behind both engines' backs.
  const sql = await testSql(a.services.store);
  const tasks = a.services.store.tasks;
  const servers = [a, b];
  let overlapped = 0;
  // The stale commit must land while attempt 2 still runs; should attempt 2 ever finish first,
  // the next window tries again (bounded).
  const before = await readBookings(sql);
  for (const from of TRIES) {
    const to = `2026-09-${String(Number(from.slice(-2)) + 6).padStart(2, '0')}`;
    const args = { month: '2026-09', offline_rooms: ['studio-b'], from, to };
    const { body } = await rpc(a.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: args });
    const taskId: string = body.result.taskId;
    const events = () => tasks.events(taskId);
    // Attempt 1 has read its snapshot and is about to solve (its first progress event).
    await pollUntil(
      async () => (await events()).find((e) => e.attempt === 1 && e.kind === 'progress'),
      'attempt 1 to solve',
    );
    const claimant = (await tasks.get(taskId))!.claimedBy;
    const old = servers.find((s) => s.services.engine.instanceId === claimant)!;
    const next = servers.find((s) => s !== old)!;
    // Its lease lapses; the other server claims the task: attempt 2. (A minute back, so it has
    // lapsed by the database's clock too, which PostgreSQL judges leases by.) A claim can miss it
    // for a moment: on PostgreSQL a claim skips a row another transaction holds (attempt 1's
    // progress write), and attempt 1's heartbeat may renew the lease before the claim. So the lapse
    // is staged again until a claim takes it (attempt 1 still holds it in between).
    const claimed = await pollUntil(async () => {
      const lapsed = await sql.run(
        'UPDATE tasks SET lease_expires_at = ? WHERE id = ? AND attempt = 1',
        Date.now() - 60_000,
        taskId,
      );
      if (lapsed === 1) await next.services.engine.kick();
      const row = (await tasks.get(taskId))!;
      assert.equal(row.status, 'working', 'attempt 1 ended before its lapse was staged');
      return row.attempt === 2 ? row : undefined;
    }, 'the other server to claim the task');
    assert.deepEqual([claimed.attempt, claimed.claimedBy], [2, next.services.engine.instanceId]);

    // Attempt 1 solves on, then tries to commit.
    await pollUntil(() => (old.services.engine.runningCount === 0 ? true : undefined), 'attempt 1 to end');
    const during = (await tasks.get(taskId))!;
    const attempt2StillRunning = during.status === 'working' && next.services.engine.runningCount === 1;
    const done = await waitForTaskStatus(next.mcpUrl, taskId, ['completed', 'failed', 'cancelled']);
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
    assert.equal((await a.services.store.audit.movesOf(taskId)).length, done.result.structuredContent.moved);
    if (attempt2StillRunning) {
      overlapped++;
      break;
    }
  }
  assert.equal(overlapped, 1, 'the stale attempt wrote while attempt 2 was running');
});
