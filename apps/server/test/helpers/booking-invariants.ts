// What must hold in the database after any number of crashes: every task terminal, the bookings
// equal to the before-state plus exactly the audited moves of completed tasks, and no overlaps.
// Read through plain SQL, the same on SQLite and PostgreSQL: the crash tests read through
// scripts/test-sql.mjs, the cluster tests through their own PostgreSQL reader (cluster-invariants.ts
// adds what only a cluster can break).
import assert from 'node:assert/strict';

/** What the checks need of a database: the rows of a query (integers as numbers). */
export interface RowReader {
  all<T>(text: string): Promise<T[]>;
}

export interface BookingState {
  id: string;
  room_id: string;
  start_at: number;
  end_at: number;
  status: string;
}

export async function readBookings(db: RowReader): Promise<Map<string, BookingState>> {
  const rows = await db.all<BookingState>('SELECT id, room_id, start_at, end_at, status FROM bookings ORDER BY id');
  return new Map(rows.map((r) => [r.id, r]));
}

interface TaskState {
  id: string;
  status: string;
  result: string | null;
}

export interface InvariantSummary {
  tasks: number;
  byStatus: Record<string, number>;
  appliedMoves: number;
  needsRebooking: number;
}

/** Asserts every invariant of a crash test, on one server or a cluster; returns figures for the report. */
export async function checkInvariants(db: RowReader, before: Map<string, BookingState>): Promise<InvariantSummary> {
  const tasks = await db.all<TaskState>('SELECT id, status, result FROM tasks');
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const byStatus: Record<string, number> = {};
  for (const t of tasks) byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
  const unfinished = tasks.filter((t) => !['completed', 'failed', 'cancelled'].includes(t.status));
  assert.deepEqual(
    unfinished.map((t) => `${t.id} ${t.status}`),
    [],
    'every task reached a terminal state',
  );

  // Exactly-once recorded outcome: moves exist only for completed, applying tasks, and each such
  // task's audit has exactly the moves its recorded result reports.
  const moves = await db.all<{
    task_id: string;
    booking_id: string;
    from_room: string;
    to_room: string;
    from_start: number;
    to_start: number;
  }>('SELECT task_id, booking_id, from_room, to_room, from_start, to_start FROM reflow_moves ORDER BY id');
  const movesPerTask = new Map<string, number>();
  for (const m of moves) {
    const task = byId.get(m.task_id);
    assert.equal(
      task?.status,
      'completed',
      `move of ${m.booking_id} belongs to task ${m.task_id}, which is ${task?.status ?? 'missing'}`,
    );
    movesPerTask.set(m.task_id, (movesPerTask.get(m.task_id) ?? 0) + 1);
  }
  for (const t of tasks.filter((t) => t.status === 'completed')) {
    const sc = JSON.parse(t.result!).structuredContent as { moved: number; applied: boolean };
    assert.equal(
      movesPerTask.get(t.id) ?? 0,
      sc.applied ? sc.moved : 0,
      `task ${t.id}: audited moves equal its recorded result`,
    );
  }

  // Replay: the before-state plus the audited moves, in order. Each move must start where the
  // booking then was (nothing half moved, nothing moved twice by one apply).
  const expected = new Map([...before].map(([id, b]) => [id, { ...b }]));
  for (const m of moves) {
    const b = expected.get(m.booking_id);
    assert.ok(b, `moved booking ${m.booking_id} existed before`);
    assert.deepEqual(
      [b.room_id, b.start_at],
      [m.from_room, m.from_start],
      `move of ${m.booking_id} by ${m.task_id} starts where the booking was`,
    );
    const duration = b.end_at - b.start_at;
    Object.assign(b, { room_id: m.to_room, start_at: m.to_start, end_at: m.to_start + duration });
  }
  const unresolved = await db.all<{ task_id: string; booking_id: string; code: string }>(
    'SELECT task_id, booking_id, code FROM reflow_unresolved',
  );
  for (const u of unresolved) {
    assert.equal(
      byId.get(u.task_id)?.status,
      'completed',
      `unresolved ${u.booking_id} recorded only by a completed task`,
    );
    assert.notEqual(
      u.code,
      'changed',
      `overlapping reflows ran one after the other, so no plan met a booking changed under it (${u.booking_id})`,
    );
    expected.get(u.booking_id)!.status = 'needs_rebooking';
  }
  const after = await readBookings(db);
  assert.equal(after.size, before.size, 'no booking lost or duplicated');
  for (const [id, want] of expected)
    assert.deepEqual(after.get(id), want, `booking ${id} = before-state + audited moves`);

  const overlaps = await db.all(
    `SELECT a.id AS a, b.id AS b, a.room_id AS room FROM bookings a JOIN bookings b
         ON a.room_id = b.room_id AND a.id < b.id AND a.start_at < b.end_at AND b.start_at < a.end_at
       WHERE a.status = 'confirmed' AND b.status = 'confirmed'`,
  );
  assert.deepEqual(overlaps, [], 'no two confirmed bookings overlap in any room');
  return {
    tasks: tasks.length,
    byStatus,
    appliedMoves: moves.length,
    needsRebooking: [...after.values()].filter((b) => b.status === 'needs_rebooking').length,
  };
}
