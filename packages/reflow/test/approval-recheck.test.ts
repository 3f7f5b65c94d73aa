// A plan kept while its approval question is open is re-checked when the answer comes: a booking
// edited meanwhile is reported `changed` (in the result and in the audit), whether the plan moved
// it or could not place it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { DEMO_SITE_PATH } from '@reflow/seed';
import { TaskEngine, WorkerPool, type Logger } from '@reflow/tasks';
import { importSite, REFLOW_KIND, reflowTaskHandler, type ReflowResult } from '../src/index.ts';
import { openReflowTestStore } from './reflow-test-store.ts';
import { builtFile } from '../../../scripts/test-build.mjs';

const silent: Logger = { info() {}, warn() {}, error() {}, child: () => silent };
const YES = { action: 'accept', content: { apply: true } };

test('bookings edited while the approval question was open are reported changed, unresolved ones too', async (t) => {
  const opened = await openReflowTestStore();
  const { store } = opened;
  await importSite(JSON.parse(readFileSync(DEMO_SITE_PATH, 'utf8')), store);
  const pool = new WorkerPool(1);
  const engine = new TaskEngine({ store, pool, logger: silent });
  engine.register(reflowTaskHandler({ store, workerFile: builtFile('solve-worker.js') }));
  t.after(async () => {
    await engine.stop(0);
    await pool.close();
    await opened.close();
  });
  await engine.start();
  const input = { month: '2026-09', offlineRooms: ['studio-b'], from: '2026-09-01', to: '2026-09-30', dryRun: false };
  const { task } = await engine.create({ owner: 'o', kind: REFLOW_KIND, input: { ...input, confirm: true } });
  const deadline = Date.now() + 60_000;
  // One read per look: two reads could see 'working', then 'input_required' in between.
  for (let status = (await engine.get(task.id))?.status; status !== 'input_required';) {
    assert.ok(Date.now() < deadline && status === 'working', 'the task parks for approval');
    await new Promise((r) => setTimeout(r, 20));
    status = (await engine.get(task.id))?.status;
  }
  const kept = (await store.inputs.get(task.id))!.state as {
    plan: { moves: { bookingId: string }[]; unresolved: { bookingId: string; code: string }[] };
  };
  assert.ok(kept.plan.unresolved.length >= 2 && kept.plan.moves.length >= 1, 'the plan moves some and leaves some');
  const [cancelledUnresolved, retimedUnresolved] = kept.plan.unresolved;
  const edited = [cancelledUnresolved.bookingId, retimedUnresolved.bookingId, kept.plan.moves[0].bookingId];
  const sql = (text: string, id: string) => opened.sql.run(text, id);
  // While the question is open: one unresolved booking is cancelled, another gets a new title, a moved one is cancelled.
  await sql("UPDATE bookings SET status = 'cancelled', version = version + 1 WHERE id = ?", edited[0]);
  await sql("UPDATE bookings SET title = 'Renamed', version = version + 1 WHERE id = ?", edited[1]);
  await sql("UPDATE bookings SET status = 'cancelled', version = version + 1 WHERE id = ?", edited[2]);
  const statusOf = async (id: string) =>
    ((await opened.sql.get('SELECT status FROM bookings WHERE id = ?', id)) as { status: string }).status;
  const before = await Promise.all(edited.map((id) => statusOf(id)));
  const key = Object.keys((await store.inputs.get(task.id))!.pending)[0];
  await engine.answer(task.id, { [key]: YES }, 'o');
  const done = await engine.waitFor(task.id);
  assert.equal(done?.status, 'completed', JSON.stringify(done?.error));
  const result = (JSON.parse(done.result!) as { structuredContent: ReflowResult }).structuredContent;
  const reported = new Map(result.unresolvedBookings.map((u) => [u.bookingId, u]));
  for (const id of edited) {
    assert.equal(reported.get(id)?.code, 'changed', `${id} is reported changed`);
    assert.match(reported.get(id)!.reason, /changed or cancelled after the reflow read it/);
  }
  assert.equal(result.unresolvedBookings.length, new Set(result.unresolvedBookings.map((u) => u.bookingId)).size);
  assert.deepEqual(
    await Promise.all(edited.map((id) => statusOf(id))),
    before,
    'the edited bookings are left as they are now',
  );
  const audit = await opened.sql.all<{ booking_id: string; code: string }>(
    `SELECT booking_id, code FROM reflow_unresolved WHERE task_id = ? AND booking_id IN (?, ?, ?)`,
    task.id,
    ...edited,
  );
  assert.deepEqual(
    audit.map((a) => [a.booking_id, a.code]).sort(),
    edited.map((id) => [id, 'changed']).sort(),
    'the audit says changed, once each',
  );
  // The bookings nobody edited were handled as planned: the untouched unresolved need rebooking.
  for (const u of kept.plan.unresolved.slice(2)) {
    assert.equal(reported.get(u.bookingId)?.code, u.code);
    assert.equal(await statusOf(u.bookingId), 'needs_rebooking');
  }
});
