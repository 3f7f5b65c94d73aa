// Reflows through the real engine, worker pool and store (REFLOW_TEST_STORE): bookings edited while a solve runs
// are re-checked at apply time and never overwritten, and overlapping reflows run one after the other.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { Store } from '@reflow/db';
import { DEMO_SITE_PATH } from '@reflow/seed';
import { TaskEngine, WorkerPool, type Logger } from '@reflow/tasks';
import { importSite, REFLOW_KIND, reflowTaskHandler, type ReflowInput, type ReflowResult } from '../src/index.ts';
import { openReflowTestStore, type ReflowTestStore } from './reflow-test-store.ts';
import { builtFile } from '../../../scripts/test-build.mjs';

const silent: Logger = { info() {}, warn() {}, error() {}, child: () => silent };
let opened: ReflowTestStore;
let store: Store;
let pool: WorkerPool;
let engine: TaskEngine;

before(async () => {
  opened = await openReflowTestStore();
  store = opened.store;
  await importSite(JSON.parse(readFileSync(DEMO_SITE_PATH, 'utf8')), store);
  pool = new WorkerPool(2);
  engine = new TaskEngine({ store, pool, logger: silent });
  engine.register(reflowTaskHandler({ store, workerFile: builtFile('solve-worker.js') }));
  await engine.start();
});
after(async () => {
  await engine.stop(0);
  await pool.close();
  await opened.close();
});

const input = (from: string, to: string, dryRun = false): ReflowInput => ({
  month: '2026-09',
  offlineRooms: ['studio-b'],
  from,
  to,
  dryRun,
});
const sql = (text: string, ...params: unknown[]) => opened.sql.run(text, ...params);
const resultOf = (row: { result: string | null } | undefined) =>
  (JSON.parse(row!.result!) as { structuredContent: ReflowResult }).structuredContent;
const overlaps = () =>
  opened.sql.all(`SELECT a.id, b.id FROM bookings a JOIN bookings b ON a.room_id = b.room_id AND a.id < b.id
       AND a.start_at < b.end_at AND b.start_at < a.end_at WHERE a.status = 'confirmed' AND b.status = 'confirmed'`);

test('a booking inserted in a target slot, and one cancelled, while the solve runs: neither is overwritten', async () => {
  // The solver is deterministic: a dry run shows the moves the real run will plan.
  const dry = resultOf(
    await engine.waitFor(
      (await engine.create({ owner: 'o', kind: REFLOW_KIND, input: input('2026-09-07', '2026-09-09', true) })).task.id,
    ),
  );
  assert.ok(dry.moves.length >= 2);
  const [blocked, cancelled] = dry.moves;
  const target = (await opened.sql.get('SELECT start_at, end_at FROM bookings WHERE id = ?', blocked.bookingId)) as {
    start_at: number;
    end_at: number;
  };
  const toStart = Date.parse(blocked.toStart);
  const intruder = 'bk-walk-in';

  const { task } = await engine.create({ owner: 'o', kind: REFLOW_KIND, input: input('2026-09-07', '2026-09-09') });
  let edited: Promise<unknown> | undefined;
  // The first progress message is written once the snapshot is read, before the worker solves.
  const done = await engine.waitFor(task.id, () => {
    edited ??= (async () => {
      await sql(
        `INSERT INTO bookings (id, room_id, start_at, end_at, title, customer, attendees, required_features, flex_minutes, status, version)
       VALUES (?, ?, ?, ?, 'Walk-in', 'cust-walk', 1, '[]', 0, 'confirmed', 1)`,
        intruder,
        blocked.toRoom,
        toStart,
        toStart + (target.end_at - target.start_at),
      );
      await sql("UPDATE bookings SET status = 'cancelled', version = version + 1 WHERE id = ?", cancelled.bookingId);
    })();
  });
  assert.ok(edited);
  await edited;
  assert.equal(done?.status, 'completed', JSON.stringify(done?.error));
  const real = resultOf(done);
  const byId = new Map(real.unresolvedBookings.map((u) => [u.bookingId, u]));
  assert.equal(byId.get(blocked.bookingId)?.code, 'rooms_busy');
  assert.match(byId.get(blocked.bookingId)!.reason, new RegExp(`taken by ${intruder}`));
  assert.equal(byId.get(cancelled.bookingId)?.code, 'changed');
  const row = async (id: string) =>
    (await opened.sql.get('SELECT room_id, start_at, status FROM bookings WHERE id = ?', id)) as Record<
      string,
      unknown
    >;
  assert.deepEqual(
    await row(intruder),
    { room_id: blocked.toRoom, start_at: toStart, status: 'confirmed' },
    'the new booking stands',
  );
  assert.equal((await row(cancelled.bookingId)).status, 'cancelled', 'the cancellation stands; it was not moved');
  assert.equal((await row(cancelled.bookingId)).room_id, 'studio-b');
  assert.equal(real.moved + real.unresolved, dry.moved + dry.unresolved, 'every affected booking is moved or reported');
  assert.ok(real.moved <= dry.moved - 2);
  const audited = await opened.sql.all<{ booking_id: string }>(
    'SELECT booking_id FROM reflow_moves WHERE task_id = ?',
    task.id,
  );
  assert.ok(!audited.some((m) => m.booking_id === blocked.bookingId || m.booking_id === cancelled.bookingId));
  assert.equal(audited.length, real.moved);
  assert.deepEqual(await overlaps(), []);
});

test('two overlapping reflows never apply at once: the second waits, then plans from the bookings the first wrote', async () => {
  const first = (await engine.create({ owner: 'o', kind: REFLOW_KIND, input: input('2026-09-14', '2026-09-16') })).task
    .id;
  const second = (
    await engine.create({
      owner: 'o',
      kind: REFLOW_KIND,
      input: { ...input('2026-09-16', '2026-09-18'), offlineRooms: ['studio-a'] },
    })
  ).task.id;
  const [a, b] = await Promise.all([engine.waitFor(first), engine.waitFor(second)]);
  assert.deepEqual([a?.status, b?.status], ['completed', 'completed']);
  assert.ok(
    b!.startedAt! >= a!.finishedAt!,
    `the second started (${b!.startedAt}) after the first finished (${a!.finishedAt})`,
  );
  assert.ok(!resultOf(b).unresolvedBookings.some((u) => u.code === 'changed'), 'it did not plan from a stale snapshot');
  assert.deepEqual(await overlaps(), []);
});
