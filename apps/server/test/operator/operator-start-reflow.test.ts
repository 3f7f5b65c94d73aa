// POST /api/reflows: the console starts a reflow as the operator, through the same engine; bad
// input is a 400 with the use case's stable code, a client is refused, and neither moves a booking.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';
import { AGENT, api, APPROVAL_ENV, bookingsChecksum, OPS } from '../helpers/operator-approval-helper.ts';
import { waitForTaskStatus } from '../helpers/test-server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer(APPROVAL_ENV);
});
after(async () => s.close());

test('an operator starts a reflow: 202 with its own task, which runs to completed without waiting for approval', async () => {
  const started = await api(s.url, 'POST', '/api/reflows', {
    month: '2026-09',
    offline_rooms: ['studio-b'],
    from: '2026-09-07',
    to: '2026-09-20',
  });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  assert.equal(started.body.owner, 'ops');
  assert.equal(started.body.kind, 'reflow_month');
  const done = await waitForTaskStatus(s.mcpUrl, started.body.taskId, ['completed', 'failed'], 60_000, { token: OPS });
  assert.equal(done.status, 'completed');
  assert.equal(done.result.structuredContent.applied, true);
  assert.equal(done.result.structuredContent.operatorDecision, undefined);
});

test('bad input: 400 with a stable code; a client: 403; nothing changes', async () => {
  const sum = await bookingsChecksum(s.databasePath);
  const cases: [unknown, string][] = [
    [{ month: '2026-09', offline_rooms: ['no-such-room'] }, 'RFL_UNKNOWN_ROOM'],
    [{ month: '2026-09', offline_rooms: ['studio-b'], from: '2026-10-01' }, 'RFL_WINDOW_OUTSIDE_MONTH'],
    [{ month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-20', to: '2026-09-07' }, 'RFL_FROM_AFTER_TO'],
    [{ month: 'September', offline_rooms: ['studio-b'] }, 'RFL_BAD_REQUEST'],
    [{ month: '2026-09', offline_rooms: [] }, 'RFL_BAD_REQUEST'],
    [{ month: '2026-09', offline_rooms: ['studio-b'], surprise: 1 }, 'RFL_BAD_REQUEST'],
  ];
  for (const [body, code] of cases) {
    const answer = await api(s.url, 'POST', '/api/reflows', body);
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.equal(answer.body.code, code, JSON.stringify(answer.body));
  }
  const asClient = await api(s.url, 'POST', '/api/reflows', { month: '2026-09', offline_rooms: ['studio-b'] }, AGENT);
  assert.equal(asClient.status, 403);
  assert.equal(await bookingsChecksum(s.databasePath), sum);
  const listed = await api(s.url, 'GET', '/api/tasks');
  assert.equal(listed.body.tasks.length, 1, 'only the first test created a task');
});
