// The queries the server runs on every poll, create, claim, heartbeat, sweep and apply are answered
// through an index, never by reading a whole table: each statement they run is captured as it runs
// and its EXPLAIN QUERY PLAN checked.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/connection.ts';
import { migrateDatabase } from '../src/migrate.ts';
import { queriesFor } from '../src/queries/queries-for.ts';
import { bookings, rooms } from '../src/schema/index.ts';
import { SQLITE_QUERY_PLANS, sqliteOnlyFile } from '../../../scripts/test-store.mjs';

const { test } = sqliteOnlyFile(SQLITE_QUERY_PLANS);

/** A full scan of one of the growing tables (SQLite says "SCAN tasks", without "USING … INDEX"). */
const FULL_SCAN = /\bSCAN (tasks|bookings|task_events|reflow_moves|expired_tasks)\b(?! USING)/;

test('hot task and booking queries use indexes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reflow-plans-'));
  const statements: string[] = [];
  const connection = openDatabase(join(dir, 'plans.db'), { verbose: (sql) => statements.push(sql) });
  try {
    migrateDatabase(connection);
    const now = Date.now();
    let clock = now;
    const q = queriesFor(connection, () => clock);
    connection.db
      .insert(rooms)
      .values({ id: 'studio-a', name: 'Studio A', capacity: 4, features: [], opensAt: '08:00', closesAt: '22:00' })
      .run();
    connection.db
      .insert(bookings)
      .values({
        id: 'bk-1',
        roomId: 'studio-a',
        startAt: now,
        endAt: now + 3_600_000,
        title: 't',
        customer: 'c',
        attendees: 2,
        requiredFeatures: [],
      })
      .run();
    const row = (id: string, createdAt: number) => ({
      id,
      owner: 'alice',
      kind: 'reflow_month',
      input: { n: id },
      dedupeKey: `key-${id}`,
      status: 'working' as const,
      createdAt,
      lastUpdatedAt: createdAt,
      ttlMs: 60_000,
      expiresAt: createdAt + 60_000,
      pollIntervalMs: 1000,
      maxAttempts: 3,
    });
    statements.length = 0; // only what the server runs from here on is checked

    // A create: its duplicate check, then its insert (the store runs them in one transaction).
    for (let i = 0; i < 3; i++) {
      const r = row(`tsk_${i}`, now + i);
      clock = now + i;
      q.tasks.findWorkingDuplicate(r.owner, r.kind, r.dedupeKey);
      q.tasks.insert(r, { message: 'queued' });
    }
    clock = now;
    q.tasks.poll('tsk_2');
    q.tasks.get('tsk_2');
    q.tasks.queueDepth();
    q.tasks.queueOrder();
    const claimed = q.tasks.claimNext('inst_a@host:1', 30_000)!;
    const fence = { taskId: claimed.id, attempt: claimed.attempt, claimedBy: 'inst_a@host:1' };
    q.tasks.renewLease(fence, 60_000);
    q.tasks.progress(fence, 'solving');
    q.tasks.finish(fence, { status: 'completed', result: '{}', message: 'done' });
    q.tasks.cancel('tsk_1', 'Cancelled', 'alice');
    q.tasks.listExhausted();
    q.tasks.listForOwner('alice', 20);
    q.tasks.expiredOwner('tsk_missing');
    q.tasks.events('tsk_0');
    clock = now + 120_000;
    q.tasks.sweepExpired();
    clock = now;
    q.taskList.page({}, 50);
    q.bookings.overlapping({ from: now, to: now + 7_200_000, roomIds: ['studio-a'], statuses: ['confirmed'] });
    q.bookings.firstConflict('studio-a', now, now + 1_800_000, ['bk-2']);
    q.bookings.move('bk-1', 1, { roomId: 'studio-a', startAt: now + 900_000, endAt: now + 4_500_000 });
    // What an apply runs: the target rooms' confirmed bookings once, then per booking.
    q.bookings.overlapping({
      from: now,
      to: now + 7_200_000,
      roomIds: ['studio-a', 'studio-b'],
      statuses: ['confirmed'],
    });
    q.bookings.get('bk-1');
    q.bookings.setStatus('bk-1', 2, 'needs_rebooking');

    const planned = statements.filter((sql) => /^\s*(SELECT|UPDATE|DELETE|INSERT|WITH)\b/i.test(sql));
    assert.ok(planned.length >= 15, `captured ${planned.length} statements`);
    const scans = planned.flatMap((sql) => {
      const plan = (connection.sqlite.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map(
        (r) => r.detail,
      );
      return plan.some((d) => FULL_SCAN.test(d)) ? [`${sql}\n  → ${plan.join('; ')}`] : [];
    });
    assert.deepEqual(scans, [], `full table scans:\n${scans.join('\n')}`);
  } finally {
    connection.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
