// Undo a reflow over a real socket: POST /api/tasks/:id/revert and the revert_reflow MCP tool put
// every moved booking back (and confirm again those marked needs_rebooking) unless it changed
// since; audited like an apply; once per reflow; every refusal changes nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { rpc, startTestServer, waitForTaskStatus, type TestServer } from '../helpers/test-server.ts';
import {
  AGENT,
  api,
  APPROVAL_ENV,
  bookingsChecksum,
  OPS,
  startReflowAs,
  waitAsAgent,
  waitUntilAwaitingOperator,
} from '../helpers/operator-approval-helper.ts';
import { writeBehindTheServer } from '../helpers/operator-helper.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer(APPROVAL_ENV);
});
after(async () => s.close());

/** Where every booking is and its status, without versions (a revert bumps them). */
const placement = async () =>
  new Map(
    (await s.services.store.bookings.overlapping({ from: -8.64e15, to: 8.64e15 })).map((b) => [
      b.id,
      `${b.roomId}|${b.startAt}|${b.endAt}|${b.status}`,
    ]),
  );
const finished = (taskId: string, token = OPS) =>
  waitForTaskStatus(s.mcpUrl, taskId, ['completed', 'failed', 'cancelled'], 60_000, { token });

test('revert from the API: every booking back where it was except one edited since, audited; a second revert is refused', async () => {
  const before = await placement();
  const started = await api(s.url, 'POST', '/api/reflows', {
    month: '2026-09',
    offline_rooms: ['studio-b'],
    from: '2026-09-07',
    to: '2026-09-13',
  });
  const reflow = await finished(started.body.taskId);
  const result = reflow.result.structuredContent;
  assert.ok(result.moves.length > 1);
  // A customer moves one of the moved sessions by an hour after the reflow: the revert must leave it.
  const edited = result.moves[0].bookingId;
  assert.equal(
    await writeBehindTheServer(
      s.databasePath,
      'UPDATE bookings SET start_at = start_at + 3600000, end_at = end_at + 3600000, version = version + 1 WHERE id = ?',
      edited,
    ),
    1,
  );

  const revert = await api(s.url, 'POST', `/api/tasks/${started.body.taskId}/revert`);
  assert.equal(revert.status, 202, JSON.stringify(revert.body));
  assert.equal(revert.body.kind, 'revert_reflow');
  const done = await finished(revert.body.taskId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  const r = done.result.structuredContent;
  assert.equal(r.restored, result.moves.length - 1 + result.unresolvedBookings.length);
  assert.deepEqual(
    r.notRestoredBookings.map((u: any) => [u.bookingId, u.code]),
    [[edited, 'changed']],
  );
  const now = await placement();
  for (const [id, was] of before) if (id !== edited) assert.equal(now.get(id), was, `${id} back as it was`);
  const audited = await s.services.store.audit.movesOf(revert.body.taskId);
  assert.equal(audited.length, result.moves.length - 1, 'each move back is in the audit');

  const sum = await bookingsChecksum(s.databasePath);
  const again = await api(s.url, 'POST', `/api/tasks/${started.body.taskId}/revert`);
  assert.equal(again.status, 409);
  assert.equal(again.body.code, 'RFL_ALREADY_REVERTED');
  const ofRevert = await api(s.url, 'POST', `/api/tasks/${revert.body.taskId}/revert`);
  assert.equal(ofRevert.status, 409);
  assert.equal(ofRevert.body.code, 'RFL_NOT_REVERTIBLE');
  assert.equal(await bookingsChecksum(s.databasePath), sum);
});

test('refusals: a dry run or a rejected reflow 409, an unknown task 404, a client on /api 403 — nothing changes', async () => {
  const dry = await api(s.url, 'POST', '/api/reflows', {
    month: '2026-09',
    offline_rooms: ['studio-b'],
    dry_run: true,
  });
  await finished(dry.body.taskId);
  const rejected = await startReflowAs(s.mcpUrl, AGENT, { from: '2026-09-21', to: '2026-09-27' });
  await waitUntilAwaitingOperator(s.mcpUrl, rejected);
  await api(s.url, 'POST', `/api/tasks/${rejected}/reject`, { reason: 'not now' });
  await waitAsAgent(s.mcpUrl, rejected);
  const sum = await bookingsChecksum(s.databasePath);
  for (const id of [dry.body.taskId, rejected]) {
    const refused = await api(s.url, 'POST', `/api/tasks/${id}/revert`);
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'RFL_NOT_REVERTIBLE');
  }
  assert.equal((await api(s.url, 'POST', '/api/tasks/tsk_nope/revert')).status, 404);
  assert.equal((await api(s.url, 'POST', `/api/tasks/${dry.body.taskId}/revert`, undefined, AGENT)).status, 403);
  assert.equal(await bookingsChecksum(s.databasePath), sum);
});

test('revert_reflow over MCP: the reflow’s owner (a client) reverts it as a task, once an operator approves; once', async () => {
  const before = await placement();
  const taskId = await startReflowAs(s.mcpUrl, AGENT, { from: '2026-09-14', to: '2026-09-18' });
  await waitUntilAwaitingOperator(s.mcpUrl, taskId);
  await api(s.url, 'POST', `/api/tasks/${taskId}/approve`, {});
  const applied = (await waitAsAgent(s.mcpUrl, taskId)).result.structuredContent;
  assert.equal(applied.applied, true);
  const call = await rpc(s.mcpUrl, 'tools/call', { name: 'revert_reflow', arguments: { taskId } }, { token: AGENT });
  assert.equal(call.body.result?.resultType, 'task', JSON.stringify(call.body));
  // APPROVAL=operator: a client's revert moves bookings, so it waits for an operator as its reflow did.
  await waitUntilAwaitingOperator(s.mcpUrl, call.body.result.taskId);
  // The other form of the same revert (an operator's, which does not wait) is the same work: refused.
  const byOperator = await api(s.url, 'POST', `/api/tasks/${taskId}/revert`);
  assert.equal(byOperator.body.code, 'RFL_ALREADY_REVERTED', JSON.stringify(byOperator.body));
  await api(s.url, 'POST', `/api/tasks/${call.body.result.taskId}/approve`, {});
  const done = await finished(call.body.result.taskId, AGENT);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.equal(done.result.structuredContent.reflowTaskId, taskId);
  assert.equal(done.result.structuredContent.restored, applied.moved + applied.unresolved);
  assert.deepEqual(await placement(), before, 'the month is as it was');
  const twice = await rpc(s.mcpUrl, 'tools/call', { name: 'revert_reflow', arguments: { taskId } }, { token: AGENT });
  assert.match(JSON.stringify(twice.body), /RFL_ALREADY_REVERTED/);
});
