// GET /api/tasks/:id/changes.csv and changes.ics over a real socket: an applied reflow's moves
// exactly, read back with other libraries; a dry run or an unknown task is refused and nothing changes.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, waitForTaskStatus, type TestServer } from '../helpers/test-server.ts';
import { api, APPROVAL_ENV, bookingsChecksum, OPS } from '../helpers/operator-approval-helper.ts';
import { assertCsvListsMoves, assertIcsListsMoves } from './changes-check.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer(APPROVAL_ENV);
});
after(async () => s.close());

async function reflow(dryRun: boolean) {
  const started = await api(s.url, 'POST', '/api/reflows', {
    month: '2026-09',
    offline_rooms: ['studio-b'],
    from: '2026-09-07',
    to: '2026-09-20',
    dry_run: dryRun,
  });
  const done = await waitForTaskStatus(s.mcpUrl, started.body.taskId, ['completed', 'failed'], 60_000, { token: OPS });
  assert.equal(done.status, 'completed');
  return { taskId: started.body.taskId as string, result: done.result.structuredContent };
}

const download = (path: string) =>
  fetch(`${s.url}${path}`, { headers: { authorization: `Bearer ${OPS}` } }).then(async (r) => ({
    status: r.status,
    type: r.headers.get('content-type') ?? '',
    disposition: r.headers.get('content-disposition') ?? '',
    text: await r.text(),
  }));

test('an applied reflow: the CSV and the ICS list exactly its moves', async () => {
  const { taskId, result } = await reflow(false);
  assert.ok(result.moves.length > 0);
  const rooms = new Map<string, string>(
    (await api(s.url, 'GET', '/api/rooms')).body.rooms.map((r: any) => [r.id, r.name]),
  );
  const csv = await download(`/api/tasks/${taskId}/changes.csv`);
  assert.equal(csv.status, 200);
  assert.match(csv.type, /^text\/csv/);
  assert.match(csv.disposition, /attachment; filename=".*changes\.csv"/);
  assertCsvListsMoves(csv.text, result, rooms);
  const ics = await download(`/api/tasks/${taskId}/changes.ics`);
  assert.equal(ics.status, 200);
  assert.match(ics.type, /^text\/calendar/);
  assertIcsListsMoves(ics.text, result, rooms);
});

test('a dry run: 409; an unknown task: 404; nothing changes', async () => {
  const { taskId } = await reflow(true);
  const sum = await bookingsChecksum(s.databasePath);
  for (const format of ['csv', 'ics']) {
    const dry = await download(`/api/tasks/${taskId}/changes.${format}`);
    assert.equal(dry.status, 409);
    assert.equal(JSON.parse(dry.text).code, 'RFL_NOTHING_APPLIED');
    assert.equal((await download(`/api/tasks/tsk_nope/changes.${format}`)).status, 404);
  }
  assert.equal(await bookingsChecksum(s.databasePath), sum);
});
