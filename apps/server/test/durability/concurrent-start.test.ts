// Processes may share a database, so two started at once on a fresh one must both start: one
// migrates and seeds, the other waits for it and finds the work done.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startServerProcess, type ServerProcess } from '../../harness/server-process.ts';
import { openTestStore } from '../helpers/test-server.ts';
import { testSql } from '../../../../scripts/test-sql.mjs';
import { freshTestDatabase } from '../../../../scripts/test-store.mjs';

const ROUNDS = 4;

test(`two servers started together on a fresh database both start, migrated and seeded once (${ROUNDS} rounds)`, async (t) => {
  const started: ServerProcess[] = [];
  const databases: { drop(): Promise<void> }[] = [];
  t.after(async () => {
    await Promise.all(started.map((s) => s.kill()));
    for (const database of databases) await database.drop();
  });
  for (let round = 1; round <= ROUNDS; round++) {
    const database = await freshTestDatabase();
    databases.push(database);
    const outcomes = await Promise.allSettled([
      startServerProcess(database.location, { WORKERS: '1' }, true),
      startServerProcess(database.location, { WORKERS: '1' }, true),
    ]);
    for (const o of outcomes) if (o.status === 'fulfilled') started.push(o.value);
    const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason).slice(0, 2000)] : []));
    assert.deepEqual(failures, [], `round ${round}: both processes start`);
    const store = await openTestStore(database.location);
    const sql = await testSql(store);
    const counts = {
      site: Number(await sql.value('SELECT count(*) AS n FROM site')),
      bookings: await store.site.bookingCount(),
    };
    const applied = await store.migrationsApplied();
    // The migrations journal, read directly: this test is about two processes on one database.
    const journal = store.dialect === 'sqlite' ? '__drizzle_migrations' : 'drizzle.__drizzle_migrations';
    const recorded = Number(await sql.value(`SELECT count(*) AS n FROM ${journal}`));
    const twice = await sql.all(`SELECT hash FROM ${journal} GROUP BY hash HAVING count(*) > 1`);
    await store.close();
    assert.ok(applied, `round ${round}: every migration applied`);
    assert.ok(recorded > 0, `round ${round}: the journal records the migrations`);
    assert.deepEqual(twice, [], `round ${round}: no migration recorded twice`);
    assert.equal(counts.site, 1, `round ${round}: one site`);
    assert.ok(counts.bookings > 0, `round ${round}: seeded`);
    await Promise.all(started.splice(0).map((s) => s.terminate(15_000)));
  }
});
