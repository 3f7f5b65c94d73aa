// /api/tasks as an operator uses it: list, filter, page, detail, cancel, and the errors for bad input.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEMO_AFFECTED } from '@reflow/seed';
import { rpc, startTestServer } from '../helpers/test-server.ts';
import { getJson, runDemoReflow, startReflow, writeBehindTheServer } from '../helpers/operator-helper.ts';

test('a completed demo reflow: listed with counts, and its detail carries history, timings, moves and reasons', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  const { taskId, task } = await runDemoReflow(server.mcpUrl);
  assert.equal(task.status, 'completed');

  const list = await getJson(`${server.url}/api/tasks`);
  assert.equal(list.status, 200);
  assert.equal(list.body.tasks[0].taskId, taskId);
  assert.equal(list.body.tasks[0].status, 'completed');
  assert.deepEqual(list.body.counts, { working: 0, input_required: 0, completed: 1, failed: 0, cancelled: 0 });
  assert.equal(list.body.nextCursor, null);
  assert.ok(Number.isInteger(list.body.pollIntervalMs) && list.body.pollIntervalMs > 0);

  const { status, body } = await getJson(`${server.url}/api/tasks/${taskId}`);
  assert.equal(status, 200);
  assert.equal(body.task.status, 'completed');
  assert.equal(body.error, null);
  assert.deepEqual(body.task.input, {
    month: '2026-09',
    offlineRooms: ['studio-b'],
    from: '2026-09-07',
    to: '2026-09-20',
    dryRun: false,
  });
  const kinds = body.events.map((e: { kind: string }) => e.kind);
  assert.equal(kinds[0], 'created');
  assert.equal(kinds.at(-1), 'completed');
  assert.ok(kinds.includes('progress'), `progress events in ${kinds}`);
  assert.ok(body.timings.runMs >= 0 && body.timings.totalMs >= body.timings.runMs);

  const result = task.result.structuredContent;
  assert.deepEqual(body.reflow.audit, {
    moves: body.reflow.moves.length,
    unresolved: body.reflow.unresolvedBookings.length,
  });
  assert.equal(body.reflow.summary.affected, DEMO_AFFECTED);
  assert.equal(body.reflow.moves.length + body.reflow.unresolvedBookings.length, DEMO_AFFECTED);
  assert.deepEqual(body.reflow.moves, result.moves);
  assert.deepEqual(body.reflow.unresolvedBookings, result.unresolvedBookings);
  for (const u of body.reflow.unresolvedBookings)
    assert.ok(u.reason.length > 20, `a reason a person can act on: ${u.reason}`);

  // The detail agrees with the audit tables written in the same transaction.
  const audited = (await server.services.store.audit.movesOf(taskId))
    .map((m) => ({ id: m.bookingId, room: m.toRoom }))
    .sort((a, b) => a.id.localeCompare(b.id));
  assert.deepEqual(
    audited,
    body.reflow.moves
      .map((m: any) => ({ id: m.bookingId, room: m.toRoom }))
      .sort((a: any, b: any) => a.id.localeCompare(b.id)),
  );

  const again = await getJson(`${server.url}/api/tasks/${taskId}/cancel`, { method: 'POST' });
  assert.equal(again.status, 409);
  assert.equal(again.body.code, 'RFL_TASK_FINISHED');
  assert.match(again.body.error, /already completed/);
});

test('filters by status, kind and creation time; pages newest first with a cursor; cancels a working task', async (t) => {
  // No workers: every task stays working, so the list and the cancel are deterministic.
  const server = await startTestServer({ WORKERS: '0' });
  t.after(() => server.close());
  const ids: string[] = [];
  for (const to of ['2026-09-08', '2026-09-09', '2026-09-10']) ids.push(await startReflow(server.mcpUrl, { to }));
  const newestFirst = [...ids].reverse();

  const first = await getJson(`${server.url}/api/tasks?limit=2`);
  assert.deepEqual(
    first.body.tasks.map((x: any) => x.taskId),
    newestFirst.slice(0, 2),
  );
  assert.equal(typeof first.body.nextCursor, 'string');
  const second = await getJson(`${server.url}/api/tasks?limit=2&cursor=${first.body.nextCursor}`);
  assert.deepEqual(
    second.body.tasks.map((x: any) => x.taskId),
    newestFirst.slice(2),
  );
  assert.equal(second.body.nextCursor, null);

  const cancelled = await getJson(`${server.url}/api/tasks/${ids[0]}/cancel`, { method: 'POST' });
  assert.equal(cancelled.status, 200);
  assert.equal(cancelled.body.status, 'cancelled');
  assert.equal((await rpc(server.mcpUrl, 'tasks/get', { taskId: ids[0] })).body.result.status, 'cancelled');
  const twice = await getJson(`${server.url}/api/tasks/${ids[0]}/cancel`, { method: 'POST' });
  assert.equal(twice.status, 409);

  const working = await getJson(`${server.url}/api/tasks?status=working`);
  assert.deepEqual(working.body.tasks.map((x: any) => x.taskId).sort(), ids.slice(1).sort());
  assert.deepEqual(working.body.counts, { working: 2, input_required: 0, completed: 0, failed: 0, cancelled: 1 });
  const both = await getJson(`${server.url}/api/tasks?status=working,cancelled&kind=reflow_month`);
  assert.equal(both.body.tasks.length, 3);
  assert.equal((await getJson(`${server.url}/api/tasks?kind=other_kind`)).body.tasks.length, 0);
  const future = new Date(Date.now() + 3_600_000).toISOString();
  const none = await getJson(`${server.url}/api/tasks?since=${encodeURIComponent(future)}`);
  assert.equal(none.body.tasks.length, 0);
  assert.equal(none.body.counts.working, 0);
  assert.equal((await getJson(`${server.url}/api/tasks?since=2020-01-01`)).body.tasks.length, 3);
});

