// "Apply exactly this plan": POST /api/tasks/:id/apply-plan applies a completed dry run's moves as
// previewed, without solving again; a booking changed meanwhile is reported `changed` and left as
// it is; anything but a completed dry run is refused (409) and changes nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, waitForTaskStatus, type TestServer } from '../helpers/test-server.ts';
import { api, APPROVAL_ENV, bookingsChecksum, OPS } from '../helpers/operator-approval-helper.ts';
import { writeBehindTheServer } from '../helpers/operator-helper.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer(APPROVAL_ENV);
});
after(async () => s.close());

const finished = (taskId: string) =>
  waitForTaskStatus(s.mcpUrl, taskId, ['completed', 'failed', 'cancelled'], 60_000, { token: OPS });

test('the previewed moves are applied exactly, except bookings edited meanwhile (moved, or edited in place), reported changed', async () => {
  const dry = await api(s.url, 'POST', '/api/reflows', {
    month: '2026-09',
    offline_rooms: ['studio-b'],
    from: '2026-09-07',
    to: '2026-09-20',
    dry_run: true,
  });
  const preview = (await finished(dry.body.taskId)).result.structuredContent;
  assert.equal(preview.applied, false);
  // Moved half an hour later: one with half an hour free after it (the database refuses an overlap).
  const store = s.services.store;
  let moved: string | undefined;
  for (const m of preview.moves as { bookingId: string }[]) {
    const b = (await store.bookings.get(m.bookingId))!;
    if (!(await store.bookings.firstConflict(b.roomId, b.startAt + 1_800_000, b.endAt + 1_800_000, [b.id]))) {
      moved = b.id;
      break;
    }
  }
  assert.ok(moved, 'a previewed booking that can move half an hour later');
  // Edited where the preview saw it (same room and time, a new version): still not as previewed.
  const editedInPlace = (preview.moves as { bookingId: string }[]).find((m) => m.bookingId !== moved)!.bookingId;
  assert.equal(
    await writeBehindTheServer(
      s.databasePath,
      "UPDATE bookings SET title = title || ' (edited)', start_at = start_at + 1800000, end_at = end_at + 1800000, version = version + 1 WHERE id = ?",
      moved,
    ),
    1,
  );
  assert.equal(
    await writeBehindTheServer(
      s.databasePath,
      'UPDATE bookings SET attendees = attendees + 1, version = version + 1 WHERE id = ?',
      editedInPlace,
    ),
    1,
  );
  const edited = [moved, editedInPlace];

  const applied = await api(s.url, 'POST', `/api/tasks/${dry.body.taskId}/apply-plan`);
  assert.equal(applied.status, 202, JSON.stringify(applied.body));
  assert.equal(applied.body.input.planOf, dry.body.taskId);
  assert.equal(applied.body.input.dryRun, false);
  const done = await finished(applied.body.taskId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  const result = done.result.structuredContent;
  assert.equal(result.applied, true);
  const key = (m: any) => `${m.bookingId}|${m.toRoom}|${m.toStart}`;
  assert.deepEqual(
    result.moves.map((m: any) => key(m)).sort(),
    preview.moves
      .filter((m: any) => !edited.includes(m.bookingId))
      .map((m: any) => key(m))
      .sort(),
    'exactly the previewed moves',
  );
  assert.deepEqual(
    result.unresolvedBookings
      .filter((u: any) => u.code === 'changed')
      .map((u: any) => u.bookingId)
      .sort(),
    [...edited].sort(),
  );
  const detail = (await api(s.url, 'GET', `/api/tasks/${applied.body.taskId}`)).body;
  assert.ok(detail.events.some((e: any) => e.message.startsWith('Applying exactly the plan previewed')));
  assert.ok(!detail.events.some((e: any) => /groups solved/.test(e.message)), 'no solve');
  for (const m of result.moves) {
    const row = await s.services.store.bookings.get(m.bookingId);
    assert.equal(row?.roomId, m.toRoom);
  }

  const sum = await bookingsChecksum(s.databasePath);
  for (const id of [applied.body.taskId, 'tsk_nope']) {
    const refused = await api(s.url, 'POST', `/api/tasks/${id}/apply-plan`);
    assert.equal(refused.status, id === 'tsk_nope' ? 404 : 409);
    if (id !== 'tsk_nope') assert.equal(refused.body.code, 'RFL_NOT_A_DRY_RUN');
  }
  assert.equal(await bookingsChecksum(s.databasePath), sum);
});
