// applyPlan on a real store (REFLOW_TEST_STORE), with a hand-made plan whose moves depend on each other: A moves
// into B's slot because B moves away. The in-transaction re-check must let that chain through, drop
// both when B's own target was taken meanwhile, and write nothing when the same plan is applied again.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, test } from 'node:test';
import type { TestSql } from '../../../scripts/test-sql.mjs';
import { DEMO_SITE_PATH } from '@reflow/seed';
import type { Move, Plan } from '@reflow/solver';
import { PermanentTaskError } from '@reflow/tasks';
import { applyPlan } from '../src/apply-plan.ts';
import { importSite } from '../src/import-site.ts';
import { openReflowTestStore, type ReflowTestStore } from './reflow-test-store.ts';

const open: ReflowTestStore[] = [];
after(async () => {
  for (const s of open) await s.close();
});

interface Row {
  id: string;
  room_id: string;
  start_at: number;
  end_at: number;
  version: number;
  status: string;
}

/** A fresh demo site, and three confirmed bookings of one length in three rooms: A, B and C. */
async function setUp() {
  const opened = await openReflowTestStore();
  open.push(opened);
  const { store, sql } = opened;
  await importSite(JSON.parse(readFileSync(DEMO_SITE_PATH, 'utf8')), store);
  // The first A (by id) with a B and a C of its length in two other rooms; correlated lookups, not
  // a three-way join of every booking (which took over a minute on the demo month).
  const ids =
    (await sql.get(`SELECT a, b, (SELECT c.id FROM bookings c WHERE c.status = 'confirmed' AND c.end_at - c.start_at = len
                      AND c.room_id NOT IN (a_room, (SELECT room_id FROM bookings WHERE id = b)) ORDER BY c.id LIMIT 1) AS c
       FROM (SELECT a.id AS a, a.room_id AS a_room, a.end_at - a.start_at AS len,
               (SELECT b.id FROM bookings b WHERE b.status = 'confirmed' AND b.end_at - b.start_at = a.end_at - a.start_at
                  AND b.room_id <> a.room_id
                  AND EXISTS (SELECT 1 FROM bookings c WHERE c.status = 'confirmed' AND c.end_at - c.start_at = a.end_at - a.start_at
                                AND c.room_id NOT IN (a.room_id, b.room_id))
                ORDER BY b.id LIMIT 1) AS b
             FROM bookings a WHERE a.status = 'confirmed') AS candidates
       WHERE b IS NOT NULL ORDER BY a LIMIT 1`)) as { a: string; b: string; c: string };
  const row = async (id: string) => (await sql.get('SELECT * FROM bookings WHERE id = ?', id)) as Row;
  return { store, sql, row, A: await row(ids.a), B: await row(ids.b), C: await row(ids.c) };
}

const move = (from: Row, to: { room: string; start: number }): Move => ({
  bookingId: from.id,
  fromRoom: from.room_id,
  toRoom: to.room,
  fromStart: from.start_at,
  toStart: to.start,
  shiftMinutes: (to.start - from.start_at) / 60_000,
});

/** B moves into C's slot (C cancelled first, so it is free) and A into B's: A depends on B leaving. */
function chainPlan(A: Row, B: Row, C: Row): Plan {
  const moves = [move(A, { room: B.room_id, start: B.start_at }), move(B, { room: C.room_id, start: C.start_at })];
  return {
    affected: 2,
    moves,
    unresolved: [],
    movedBound: 2,
    seriesSplit: 0,
    components: 1,
    optimal: { moved: true, shift: true, series: true },
    totalShiftMinutes: moves.reduce((s, m) => s + Math.abs(m.shiftMinutes), 0),
    engines: { javascriptLpSolver: 0, highs: 0 },
  };
}

const cancel = async (sql: TestSql, id: string) =>
  await sql.run("UPDATE bookings SET status = 'cancelled', version = version + 1 WHERE id = ?", id);

test('a chain of moves applies: A takes the slot B leaves', async () => {
  const { store, sql, row, A, B, C } = await setUp();
  await cancel(sql, C.id);
  const plan = chainPlan(A, B, C);
  const versions = { [A.id]: A.version, [B.id]: B.version };
  const applied = await store.transaction((tx) => applyPlan('t1', plan, { versions, generation: 1 }, tx));
  assert.deepEqual(applied.unresolved, []);
  assert.equal(applied.moves.length, 2);
  assert.deepEqual([(await row(A.id)).room_id, (await row(A.id)).start_at], [B.room_id, B.start_at]);
  assert.deepEqual([(await row(B.id)).room_id, (await row(B.id)).start_at], [C.room_id, C.start_at]);

  // The same plan again (a retried commit): every booking changed since, so nothing is written.
  const again = await store.transaction((tx) => applyPlan('t2', plan, { versions, generation: 1 }, tx));
  assert.deepEqual(again.moves, []);
  assert.deepEqual(
    again.unresolved.map((u) => u.code),
    ['changed', 'changed'],
  );
  assert.deepEqual([(await row(A.id)).room_id, (await row(A.id)).version], [B.room_id, A.version + 1]);
  assert.equal(await sql.value("SELECT count(*) FROM reflow_moves WHERE task_id = 't2'"), 0);
});

