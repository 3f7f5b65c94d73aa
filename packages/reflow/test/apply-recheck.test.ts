// Reflows through the real engine, worker pool and SQLite file: bookings edited while a solve runs
// are re-checked at apply time and never overwritten, and overlapping reflows run one after the other.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openSqliteStore, type SqliteStore } from '@reflow/db';
import { DEMO_SITE_PATH } from '@reflow/seed';
import { TaskEngine, WorkerPool, type Logger } from '@reflow/tasks';
import { importSite, REFLOW_KIND, reflowTaskHandler, type ReflowInput, type ReflowResult } from '../src/index.ts';

const silent: Logger = { info() {}, warn() {}, error() {}, child: () => silent };
let dir: string;
let store: SqliteStore;
let connection: SqliteStore['connection'];
let pool: WorkerPool;
let engine: TaskEngine;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'reflow-recheck-'));
  store = openSqliteStore(join(dir, 'r.db'));
  connection = store.connection;
  await store.migrate();
  await importSite(JSON.parse(readFileSync(DEMO_SITE_PATH, 'utf8')), store);
  pool = new WorkerPool(2);
  engine = new TaskEngine({ store, pool, logger: silent });
  engine.register(reflowTaskHandler({ store }));
  await engine.start();
});
after(async () => {
  await engine.stop(0);
  await pool.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const input = (from: string, to: string, dryRun = false): ReflowInput => ({
  month: '2026-09',
  offlineRooms: ['studio-b'],
  from,
  to,
  dryRun,
});
const sql = (text: string, ...params: unknown[]) => connection.sqlite.prepare(text).run(...params);
const resultOf = (row: { result: string | null } | undefined) =>
  (JSON.parse(row!.result!) as { structuredContent: ReflowResult }).structuredContent;
const overlaps = () =>
  connection.sqlite
    .prepare(
      `SELECT a.id, b.id FROM bookings a JOIN bookings b ON a.room_id = b.room_id AND a.id < b.id
       AND a.start_at < b.end_at AND b.start_at < a.end_at WHERE a.status = 'confirmed' AND b.status = 'confirmed'`,
    )
    .all();

test('a booking inserted in a target slot, and one cancelled, while the solve runs: neither is overwritten', async () => {
  // The solver is deterministic: a dry run shows the moves the real run will plan.
  const dry = resultOf(
    await engine.waitFor(
      (await engine.create({ owner: 'o', kind: REFLOW_KIND, input: input('2026-09-07', '2026-09-09', true) })).task.id,
    ),
  );
  assert.ok(dry.moves.length >= 2);
  const [blocked, cancelled] = dry.moves;
  const target = connection.sqlite
    .prepare('SELECT start_at, end_at FROM bookings WHERE id = ?')
    .get(blocked.bookingId) as { start_at: number; end_at: number };
  const toStart = Date.parse(blocked.toStart);
  const intruder = 'bk-walk-in';

  const { task } = await engine.create({ owner: 'o', kind: REFLOW_KIND, input: input('2026-09-07', '2026-09-09') });
  let edited = false;
  // The first progress message is written once the snapshot is read, before the worker solves.
  const done = await engine.waitFor(task.id, () => {
    if (edited) return;
    edited = true;
    sql(
      `INSERT INTO bookings (id, room_id, start_at, end_at, title, customer, attendees, required_features, flex_minutes, status, version)
       VALUES (?, ?, ?, ?, 'Walk-in', 'cust-walk', 1, '[]', 0, 'confirmed', 1)`,
      intruder,
      blocked.toRoom,
      toStart,
      toStart + (target.end_at - target.start_at),
    );
    sql("UPDATE bookings SET status = 'cancelled', version = version + 1 WHERE id = ?", cancelled.bookingId);
  });
  assert.ok(edited);
  assert.equal(done?.status, 'completed', JSON.stringify(done?.error));
  const real = resultOf(done);
  const byId = new Map(real.unresolvedBookings.map((u) => [u.bookingId, u]));
  assert.equal(byId.get(blocked.bookingId)?.code, 'rooms_busy');
  assert.match(byId.get(blocked.bookingId)!.reason, new RegExp(`taken by ${intruder}`));
  assert.equal(byId.get(cancelled.bookingId)?.code, 'changed');
  const row = (id: string) =>
    connection.sqlite.prepare('SELECT room_id, start_at, status FROM bookings WHERE id = ?').get(id) as Record<
      string,
      unknown
    >;
  assert.deepEqual(
    row(intruder),
    { room_id: blocked.toRoom, start_at: toStart, status: 'confirmed' },
    'the new booking stands',
  );
  assert.equal(row(cancelled.bookingId).status, 'cancelled', 'the cancellation stands; it was not moved');
  assert.equal(row(cancelled.bookingId).room_id, 'studio-b');
  assert.equal(real.moved + real.unresolved, dry.moved + dry.unresolved, 'every affected booking is moved or reported');
  assert.ok(real.moved <= dry.moved - 2);
  const audited = connection.sqlite.prepare('SELECT booking_id FROM reflow_moves WHERE task_id = ?').all(task.id) as {
    booking_id: string;
  }[];
  assert.ok(!audited.some((m) => m.booking_id === blocked.bookingId || m.booking_id === cancelled.bookingId));
  assert.equal(audited.length, real.moved);
  assert.deepEqual(overlaps(), []);
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
  assert.deepEqual(overlaps(), []);
});