test('bad filters and unknown ids get 4xx JSON with a stable code and the name of what was wrong', async (t) => {
  const server = await startTestServer({ WORKERS: '0' });
  t.after(() => server.close());
  const cases: Array<[string, number, string, RegExp, RequestInit?]> = [
    ['/api/tasks?status=running', 400, 'RFL_BAD_FILTER', /status: unknown status "running"/],
    ['/api/tasks?status=', 400, 'RFL_BAD_FILTER', /status/],
    ['/api/tasks?since=yesterday', 400, 'RFL_BAD_FILTER', /since: "yesterday" is not an ISO 8601/],
    ['/api/tasks?since=2026-13-45', 400, 'RFL_BAD_FILTER', /since/],
    ['/api/tasks?limit=0', 400, 'RFL_BAD_FILTER', /limit must be >= 1/],
    ['/api/tasks?limit=1000', 400, 'RFL_BAD_FILTER', /limit must be <= 200/],
    ['/api/tasks?limit=ten', 400, 'RFL_BAD_FILTER', /limit must be integer/],
    ['/api/tasks?cursor=not-a-cursor', 400, 'RFL_BAD_FILTER', /cursor: not a cursor/],
    ['/api/tasks?stauts=working', 400, 'RFL_BAD_FILTER', /Unknown query parameter stauts/],
    ['/api/tasks/tsk_0000000000000000000000000000000000000000', 404, 'RFL_UNKNOWN_TASK', /No task tsk_0+/],
    [
      '/api/tasks/tsk_0000000000000000000000000000000000000000/cancel',
      404,
      'RFL_UNKNOWN_TASK',
      /No task/,
      { method: 'POST' },
    ],
    ['/api/tasks/nothing-here', 404, 'RFL_UNKNOWN_TASK', /No task nothing-here/],
    ['/api/no-such-route', 404, 'RFL_NO_ROUTE', /No route GET \/api\/no-such-route/],
  ];
  for (const [path, status, code, message, init] of cases) {
    const res = await getJson(`${server.url}${path}`, init);
    assert.equal(res.status, status, `${path}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, code, path);
    assert.match(res.body.error, message, path);
  }
  // Nothing was created or changed by any of it.
  assert.equal((await getJson(`${server.url}/api/tasks`)).body.tasks.length, 0);
});

test('a failed task: listed under failed, its detail carries the error and the attempt that hit it', async (t) => {
  // The site record is gone by the time the task runs (rooms and bookings remain, so the call is
  // accepted): the reflow fails for good, with a reason.
  const server = await startTestServer();
  t.after(() => server.close());
  assert.equal(await writeBehindTheServer(server.databasePath, 'DELETE FROM site'), 1);
  const taskId = await startReflow(server.mcpUrl);
  const deadline = Date.now() + 30_000;
  let detail: any;
  do {
    detail = (await getJson(`${server.url}/api/tasks/${taskId}`)).body;
    if (detail.task.status !== 'working') break;
    await new Promise((r) => setTimeout(r, 50));
  } while (Date.now() < deadline);
  assert.equal(detail.task.status, 'failed');
  assert.deepEqual(detail.error, { code: -32602, message: 'No site has been imported yet' });
  assert.deepEqual(
    detail.events.map((e: any) => e.kind),
    ['created', 'claimed', 'failed'],
  );
  assert.equal(detail.events.at(-1).attempt, 1);
  assert.equal(detail.reflow.summary, null);
  assert.deepEqual(detail.reflow.audit, { moves: 0, unresolved: 0 });
  const failed = (await getJson(`${server.url}/api/tasks?status=failed`)).body;
  assert.deepEqual(
    failed.tasks.map((x: any) => x.taskId),
    [taskId],
  );
  assert.equal(failed.counts.failed, 1);
});