test('B’s target taken meanwhile: B is dropped, and then A, whose slot B still holds', async () => {
  const { store, sql, row, A, B, C } = await setUp();
  await cancel(sql, C.id);
  await sql.run(
    `INSERT INTO bookings (id, room_id, start_at, end_at, title, customer, attendees, required_features, flex_minutes, status, version)
       VALUES ('bk-walk-in', ?, ?, ?, 'Walk-in', 'cust-walk', 1, '[]', 0, 'confirmed', 1)`,
    C.room_id,
    C.start_at,
    C.end_at,
  );
  const applied = await store.transaction((tx) =>
    applyPlan('t1', chainPlan(A, B, C), { versions: { [A.id]: A.version, [B.id]: B.version }, generation: 1 }, tx),
  );
  assert.deepEqual(applied.moves, []);
  const byId = new Map(applied.unresolved.map((u) => [u.bookingId, u]));
  assert.equal(byId.get(B.id)?.code, 'rooms_busy');
  assert.match(byId.get(B.id)!.reason, /taken by bk-walk-in/);
  assert.equal(byId.get(A.id)?.code, 'rooms_busy');
  assert.match(byId.get(A.id)!.reason, new RegExp(`taken by ${B.id}`));
  // Neither was moved; both still have to leave their offline rooms, so both need rebooking.
  for (const r of [A, B])
    assert.deepEqual(
      [(await row(r.id)).room_id, (await row(r.id)).start_at, (await row(r.id)).status],
      [r.room_id, r.start_at, 'needs_rebooking'],
    );
  assert.equal((await row('bk-walk-in')).status, 'confirmed');
});

test('bookings the plan could not place need rebooking; one edited meanwhile is left as it is and reported changed', async () => {
  const { store, sql, row, A, B } = await setUp();
  const unresolved = [
    { bookingId: A.id, code: 'no_suitable_room' as const, reason: 'no room fits' },
    { bookingId: B.id, code: 'no_suitable_room' as const, reason: 'no room fits' },
  ];
  const plan: Plan = { ...chainPlan(A, B, A), moves: [], unresolved, movedBound: 0 };
  // B is edited after the snapshot: it keeps its state, and is reported changed instead of the solver's reason.
  await sql.run('UPDATE bookings SET version = version + 1 WHERE id = ?', B.id);
  const applied = await store.transaction((tx) =>
    applyPlan('t1', plan, { versions: { [A.id]: A.version, [B.id]: B.version }, generation: 1 }, tx),
  );
  assert.deepEqual(applied.moves, []);
  assert.deepEqual(
    applied.unresolved.map((u) => [u.bookingId, u.code]),
    [
      [A.id, 'no_suitable_room'],
      [B.id, 'changed'],
    ],
  );
  assert.deepEqual([(await row(A.id)).status, (await row(A.id)).version], ['needs_rebooking', A.version + 1]);
  assert.deepEqual([(await row(B.id)).status, (await row(B.id)).version], ['confirmed', B.version + 1]);
  const audited = await sql.all(
    "SELECT booking_id, code FROM reflow_unresolved WHERE task_id = 't1' ORDER BY booking_id",
  );
  assert.deepEqual(
    audited,
    [
      { booking_id: A.id, code: 'no_suitable_room' },
      { booking_id: B.id, code: 'changed' },
    ].sort((x, y) => x.booking_id.localeCompare(y.booking_id)),
  );
});

test('the re-check refuses a plan read from another import of the site, and reports a booking deleted or cancelled meanwhile as changed', async () => {
  const { store, sql, row, A, B, C } = await setUp();
  await cancel(sql, C.id);
  const plan = chainPlan(A, B, C);
  const versions = { [A.id]: A.version, [B.id]: B.version };
  const siteReplaced = (siteGeneration: number | null) => (e: unknown) =>
    e instanceof PermanentTaskError &&
    e.code === -32602 &&
    JSON.stringify(e.data) === JSON.stringify({ code: 'RFL_SITE_REPLACED', readGeneration: 0, siteGeneration });
  await assert.rejects(
    store.transaction((tx) => applyPlan('t0', plan, { versions, generation: 0 }, tx)),
    siteReplaced(1),
  );
  const a = await row(A.id);
  assert.deepEqual([a.room_id, a.version], [A.room_id, A.version], 'nothing was moved');
  // A database whose site is gone altogether refuses the same way.
  const empty = await openReflowTestStore();
  open.push(empty);
  await assert.rejects(
    empty.store.transaction((tx) => applyPlan('t0', plan, { versions, generation: 0 }, tx)),
    siteReplaced(null),
  );

  // A deleted, and B cancelled by a write that left its version as it was: neither is moved.
  await sql.run('DELETE FROM bookings WHERE id = ?', A.id);
  await sql.run("UPDATE bookings SET status = 'cancelled' WHERE id = ?", B.id);
  const applied = await store.transaction((tx) => applyPlan('t1', plan, { versions, generation: 1 }, tx));
  assert.deepEqual(applied.moves, []);
  assert.deepEqual(
    applied.unresolved.map((u) => [u.bookingId, u.code]),
    [
      [A.id, 'changed'],
      [B.id, 'changed'],
    ],
  );
  const b = await row(B.id);
  assert.deepEqual([b.room_id, b.status], [B.room_id, 'cancelled']);
});
