// Processes may share a database file, so two started at once on a fresh file must both start:
// one migrates and seeds, the other waits for it and finds the work done.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '@reflow/db';
import { startServerProcess, type ServerProcess } from '../harness/server-process.ts';
import { READS_THE_SQLITE_FILE, sqliteOnlyFile } from '../../../scripts/test-store.mjs';

const { test } = sqliteOnlyFile(READS_THE_SQLITE_FILE);

const ROUNDS = 4;

test(`two servers started together on a fresh database file both start, migrated and seeded once (${ROUNDS} rounds)`, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'reflow-twostart-'));
  const started: ServerProcess[] = [];
  t.after(async () => {
    await Promise.all(started.map((s) => s.kill()));
    rmSync(dir, { recursive: true, force: true });
  });
  for (let round = 1; round <= ROUNDS; round++) {
    const path = join(dir, `round-${round}.db`);
    const outcomes = await Promise.allSettled([
      startServerProcess(path, { WORKERS: '1' }, true),
      startServerProcess(path, { WORKERS: '1' }, true),
    ]);
    for (const o of outcomes) if (o.status === 'fulfilled') started.push(o.value);
    const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason).slice(0, 2000)] : []));
    assert.deepEqual(failures, [], `round ${round}: both processes start`);
    const store = openSqliteStore(path, { readonly: true });
    const counts = {
      site: (store.connection.sqlite.prepare('SELECT count(*) AS n FROM site').get() as { n: number }).n,
      bookings: await store.site.bookingCount(),
    };
    const applied = await store.migrationsApplied();
    // SQLite's migrations journal, read directly: this test is about two processes on one file.
    const twice = store.connection.sqlite
      .prepare('SELECT hash FROM __drizzle_migrations GROUP BY hash HAVING count(*) > 1')
      .all();
    await store.close();
    assert.ok(applied, `round ${round}: every migration applied`);
    assert.deepEqual(twice, [], `round ${round}: no migration recorded twice`);
    assert.equal(counts.site, 1, `round ${round}: one site`);
    assert.ok(counts.bookings > 0, `round ${round}: seeded`);
    await Promise.all(started.splice(0).map((s) => s.terminate(15_000)));
  }
});
