// SIGTERM on the real process: running solves finish within SHUTDOWN_GRACE_MS or give their claim
// back (without spending an attempt), and the database is closed cleanly (no WAL left behind).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { peek, pollFor, startServerProcess } from './crash-harness.ts';
import { rpc, waitForTaskStatus } from './helper.ts';
import { READS_THE_SQLITE_FILE, sqliteOnlyFile } from '../../../scripts/test-store.mjs';

const { test } = sqliteOnlyFile(READS_THE_SQLITE_FILE);

const REFLOW = { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20' };

test(
  'SIGTERM: a solve within the grace period finishes; one past it is released, then resumed by the next start',
  { timeout: 120_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'reflow-shutdown-'));
    const databasePath = join(dir, 'r.db');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const solving = (taskId: string) =>
      pollFor(
        () =>
          peek<unknown>(databasePath, (db) =>
            db.prepare("SELECT 1 FROM task_events WHERE task_id = ? AND kind = 'progress'").get(taskId),
          ),
        20_000,
        2,
      );
    const events = (taskId: string) =>
      peek(
        databasePath,
        (db) =>
          db.prepare('SELECT kind, message FROM task_events WHERE task_id = ? ORDER BY id').all(taskId) as {
            kind: string;
            message: string;
          }[],
      );
    const row = (taskId: string) =>
      peek(
        databasePath,
        (db) =>
          db.prepare('SELECT status, attempt, claimed_by FROM tasks WHERE id = ?').get(taskId) as Record<
            string,
            unknown
          >,
      );

    // Generous grace: the running solve completes, then the process exits 0.
    let server = await startServerProcess(databasePath, { SHUTDOWN_GRACE_MS: '20000' }, true);
    const finishing = (
      await rpc(server.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: { ...REFLOW, dry_run: true } })
    ).body.result.taskId;
    await solving(finishing);
    assert.equal(await server.terminate(30_000), 'exit 0', server.output().slice(-2000));
    // Checked before anything reopens the file: the last connection checkpointed and removed the WAL.
    assert.ok(!existsSync(`${databasePath}-wal`), 'database closed cleanly');
    assert.equal(row(finishing).status, 'completed', 'finished within the grace period');

    // No grace: the running solve is released, its attempt not counted; the next start completes it.
    server = await startServerProcess(databasePath, { SHUTDOWN_GRACE_MS: '0' }, true);
    const released = (await rpc(server.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: REFLOW })).body.result
      .taskId;
    await solving(released);
    assert.equal(await server.terminate(30_000), 'exit 0', server.output().slice(-2000));
    assert.deepEqual(
      row(released),
      { status: 'working', attempt: 0, claimed_by: null },
      'back in the queue, attempt refunded',
    );
    assert.ok(events(released).some((e) => e.kind === 'released' && /shut down/.test(e.message)));
    assert.deepEqual(
      peek(databasePath, (db) => db.prepare('SELECT count(*) AS n FROM reflow_moves WHERE task_id = ?').get(released)),
      { n: 0 },
    );

    server = await startServerProcess(databasePath, {}, true);
    t.after(() => server.kill());
    const done = await waitForTaskStatus(server.mcpUrl, released, ['completed', 'failed', 'cancelled']);
    assert.equal(done.status, 'completed');
    assert.equal(row(released).attempt, 1);
  },
);
